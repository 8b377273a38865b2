#include "train/starting_weights.h"

#include "util/atomic_file.h"

namespace wb {

void StartingWeights::loadInto(Model& model) {
  if (!m_source) m_source = readModelWeights(startingWeightsOf(m_config), model);
  WeightsLoadReport report = loadModelWeights(model, *m_source, m_config, describeArchitecture(m_config));
  if (!m_report) m_report = std::move(report);
}

void StartingWeights::report(EventStream& events, const std::string& report_file) {
  m_source.reset();  // the file's tensors are in the models now
  if (!m_report) return;
  std::string text = weightsLoadSummary(*m_report);
  if (const std::string head = weightsLoadHeadLine(*m_report); !head.empty()) text += "\n" + head;
  events.log(LogLevel::Info, text);
  if (!report_file.empty()) writeFileAtomically(report_file, weightsLoadToJson(*m_report).dump(2) + "\n");
}

}  // namespace wb
