#include "data/image_batch.h"

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "data/recycled_batch_memory.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace wb {

namespace {

// Mean and std as [1, C, 1, 1] float32 on `device`.
std::pair<torch::Tensor, torch::Tensor> channelStatistics(const std::vector<double>& mean,
                                                          const std::vector<double>& std, int64_t channels,
                                                          const torch::Device& device) {
  if (static_cast<int64_t>(mean.size()) != channels || static_cast<int64_t>(std.size()) != channels) {
    throw std::invalid_argument("normalizeImageBatch: one mean and one std per channel");
  }
  const auto options = torch::TensorOptions().dtype(torch::kFloat32).device(device);
  return {torch::tensor(std::vector<float>(mean.begin(), mean.end()), options).view({1, channels, 1, 1}),
          torch::tensor(std::vector<float>(std.begin(), std.end()), options).view({1, channels, 1, 1})};
}

}  // namespace

ImageBatchWriter::ImageBatchWriter(int64_t images, Form form, std::vector<double> mean,
                                   std::vector<double> std, bool pinned, RecycledBatchMemory* memory)
    : m_images(images),
      m_form(form),
      m_mean(std::move(mean)),
      m_std(std::move(std)),
      m_pinned(pinned),
      m_memory(memory) {
  if (images <= 0) throw std::invalid_argument("ImageBatchWriter: no images");
}

void ImageBatchWriter::start(const DecodedImage& first) {
  m_height = first.height;
  m_width = first.width;
  m_channels = first.channels;
  const std::vector<int64_t> sizes{m_images, m_channels, m_height, m_width};
  if (m_form == Form::Uint8) {
    m_batch = torch::empty(sizes, torch::TensorOptions().dtype(torch::kUInt8).pinned_memory(m_pinned));
    return;
  }
  if (static_cast<int64_t>(m_mean.size()) != m_channels || static_cast<int64_t>(m_std.size()) != m_channels) {
    throw std::invalid_argument("ImageBatchWriter: one mean and one std per channel");
  }
  m_batch = m_memory != nullptr && !m_pinned
                ? m_memory->emptyFloat(sizes)
                : torch::empty(sizes, torch::TensorOptions().dtype(torch::kFloat32).pinned_memory(m_pinned));
  // A byte has 256 values: each channel's 256 results computed once, with torch's operations in torch's order
  // (ToTensor's division by 255, then Normalize's subtraction and division: no contraction), then looked up.
  m_table.resize(static_cast<size_t>(m_channels) * 256);
  for (int64_t c = 0; c < m_channels; ++c) {
    const auto mc = static_cast<float>(m_mean[static_cast<size_t>(c)]);
    const auto sc = static_cast<float>(m_std[static_cast<size_t>(c)]);
    for (int v = 0; v < 256; ++v)
      m_table[static_cast<size_t>(c * 256 + v)] = (static_cast<float>(v) / 255.0f - mc) / sc;
  }
}

namespace {

// HWC bytes into C planes of `T`, each byte through `convert`.
template <typename T, typename Convert>
void writePlanes(const uint8_t* pixels, int64_t plane, int64_t channels, T* dst, Convert convert) {
  if (channels == 3) {
    // One pass along the interleaved pixels, three planes written side by side.
    T* red = dst;
    T* green = dst + plane;
    T* blue = dst + 2 * plane;
    for (int64_t p = 0; p < plane; ++p) {
      red[p] = convert(0, pixels[3 * p]);
      green[p] = convert(1, pixels[3 * p + 1]);
      blue[p] = convert(2, pixels[3 * p + 2]);
    }
    return;
  }
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t p = 0; p < plane; ++p) dst[c * plane + p] = convert(c, pixels[p * channels + c]);
  }
}

// The 3-channel normalized write of a large batch with streaming stores. A batch of 224 x 224 images is tens
// of MB, past the caches, so each line written would first be read from memory only to be overwritten (the
// step reads the batch from memory either way): streaming stores skip that read, half the memory traffic of
// the loader's write.
void writeNormalizedRgbStreaming(const uint8_t* pixels, int64_t plane, const float* table, float* dst) {
#if defined(__SSE2__)
  float* red = dst;
  float* green = dst + plane;
  float* blue = dst + 2 * plane;
  int64_t p = 0;
  // Up to the planes' 16-byte alignment (they share it when the plane is a multiple of 4 floats), then 4 at a
  // time.
  const bool aligned_together = plane % 4 == 0;
  while (p < plane && (!aligned_together || reinterpret_cast<uintptr_t>(red + p) % 16 != 0)) {
    red[p] = table[pixels[3 * p]];
    green[p] = table[256 + pixels[3 * p + 1]];
    blue[p] = table[512 + pixels[3 * p + 2]];
    ++p;
  }
  for (; p + 4 <= plane; p += 4) {
    const uint8_t* px = pixels + 3 * p;
    _mm_stream_ps(red + p, _mm_setr_ps(table[px[0]], table[px[3]], table[px[6]], table[px[9]]));
    _mm_stream_ps(green + p, _mm_setr_ps(table[256 + px[1]], table[256 + px[4]], table[256 + px[7]],
                                         table[256 + px[10]]));
    _mm_stream_ps(blue + p, _mm_setr_ps(table[512 + px[2]], table[512 + px[5]], table[512 + px[8]],
                                        table[512 + px[11]]));
  }
  for (; p < plane; ++p) {
    red[p] = table[pixels[3 * p]];
    green[p] = table[256 + pixels[3 * p + 1]];
    blue[p] = table[512 + pixels[3 * p + 2]];
  }
  _mm_sfence();  // the streamed lines visible to the thread that takes the batch
#else
  writePlanes(pixels, plane, 3, dst, [table](int64_t c, uint8_t v) { return table[c * 256 + v]; });
#endif
}

// Batches smaller than this stay in the caches for the step: written the ordinary way.
constexpr int64_t kStreamingBatchBytes = int64_t{8} << 20;

}  // namespace

void ImageBatchWriter::put(int64_t index, const DecodedImage& image) {
  if (index < 0 || index >= m_images) throw std::out_of_range("ImageBatchWriter: image index out of range");
  if (!m_batch.defined()) start(image);
  if (image.height != m_height || image.width != m_width || image.channels != m_channels ||
      image.pixels.size() != static_cast<size_t>(m_height * m_width * m_channels)) {
    throw std::invalid_argument("ImageBatchWriter: images of different sizes in one batch");
  }
  const int64_t plane = m_height * m_width;
  const uint8_t* pixels = image.pixels.data();
  if (m_form == Form::Uint8) {
    uint8_t* dst = m_batch.data_ptr<uint8_t>() + index * m_channels * plane;
    if (m_channels == 1) {
      std::memcpy(dst, pixels, static_cast<size_t>(plane));
    } else {
      writePlanes(pixels, plane, m_channels, dst, [](int64_t, uint8_t v) { return v; });
    }
  } else {
    const float* table = m_table.data();
    float* dst = m_batch.data_ptr<float>() + index * m_channels * plane;
    if (m_channels == 3 &&
        m_images * 3 * plane * static_cast<int64_t>(sizeof(float)) >= kStreamingBatchBytes) {
      writeNormalizedRgbStreaming(pixels, plane, table, dst);
      ++m_put;
      return;
    }
    writePlanes(pixels, plane, m_channels, m_batch.data_ptr<float>() + index * m_channels * plane,
                [table](int64_t c, uint8_t v) { return table[c * 256 + v]; });
  }
  ++m_put;
}

torch::Tensor ImageBatchWriter::take() {
  if (m_put != m_images) throw std::logic_error("ImageBatchWriter: the batch is not whole");
  m_put = 0;
  return std::exchange(m_batch, torch::Tensor());
}

torch::Tensor collateImages(const std::vector<DecodedImage>& images, bool pinned) {
  if (images.empty()) throw std::invalid_argument("collateImages: no images");
  ImageBatchWriter batch(static_cast<int64_t>(images.size()), ImageBatchWriter::Form::Uint8, {}, {}, pinned);
  for (size_t i = 0; i < images.size(); ++i) batch.put(static_cast<int64_t>(i), images[i]);
  return batch.take();
}

torch::Tensor collateNormalized(const std::vector<DecodedImage>& images, const std::vector<double>& mean,
                                const std::vector<double>& std, bool pinned, RecycledBatchMemory* memory) {
  if (images.empty()) throw std::invalid_argument("collateNormalized: no images");
  ImageBatchWriter batch(static_cast<int64_t>(images.size()), ImageBatchWriter::Form::Normalized, mean, std,
                         pinned, memory);
  for (size_t i = 0; i < images.size(); ++i) batch.put(static_cast<int64_t>(i), images[i]);
  return batch.take();
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
