#pragma once
// metrics.csv beside metrics.jsonl: one row per step window and per epoch, one fixed header, empty cells for
// what a row does not have — for spreadsheets, pandas.read_csv and plotting tools. An epoch's columns are its
// loss and its task's figures (taskFigureSpecs), train then val: classification's file is
// ...,train_loss,train_accuracy,val_loss,val_accuracy,epoch_s.

#include <string>
#include <vector>

#include "workbench/events.h"

namespace wb {

// The names of a task's figures, the columns metrics.csv gives them.
std::vector<std::string> metricsCsvFigures(TaskKind task);
std::string metricsCsvHeader(const std::vector<std::string>& figures);
// The row for a step or epoch event, under the header of `figures`; empty for other events.
std::string metricsCsvRow(const Event& event, const std::vector<std::string>& figures);

}  // namespace wb
