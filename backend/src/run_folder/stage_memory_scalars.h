#pragma once
// A pipeline's memory per stage device as TensorBoard scalars (train.pipeline: one rank, its stages on
// several devices; StepMetrics::devices with their stages): memory/<device>/cuda_allocated_mib, ..._reserved_
// and ..._peak_, beside the run's own memory/cuda_* (the first stage's device). CPU stages share the
// process's memory/cpu_rss_mib and add nothing; a data-parallel rank's entry adds nothing either.

#include <string>
#include <utility>
#include <vector>

#include "workbench/events.h"

namespace wb {

void appendStageMemoryScalars(std::vector<std::pair<std::string, double>>& scalars, const StepMetrics& m);

}  // namespace wb
