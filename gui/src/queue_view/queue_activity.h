#pragma once
// What the run queue is doing, in one line for the window's status bar: the window's own run state says
// "Idle" while a worker process trains the queue, so the bar names the queue's work beside it ("Queue: trial
// 3 of 12 training (sweep lr-search)"). Pure: a test feeds it entries.

#include <QString>
#include <vector>

#include "workbench/run_queue.h"

namespace wb::gui {

// Empty when nothing trains or waits (held entries wait for the user, not the worker).
QString queueActivityText(const std::vector<QueueEntry>& entries);

}  // namespace wb::gui
