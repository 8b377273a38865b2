#include "task/make_task.h"

#include <stdexcept>

#include "task/classification_task.h"

namespace wb {

std::shared_ptr<const Task> makeTask(const Experiment& experiment) {
  switch (experiment.task) {
    case TaskKind::Classification:
      return std::make_shared<ClassificationTask>();
  }
  throw std::logic_error("makeTask: a task without its part");
}

}  // namespace wb
