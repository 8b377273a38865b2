#include "util/cuda_graph.h"

#include <stdexcept>

#ifdef WB_WITH_CUDA
#include <ATen/core/CachingHostAllocator.h>
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

#include "torch_compat.h"

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

  // A capture that failed: ended so the stream is usable again, the half-recorded graph dropped, and its
  // pools given back to the allocators. `capture_open`: capture_end has not been tried (the work threw).
  template <typename Pool>
  void abandonCapture(const Pool& pool, bool capture_open) {
    if (capture_open) {
      try {
        graph.capture_end();
        graph.reset();  // ended: the graph itself gives its pools back
        return;
      } catch (...) {
      }
    }
#if WB_TORCH_AT_LEAST(2, 6)
    try {
      c10::cuda::CUDACachingAllocator::endAllocateToPool(device, pool);
    } catch (...) {
      // capture_end got past it (it failed later, instantiating): the graph counts as ended and its reset()
      // gives the pools back; releasing them here too would release them twice.
      graph.reset();
      return;
    }
    try {
      c10::cuda::CUDACachingAllocator::releasePool(device, pool);
    } catch (...) {
    }
#if WB_TORCH_AT_LEAST(2, 11)
    // 2.11's capture_begin records pinned host allocations into the same pool id too.
    try {
      at::HostAllocator* host = at::getHostAllocator(at::kCUDA);
      host->end_allocate_to_pool(pool);
      host->release_pool(pool);
    } catch (...) {
    }
#endif
#else
    (void)pool;
    graph.reset();
#endif
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
  // The memory pool's id is ours (what capture_begin would make itself): when a capture fails, LibTorch's
  // capture_end throws cudaStreamEndCapture's error before it tells the caching allocator the capture is
  // over, and the allocator would then count this process as capturing for good — blocks freed on other
  // streams parked and never reused, a capture check on every allocation. The pool is then ended and released
  // here.
  const auto pool = at::cuda::graph_pool_handle();
  m_impl->onStream([&] {
    m_impl->graph.capture_begin(pool, cudaStreamCaptureModeThreadLocal);
    bool capture_open = true;
    try {
      work();
      capture_open = false;
      m_impl->graph.capture_end();
    } catch (...) {
      m_impl->abandonCapture(pool, capture_open);
      throw;
    }
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
