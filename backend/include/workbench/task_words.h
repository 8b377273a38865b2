#pragma once
// What a run learns (the experiment's "task" key) and the figures it reports, in plain words: what the CLI
// and the window need to show a task's figures without Torch. The task itself (its loss and the sums its
// figures are made of) is the engine's: backend/src/task/. A new kind of work is one enumerator and one row
// below, one entry in taskFigureSpecs (backend/src/events/task_figures.cpp) and a Task beside
// ClassificationTask.

#include <array>
#include <string>
#include <vector>

#include "workbench/word_set.h"

namespace wb {

enum class TaskKind { Classification };
template <>
struct Words<TaskKind> {
  static constexpr std::array<Word<TaskKind>, 1> table{{{TaskKind::Classification, "classification"}}};
};
static_assert(isWholeWordTable<TaskKind>());

// One figure of a task over some samples: "accuracy" 0.91.
struct TaskFigure {
  std::string name;
  double value = 0;
};

// How a figure reads: its name in events and files ("accuracy": "train_accuracy", "accuracy/val"), its title
// on a chart ("Accuracy"), its short name in a terminal's columns ("acc"), which way is better, and whether
// it is a share of the samples (shown in percent).
struct FigureSpec {
  std::string name;
  std::string title;
  std::string short_name;
  bool higher_is_better = true;
  bool share = false;
};

// The figures a task reports, its headline figure first (the one a chart draws and a run is judged by).
const std::vector<FigureSpec>& taskFigureSpecs(TaskKind task);

// The spec of the figure called `name` among every task's; a figure no task names (a file of a later version)
// reads as itself: its name for title and short name, higher better, not a share.
FigureSpec figureSpecNamed(const std::string& name);

// The value of the figure called `name` among `figures`, or `otherwise`.
double figureNamed(const std::vector<TaskFigure>& figures, const std::string& name, double otherwise);

}  // namespace wb
