#include "data/image_batch.h"

#include "data/recycled_batch_memory.h"

#include <cstring>
#include <stdexcept>
#include <utility>

namespace wb {

torch::Tensor collateImages(const std::vector<DecodedImage>& images, bool pinned) {
  if (images.empty()) throw std::invalid_argument("collateImages: no images");
  const DecodedImage& first = images.front();
  const int64_t n = static_cast<int64_t>(images.size());
  // HWC rows copied once into a batch, then made CHW by one permute-copy for the whole batch.
  torch::Tensor hwc = torch::empty({n, first.height, first.width, first.channels},
                                   torch::TensorOptions().dtype(torch::kUInt8));
  const size_t bytes = first.pixels.size();
  for (int64_t i = 0; i < n; ++i) {
    const DecodedImage& image = images[i];
    if (image.height != first.height || image.width != first.width || image.channels != first.channels ||
        image.pixels.size() != bytes) {
      throw std::invalid_argument("collateImages: images of different sizes in one batch");
    }
    std::memcpy(hwc.data_ptr<uint8_t>() + i * static_cast<int64_t>(bytes), image.pixels.data(), bytes);
  }
  torch::Tensor chw = torch::empty({n, first.channels, first.height, first.width},
                                   torch::TensorOptions().dtype(torch::kUInt8).pinned_memory(pinned));
  chw.copy_(hwc.permute({0, 3, 1, 2}));
  return chw;
}

namespace {

// Mean and std as [1, C, 1, 1] float32 on `device`.
std::pair<torch::Tensor, torch::Tensor> channelStatistics(const std::vector<double>& mean, const std::vector<double>& std,
                                                          int64_t channels, const torch::Device& device) {
  if (static_cast<int64_t>(mean.size()) != channels || static_cast<int64_t>(std.size()) != channels) {
    throw std::invalid_argument("normalizeImageBatch: one mean and one std per channel");
  }
  const auto options = torch::TensorOptions().dtype(torch::kFloat32).device(device);
  return {torch::tensor(std::vector<float>(mean.begin(), mean.end()), options).view({1, channels, 1, 1}),
          torch::tensor(std::vector<float>(std.begin(), std.end()), options).view({1, channels, 1, 1})};
}

}  // namespace

torch::Tensor collateNormalized(const std::vector<DecodedImage>& images, const std::vector<double>& mean,
                                const std::vector<double>& std, bool pinned, RecycledBatchMemory* memory) {
  if (images.empty()) throw std::invalid_argument("collateNormalized: no images");
  const DecodedImage& first = images.front();
  const int64_t channels = first.channels;
  if (static_cast<int64_t>(mean.size()) != channels || static_cast<int64_t>(std.size()) != channels) {
    throw std::invalid_argument("collateNormalized: one mean and one std per channel");
  }
  const auto n = static_cast<int64_t>(images.size());
  const int64_t plane = first.height * first.width;
  const std::vector<int64_t> sizes{n, channels, first.height, first.width};
  torch::Tensor out = memory != nullptr && !pinned
                          ? memory->emptyFloat(sizes)
                          : torch::empty(sizes, torch::TensorOptions().dtype(torch::kFloat32).pinned_memory(pinned));
  float* data = out.data_ptr<float>();
  // A byte has 256 values: each channel's 256 results computed once, with torch's operations in torch's order
  // (ToTensor's division by 255, then Normalize's subtraction and division: no contraction), then looked up.
  std::vector<float> table(static_cast<size_t>(channels) * 256);
  for (int64_t c = 0; c < channels; ++c) {
    const auto mc = static_cast<float>(mean[static_cast<size_t>(c)]);
    const auto sc = static_cast<float>(std[static_cast<size_t>(c)]);
    for (int v = 0; v < 256; ++v) table[static_cast<size_t>(c * 256 + v)] = (static_cast<float>(v) / 255.0f - mc) / sc;
  }
  for (int64_t i = 0; i < n; ++i) {
    const DecodedImage& image = images[static_cast<size_t>(i)];
    if (image.height != first.height || image.width != first.width || image.channels != first.channels) {
      throw std::invalid_argument("collateNormalized: images of different sizes in one batch");
    }
    const uint8_t* pixels = image.pixels.data();
    float* dst = data + i * channels * plane;
    if (channels == 3) {
      // One pass along the interleaved pixels, three planes written side by side.
      const float* lookup = table.data();
      float* red = dst;
      float* green = dst + plane;
      float* blue = dst + 2 * plane;
      for (int64_t p = 0; p < plane; ++p) {
        red[p] = lookup[pixels[3 * p]];
        green[p] = lookup[256 + pixels[3 * p + 1]];
        blue[p] = lookup[512 + pixels[3 * p + 2]];
      }
      continue;
    }
    for (int64_t c = 0; c < channels; ++c) {
      const float* lookup = &table[static_cast<size_t>(c * 256)];
      for (int64_t p = 0; p < plane; ++p) dst[c * plane + p] = lookup[pixels[p * channels + c]];
    }
  }
  return out;
}

torch::Tensor normalizeScaledBatch(torch::Tensor pixels, const std::vector<double>& mean,
                                   const std::vector<double>& std) {
  const auto [m, s] = channelStatistics(mean, std, pixels.size(1), pixels.device());
  return pixels.div_(255).sub_(m).div_(s);
}

torch::Tensor normalizeImageBatch(const torch::Tensor& uint8_batch, const std::vector<double>& mean,
                                  const std::vector<double>& std, bool pinned) {
  const auto [m, s] = channelStatistics(mean, std, uint8_batch.size(1), uint8_batch.device());
  const auto options = torch::TensorOptions().dtype(torch::kFloat32).device(uint8_batch.device());
  // torchvision: ToTensor's img.float().div(255), then Normalize's tensor.sub(mean).div(std).
  // The same operations in place on a float copy (page-locked when asked, the form the copy to a GPU wants).
  torch::Tensor x = torch::empty(uint8_batch.sizes(), options.pinned_memory(pinned && uint8_batch.is_cpu()));
  x.copy_(uint8_batch);
  return x.div_(255).sub_(m).div_(s);
}

}  // namespace wb
