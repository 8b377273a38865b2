// makeSplitReporter (evaluation/split_reporter.h): one case per TaskKind, with no default, so a new task that
// has no reporter yet is a compiler warning here (-Wswitch) rather than a report of the wrong kind.
#include <stdexcept>

#include "evaluation/classification_split_reporter.h"

namespace wb {

std::unique_ptr<SplitReporter> makeSplitReporter(TaskKind task) {
  switch (task) {
    case TaskKind::Classification:
      return std::make_unique<ClassificationSplitReporter>();
  }
  throw std::logic_error("no detailed evaluation for the task \"" + wordString(task) + "\"");
}

}  // namespace wb
