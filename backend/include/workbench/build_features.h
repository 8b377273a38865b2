#pragma once
// What this build of the engine has, whatever the machine it runs on: CUDA compiled in; c10d's backends for
// several ranks, NCCL (GPUs) and Gloo (CPUs); Kineto in its LibTorch (then a profile is Kineto's own trace,
// CUDA kernels included; without it, the workbench writes the trace of the CPU operators itself). For
// `workbench-cli info`, beside the devices this machine has and what NVML says (nvml_inventory.h).

#include <string>

namespace wb {

struct BuildFeatures {
  bool cuda = false;
  bool nccl = false;
  bool gloo = false;
  bool kineto = false;
};

// Kineto is asked of LibTorch by recording one small operator (milliseconds): call it while no profile is
// being recorded in this process (a recording in progress reads as Kineto present).
BuildFeatures queryBuildFeatures();

// "This build: CUDA yes, NCCL yes, Gloo no (CPU ranks cannot train), Kineto yes (profiles include CUDA
// kernels)".
std::string describeBuildFeatures(const BuildFeatures& features);

}  // namespace wb
