#include "train/rank_log.h"

#include "workbench/events.h"

namespace wb {

RankLog::RankLog(const std::string& folder, int rank)
    : m_file(folder + "/rank-" + std::to_string(rank) + ".log", std::ios::app),
      m_events([this](EventBatch&& batch) { write(std::move(batch)); }) {}

void RankLog::write(EventBatch&& batch) {
  std::lock_guard<std::mutex> lock(m_mutex);
  if (!m_file) return;
  for (const Event& e : batch) {
    if (const auto* line = std::get_if<LogLine>(&e))
      m_file << toString(line->level) << ": " << line->text << "\n";
  }
  m_file.flush();
}

}  // namespace wb
