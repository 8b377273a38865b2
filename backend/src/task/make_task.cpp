#include "task/make_task.h"

#include "task/classification_task.h"

namespace wb {

std::shared_ptr<const Task> makeTask(const Experiment& /*experiment*/) {
  return std::make_shared<ClassificationTask>();
}

}  // namespace wb
