#pragma once
// A GPU's figures (workbench/gpu_figures.h) in the step events of metrics.jsonl: {"not_sampled": why} when
// there are none, else the figures, each left out while unknown (-1), so an unknown figure reads back as
// unknown and never as zero.

#include <nlohmann/json.hpp>

#include "workbench/gpu_figures.h"

namespace wb {

nlohmann::json gpuFiguresToJson(const GpuFigures& figures);
// A step line without "gpu" (written before the sampler existed) reads as not sampled.
GpuFigures gpuFiguresFromJson(const nlohmann::json& step);

}  // namespace wb
