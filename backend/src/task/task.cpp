#include "task/task.h"

namespace wb {

double figureNamed(const std::vector<TaskFigure>& figures, const std::string& name, double otherwise) {
  for (const TaskFigure& f : figures) {
    if (f.name == name) return f.value;
  }
  return otherwise;
}

}  // namespace wb
