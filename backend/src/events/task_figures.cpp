// The figures of each task in words (workbench/task_words.h). They sit with the events that carry them, not
// with the task's Torch code in task/: the window and the CLI, which link no Torch, name and draw them.
#include "workbench/task_words.h"

namespace wb {

const std::vector<FigureSpec>& taskFigureSpecs(TaskKind task) {
  static const std::vector<FigureSpec> classification = {
      {"accuracy", "Accuracy", "acc", /*higher_is_better=*/true, /*share=*/true}};
  switch (task) {
    case TaskKind::Classification:
      return classification;
  }
  return classification;
}

FigureSpec figureSpecNamed(const std::string& name) {
  for (const Word<TaskKind>& task : Words<TaskKind>::table) {
    for (const FigureSpec& spec : taskFigureSpecs(task.value)) {
      if (spec.name == name) return spec;
    }
  }
  return {name, name, name, /*higher_is_better=*/true, /*share=*/false};
}

double figureNamed(const std::vector<TaskFigure>& figures, const std::string& name, double otherwise) {
  for (const TaskFigure& f : figures) {
    if (f.name == name) return f.value;
  }
  return otherwise;
}

}  // namespace wb
