#pragma once
// What the last session of a resumed run did, read from its metrics.jsonl: the step its "Continuing at step
// N" line (a fine-tuning pass: "...; continuing at step N from ...") names and the step events after that
// line. A resume that ignored its checkpoint and started over has no such line: the resume tests' measure of
// "resumed, not restarted".

#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

namespace wb::test {

struct ResumedSession {
  int64_t continued_at = -1;  // N of the last "Continuing at step N" line; -1 when there is none
  int64_t first_step = -1;    // the first step event after that line
  int64_t last_step = -1;
  int64_t step_events = 0;  // step events after that line
};

inline ResumedSession lastResumedSession(const std::string& metrics_jsonl) {
  ResumedSession session;
  std::ifstream in(metrics_jsonl);
  const std::string marker = "ontinuing at step ";  // "Continuing at ..." or "...; continuing at ..."
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object()) continue;
    const std::string event = j.value("event", "");
    if (event == "log") {
      const std::string text = j.value("text", "");
      const auto at = text.find(marker);
      if (at != std::string::npos) {
        session = ResumedSession{};
        session.continued_at = std::stoll(text.substr(at + marker.size()));
      }
    } else if (event == "step" && session.continued_at >= 0) {
      const int64_t step = j.value("step", int64_t{-1});
      if (session.first_step < 0) session.first_step = step;
      session.last_step = step;
      ++session.step_events;
    }
  }
  return session;
}

}  // namespace wb::test
