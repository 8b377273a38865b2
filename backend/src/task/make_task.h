#pragma once
// The task an experiment trains (task/task.h), chosen by its "task" key. Every experiment classifies today
// (an image folder, a dataset of images, a table's rows); the next kinds of work add their task here.

#include <memory>

#include "task/task.h"
#include "workbench/experiment.h"

namespace wb {

std::shared_ptr<const Task> makeTask(const Experiment& experiment);

}  // namespace wb
