#pragma once
// Shows a run's events on a terminal: a progress bar redrawn in place on a TTY, plain lines otherwise
// (at most one step line every few seconds, every epoch, every log line).

#include <chrono>
#include <cstdio>
#include <string>

#include "workbench/events.h"

namespace wb::cli {

class ProgressPrinter {
 public:
  // epochs 0: unknown (compression passes each train their own), shown as "epoch N" alone.
  ProgressPrinter(std::FILE* out, bool interactive, int64_t epochs);
  void print(const EventBatch& batch);
  void finish();  // ends a bar line in progress

 private:
  void printStep(const StepMetrics& m);
  void printEpoch(const EpochMetrics& m);
  void clearBar();
  std::string epochText(int64_t epoch) const;

  std::FILE* m_out;
  bool m_interactive;
  int64_t m_epochs;
  bool m_bar_shown = false;
  std::chrono::steady_clock::time_point m_last_plain;
};

std::string formatDuration(double seconds);

}  // namespace wb::cli
