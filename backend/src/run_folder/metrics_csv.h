#pragma once
// metrics.csv beside metrics.jsonl: one row per step window and per epoch, one fixed header, empty cells for
// what a row does not have — for spreadsheets, pandas.read_csv and plotting tools.

#include <string>

#include "workbench/events.h"

namespace wb {

const std::string& metricsCsvHeader();
// The row for a step or epoch event; empty for other events.
std::string metricsCsvRow(const Event& event);

}  // namespace wb
