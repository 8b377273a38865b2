// queryBuildFeatures and describeBuildFeatures (workbench/build_features.h): each feature asked of the room
// that compiles it.
#include "workbench/build_features.h"

#include "distributed/collective_backends.h"
#include "profiling/step_profiler.h"
#include "util/cuda_build.h"

namespace wb {

BuildFeatures queryBuildFeatures() {
  BuildFeatures f;
  f.cuda = cudaCompiled();
  f.nccl = ncclAvailable();
  f.gloo = glooAvailable();
  f.kineto = kinetoTracesAvailable();
  return f;
}

std::string describeBuildFeatures(const BuildFeatures& f) {
  const auto yes = [](bool on) { return std::string(on ? "yes" : "no"); };
  return "This build: CUDA " + yes(f.cuda) + (f.cuda ? "" : " (a CPU LibTorch: no GPU can train)") +
         ", NCCL " + yes(f.nccl) + (f.nccl || !f.cuda ? "" : " (several GPUs cannot train together)") +
         ", Gloo " + yes(f.gloo) + (f.gloo ? "" : " (CPU ranks cannot train)") + ", Kineto " + yes(f.kineto) +
         (f.kineto ? " (profiles are Kineto's traces, with CUDA kernels)"
                   : " (profiles hold the CPU operators, in a trace the workbench writes)");
}

}  // namespace wb
