#pragma once
// Whether a run folder holds a trained model, read from its files: what export, eval and compress check
// before they use the run's model.pt (a run stopped part-way has one too, from the step it stopped at). Plain
// C++.

#include <cstdint>
#include <optional>
#include <string>

#include "workbench/events.h"

namespace wb {

struct RunState {
  std::string run_dir;
  bool folder = false;              // the folder exists
  bool experiment = false;          // it holds an experiment.json that parses: a run folder
  std::optional<RunStatus> status;  // summary.json's; none while training (or after a kill before it ended)
  int64_t steps = 0;                // the step its model.pt and summary are from
  int64_t epochs = 0;

  // Completed, or stopped early by its own rule: model.pt is the trained model.
  bool finished() const;
  // "interrupted at step 45 (epoch 1)", "failed after 0 steps", "still training or killed (no summary.json)".
  std::string describe() const;
};

RunState readRunState(const std::string& run_dir);

// Before a run's own model.pt is used as its trained model (`action`: "export", "evaluate", "compress"):
// throws wb::UserError, naming what the folder is and what to do, when it is not a run folder, when the run
// failed (no trained model), or when its training did not finish; with `allow_unfinished` an unfinished run
// is let through and the returned note says which step its part-trained model is from. "" for a finished run.
std::string checkRunModel(const std::string& run_dir, const std::string& action, bool allow_unfinished);

}  // namespace wb
