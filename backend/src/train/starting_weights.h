#pragma once
// model.weights as a fresh run starts from it: the file read once, when the first local rank's model is
// built, and loaded into every local rank's model; then its report — the summary and the head in the log,
// every name in the run folder's weights_load.json. A resumed run starts from its checkpoint instead and
// never reads the file.

#include <optional>
#include <string>

#include "model/model.h"
#include "run_folder/event_stream.h"
#include "weights/weights_loading.h"
#include "workbench/experiment.h"
#include "workbench/weights_load_report.h"

namespace wb {

class StartingWeights {
 public:
  // `config` (the experiment's model section) must outlive this.
  explicit StartingWeights(const ModelConfig& config) : m_config(config) {}

  // Reads the file at the first call (matched to that model), loads it into `model`.
  void loadInto(Model& model);
  // After every local rank's model has it: frees the file's tensors, logs the report and, when `report_file`
  // is not empty (the folder's owner: rank 0's process), writes every name to it. Nothing when none was
  // loaded.
  void report(EventStream& events, const std::string& report_file);

 private:
  const ModelConfig& m_config;
  std::optional<ModelWeightsSource> m_source;
  std::optional<WeightsLoadReport> m_report;
};

}  // namespace wb
