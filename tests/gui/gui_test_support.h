#pragma once
// Shared by the window's tests: a tiny experiment that trains in about a second on the synthetic dataset, and
// a temporary runs folder per test.

#include <QString>
#include <nlohmann/json.hpp>

#include "workbench/experiment.h"

namespace wb::gui::test {

// 512 synthetic 1x8x8 samples in 4 classes, an MLP, batch 32: 15 optimizer steps per epoch, validation each
// epoch.
inline nlohmann::json tinyExperimentJson(const QString& runsDir, int epochs = 3, int maxSteps = 0,
                                         const std::string& name = "tiny") {
  return {
      {"name", name},
      {"seed", 7},
      {"data",
       {{"dataset", "synthetic"},
        {"val_fraction", 0.1},
        {"augment", false},
        {"synthetic", {{"samples", 512}, {"classes", 4}, {"shape", {1, 8, 8}}}}}},
      {"model", {{"preset", "mlp"}}},
      {"optimizer", {{"name", "adamw"}, {"lr", 0.003}}},
      {"schedule", {{"name", "cosine"}, {"warmup_steps", 5}}},
      {"train",
       {{"epochs", epochs},
        {"max_steps", maxSteps},
        {"batch_size", 32},
        {"threads", 1},
        {"log_every_steps", 2},
        {"checkpoint_every_minutes", 0.0}}},
      {"output", {{"runs_dir", runsDir.toStdString()}}},
  };
}

inline Experiment tinyExperiment(const QString& runsDir, int epochs = 3, int maxSteps = 0,
                                 const std::string& name = "tiny") {
  ParseResult parsed = parseExperiment(tinyExperimentJson(runsDir, epochs, maxSteps, name));
  if (!parsed.ok()) throw std::runtime_error(formatIssues(parsed.issues));
  return parsed.experiment;
}

}  // namespace wb::gui::test
