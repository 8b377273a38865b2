#include "pipeline/stage_stream.h"

#include <optional>

#ifdef WB_WITH_CUDA
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

#include "workbench/errors.h"

namespace wb {
namespace {

#ifdef WB_WITH_CUDA
class CudaStageStream final : public StageStream {
 public:
  explicit CudaStageStream(const torch::Device& device)
      : m_index(device.has_index() ? device.index() : 0),
        m_stream(c10::cuda::getStreamFromPool(/*isHighPriority=*/false, m_index)) {}

  void enter() override {
    at::cuda::CUDAEvent queued;
    queued.record(c10::cuda::getCurrentCUDAStream(m_index));
    queued.block(m_stream);
    m_guard.emplace(m_stream);
  }

  void leave() override {
    at::cuda::CUDAEvent done;
    done.record(m_stream);
    m_guard.reset();
    done.block(c10::cuda::getCurrentCUDAStream(m_index));
  }

  std::shared_ptr<void> handOff() override {
    auto ready = std::make_shared<at::cuda::CUDAEvent>();
    ready->record(m_stream);
    return ready;
  }

  void receive(const torch::Tensor& tensor, const std::shared_ptr<void>& ready) override {
    auto* ready_event = static_cast<at::cuda::CUDAEvent*>(ready.get());
    if (ready_event) ready_event->block(m_stream);
    if (!tensor.defined() || !tensor.is_cuda()) return;
    // The sender's stream allocated the tensor, and the sender drops it as soon as it is sent (a backward
    // hand-off: the input's gradient dies when backward returns). The caching allocator would then give its
    // memory to the sender's next micro-batch while the read queued here has not run. Recording the stream
    // that reads it keeps the block until that stream's queued work is done, as torch's record_stream does.
    // The reader is this stage's stream on its own device; a copy from another GPU runs on the source
    // device's current stream (ATen's Copy.cu copies on the source device, after a barrier with this one).
    const c10::DeviceIndex source = tensor.device().index();
    const c10::cuda::CUDAStream reader =
        source == m_index ? m_stream : c10::cuda::getCurrentCUDAStream(source);
    // Between GPUs without peer access, a tensor that is not dense is first made contiguous on the source
    // device's current stream (Copy.cu, copy_requires_temporaries), before any barrier with this stage's:
    // that stream waits for the sender's work too.
    if (ready_event && source != m_index) ready_event->block(reader);
    c10::cuda::CUDACachingAllocator::recordStream(tensor.storage().data_ptr(), reader);
  }

 private:
  c10::DeviceIndex m_index;
  c10::cuda::CUDAStream m_stream;
  std::optional<c10::cuda::CUDAStreamGuard> m_guard;
};

// A CPU stage beside CUDA stages: what a CUDA stage hands it was made on that stage's own stream, which the
// copy to the CPU (on the device's default stream) would not wait for, so the host waits for it first. What
// it hands a CUDA stage is ready when its call returns.
class CpuStageStream final : public StageStream {
 public:
  void receive(const torch::Tensor& tensor, const std::shared_ptr<void>& ready) override {
    if (ready && tensor.defined() && tensor.is_cuda())
      static_cast<at::cuda::CUDAEvent*>(ready.get())->synchronize();
  }
};
#endif

}  // namespace

std::unique_ptr<StageStream> makeStageStream(const torch::Device& device) {
#ifdef WB_WITH_CUDA
  if (!device.is_cuda()) return std::make_unique<CpuStageStream>();
  return std::make_unique<CudaStageStream>(device);
#else
  if (!device.is_cuda()) return std::make_unique<StageStream>();
  throw UserError("train.pipeline: a stage on " + device.str() + " needs a build with CUDA",
                  "put the stages on \"cpu\", or use a CUDA build of the workbench");
#endif
}

}  // namespace wb
