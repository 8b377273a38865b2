#pragma once
// A CUDA graph of the work a function issues on the calling thread: captured once, replayed as one launch
// (at::cuda::CUDAGraph, what torch.cuda.graph wraps). Plain C++ here: the CUDA headers exist only in CUDA
// builds of LibTorch, so the definitions live in cuda_graph.cpp behind WB_WITH_CUDA; without them
// available() is false and the rest throws.

#include <functional>
#include <memory>

namespace wb {

class CudaGraph {
 public:
  // Whether this build can capture graphs (a CUDA build of LibTorch).
  static bool available();

  explicit CudaGraph(int device_index);
  ~CudaGraph();
  CudaGraph(const CudaGraph&) = delete;
  CudaGraph& operator=(const CudaGraph&) = delete;

  // Runs `work` on the graph's own stream, after the current stream's work and before what follows on it:
  // the warm-up steps, so that lazy allocations, cuDNN's autotuning and cuBLAS's workspaces are made there,
  // outside the capture, on the stream the capture will use.
  void runOnSideStream(const std::function<void()>& work);

  // Records what `work` issues, on the graph's stream, without running it (replay() runs it). Thread-local
  // capture mode: the loader's threads may go on copying batches meanwhile. The default CUDA generator is
  // registered by LibTorch, so dropout draws new masks at each replay.
  void capture(const std::function<void()>& work);
  bool captured() const;

  // Runs the captured work on the current stream.
  void replay();

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace wb
