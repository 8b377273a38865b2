#pragma once
// A rank's GPU figures for a metrics window (system/gpu_sampler.h), and the same figures as columns of the
// rank's row in the window's one gather, so that rank 0 reports every rank's GPU. Why one rank's GPU was
// not sampled travels as words only on its own rank: the others are told "not sampled on rank k".

#include <torch/torch.h>

#include <vector>

#include "system/gpu_sampler.h"
#include "workbench/gpu_figures.h"

namespace wb {

// This rank's GPU over the window: "CPU run" on the CPU, the sampler's figures (or its reason) on CUDA.
GpuFigures windowGpuFigures(GpuSampler* sampler, const torch::Device& device);

constexpr int64_t kGpuColumns = 10;
// The figures as kGpuColumns values of the window's row (`options`: its dtype float64 and device).
torch::Tensor gpuColumns(const GpuFigures& figures, const torch::TensorOptions& options);
// Rank `rank`'s figures back from its gathered columns (`columns` points at the first).
GpuFigures gpuFiguresFromColumns(const double* columns, int64_t rank, bool cpu_rank);

}  // namespace wb
