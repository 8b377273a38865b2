#include "util/cuda_graph.h"

#include <stdexcept>

#ifdef WB_WITH_CUDA
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace wb {

#ifdef WB_WITH_CUDA

struct CudaGraph::Impl {
  explicit Impl(int device_index)
      : device(static_cast<c10::DeviceIndex>(device_index)),
        stream(c10::cuda::getStreamFromPool(/*isHighPriority=*/false, device)) {}

  // Orders `stream` after the current stream, runs `work` with it current, and the current stream after it.
  template <typename Work>
  void onStream(Work&& work) {
    c10::cuda::CUDAGuard device_guard(device);
    const c10::cuda::CUDAStream current = c10::cuda::getCurrentCUDAStream(device);
    at::cuda::CUDAEvent ready;
    ready.record(current);
    ready.block(stream);
    {
      c10::cuda::CUDAStreamGuard stream_guard(stream);
      work();
    }
    at::cuda::CUDAEvent done;
    done.record(stream);
    done.block(current);
  }

  c10::DeviceIndex device;
  c10::cuda::CUDAStream stream;
  at::cuda::CUDAGraph graph;
  bool captured = false;
};

bool CudaGraph::available() {
  return true;
}

CudaGraph::CudaGraph(int device_index) : m_impl(std::make_unique<Impl>(device_index)) {}

CudaGraph::~CudaGraph() = default;

void CudaGraph::runOnSideStream(const std::function<void()>& work) {
  m_impl->onStream(work);
}

void CudaGraph::capture(const std::function<void()>& work) {
  if (m_impl->captured) throw std::logic_error("CudaGraph: captured already");
  m_impl->onStream([&] {
    m_impl->graph.capture_begin({0, 0}, cudaStreamCaptureModeThreadLocal);
    try {
      work();
    } catch (...) {
      // End the capture so the stream is usable again; the half-recorded graph is dropped with the error.
      try {
        m_impl->graph.capture_end();
      } catch (...) {
      }
      m_impl->graph.reset();
      throw;
    }
    m_impl->graph.capture_end();
  });
  m_impl->captured = true;
}

bool CudaGraph::captured() const {
  return m_impl->captured;
}

void CudaGraph::replay() {
  c10::cuda::CUDAGuard device_guard(m_impl->device);
  m_impl->graph.replay();
}

#else

struct CudaGraph::Impl {};

bool CudaGraph::available() {
  return false;
}

CudaGraph::CudaGraph(int) {
  throw std::logic_error("CudaGraph: this build of LibTorch has no CUDA");
}

CudaGraph::~CudaGraph() = default;

void CudaGraph::runOnSideStream(const std::function<void()>&) {}

void CudaGraph::capture(const std::function<void()>&) {}

bool CudaGraph::captured() const {
  return false;
}

void CudaGraph::replay() {}

#endif

}  // namespace wb
