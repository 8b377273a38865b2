#include "util/fast_paths.h"

#include <sstream>

#include "torch_compat.h"

namespace wb {

std::string applyCudaBackendSwitches(const TrainConfig& train) {
  auto& context = at::globalContext();
  context.setBenchmarkCuDNN(train.cudnn_benchmark);
  // torch.backends.cuda.matmul.allow_tf32 and torch.backends.cudnn.allow_tf32 together.
  context.setAllowTF32CuBLAS(train.tf32);
  context.setAllowTF32CuDNN(train.tf32);
  std::ostringstream out;
  out << "CUDA switches: cuDNN benchmark " << (train.cudnn_benchmark ? "on" : "off") << ", TF32 "
      << (train.tf32 ? "on" : "off") << ", pinned memory " << (train.pinned_memory ? "on" : "off")
      << ", channels_last " << (train.channels_last ? "on" : "off");
  return out.str();
}

bool useChannelsLast(const TrainConfig& train, const std::vector<int64_t>& sample_shape) {
  return train.channels_last && sample_shape.size() == 3;
}

void convertToChannelsLast(const std::vector<torch::Tensor>& tensors) {
  torch::NoGradGuard no_grad;
  for (const auto& t : tensors) {
    if (t.defined() && t.dim() == 4) {
      torch::Tensor mutable_t = t;
      mutable_t.set_data(t.data().contiguous(torch::MemoryFormat::ChannelsLast));
    }
  }
}

DataPlacement chooseDataPlacement(const TrainConfig& train, const torch::Device& device,
                                  int64_t dataset_bytes) {
  DataPlacement p;
  const double mib = static_cast<double>(dataset_bytes) / (1024.0 * 1024.0);
  std::ostringstream reason;
  reason.precision(3);
  if (!device.is_cuda()) {
    p.reason = "training data in host memory (the device is the CPU)";
    return p;
  }
  if (train.data_on_device == AutoSwitch::Off) {
    p.reason = "training data in host memory (train.data_on_device off)";
    return p;
  }
  if (train.data_on_device == AutoSwitch::On) {
    p.on_device = true;
    reason << "training data on " << device.str() << " (" << mib << " MiB, train.data_on_device on)";
    p.reason = reason.str();
    return p;
  }
  const int64_t memory = compat::cudaDeviceMemory(device.index() < 0 ? 0 : device.index());
  p.on_device = memory > 0 && dataset_bytes <= memory / 4;
  reason << "training data " << (p.on_device ? "on " + device.str() : std::string("in host memory")) << " ("
         << mib << " MiB; train.data_on_device auto: on when at most a quarter of the device's "
         << static_cast<double>(memory) / (1024.0 * 1024.0 * 1024.0) << " GiB)";
  p.reason = reason.str();
  return p;
}

}  // namespace wb
