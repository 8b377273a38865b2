#pragma once
// A run's row in its runs folder's index (runs/run_index_db.h), as the run keeps it: registered when the run
// starts (reopened when it resumes) under the name, tags and notes of its run.json, its progress at every
// checkpoint, its end. The run folder is the record and the index a view of it: after registration, a failure
// to update the index is a warning, never the run's failure.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "run_folder/event_stream.h"
#include "runs/run_index_db.h"
#include "workbench/events.h"
#include "workbench/experiment.h"

namespace wb {

struct RankProgress;

// The form the run index keys folders by: absolute, normalized, no trailing separator.
std::string absoluteFolder(const std::string& path);

class RunIndexEntry {
 public:
  // Registers the run in `runs_dir`'s index (reopens it when `resumed`) and writes `folder`'s run.json: the
  // name and tags the run was given (resumed: those it has), else the experiment's numbered name and `tags`.
  // Throws wb::UserError naming the index file when it cannot be opened.
  RunIndexEntry(const std::string& runs_dir, const std::string& folder, const Experiment& experiment,
                const std::string& experiment_hash, bool resumed, const std::vector<std::string>& tags);

  // The steps, epochs and best validation figures of a checkpoint just written.
  void progress(const RankProgress& progress, EventStream& events);
  // How the run ended; a failure goes to `warn` (the stream may be closing).
  void finish(const RunSummary& summary, const std::function<void(const std::string&)>& warn);

 private:
  std::unique_ptr<RunIndexDb> m_index;
  int64_t m_id = 0;
};

}  // namespace wb
