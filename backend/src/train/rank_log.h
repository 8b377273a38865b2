#pragma once
// The log of a rank other than 0: its lines go to rank-N.log in the folder it trains for (a run's, or a
// compression pass's). Its metrics are the group's and rank 0 reports them, so only its lines are kept.

#include <fstream>
#include <mutex>
#include <string>

#include "run_folder/event_stream.h"

namespace wb {

class RankLog {
 public:
  RankLog(const std::string& folder, int rank);
  RankLog(const RankLog&) = delete;
  RankLog& operator=(const RankLog&) = delete;
  EventStream& events() { return m_events; }

 private:
  void write(EventBatch&& batch);

  std::mutex m_mutex;
  std::ofstream m_file;
  EventStream m_events;
};

}  // namespace wb
