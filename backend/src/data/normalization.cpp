#include "data/normalization.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace wb {

namespace {

// About 32 MB of float64 per chunk.
constexpr int64_t kChunkElements = int64_t{1} << 22;

int64_t chunkRows(const torch::Tensor& inputs) {
  const int64_t per_row = std::max<int64_t>(1, inputs.numel() / std::max<int64_t>(1, inputs.size(0)));
  return std::max<int64_t>(1, kChunkElements / per_row);
}

double pixelScale(const torch::Tensor& inputs) {
  return inputs.scalar_type() == torch::kUInt8 ? 1.0 / 255.0 : 1.0;
}

// Every dimension but the channel/feature dimension (1).
std::vector<int64_t> reducedDims(const torch::Tensor& inputs) {
  std::vector<int64_t> dims = {0};
  for (int64_t d = 2; d < inputs.dim(); ++d) dims.push_back(d);
  return dims;
}

// Shape that broadcasts a per-channel vector against a chunk: {1, C, 1, 1} or {1, F}.
std::vector<int64_t> channelShape(const torch::Tensor& inputs) {
  std::vector<int64_t> shape(inputs.dim(), 1);
  shape[1] = inputs.size(1);
  return shape;
}

template <typename Fn>
void forEachChunk(const torch::Tensor& inputs, const torch::Tensor& rows, Fn&& fn) {
  const int64_t total = rows.size(0);
  const int64_t step = chunkRows(inputs);
  for (int64_t start = 0; start < total; start += step) {
    const int64_t count = std::min(step, total - start);
    fn(start, inputs.index_select(0, rows.narrow(0, start, count)));
  }
}

}  // namespace

Normalization computeNormalization(const torch::Tensor& inputs, const torch::Tensor& rows) {
  TORCH_CHECK(inputs.dim() >= 2, "computeNormalization: expected [N, C, ...] inputs");
  TORCH_CHECK(rows.size(0) > 0, "computeNormalization: no rows to measure");
  const double scale = pixelScale(inputs);
  const std::vector<int64_t> dims = reducedDims(inputs);
  const double count = static_cast<double>(rows.size(0)) *
                       static_cast<double>(inputs.numel() / inputs.size(0)) /
                       static_cast<double>(inputs.size(1));

  // Two passes (mean, then squared deviations) in float64: the one-pass E[x²] - E[x]² loses the variance of
  // features whose mean is large next to their spread.
  torch::Tensor sum = torch::zeros({inputs.size(1)}, torch::kFloat64);
  forEachChunk(inputs, rows,
               [&](int64_t, const torch::Tensor& chunk) { sum += chunk.to(torch::kFloat64).sum(dims); });
  const torch::Tensor mean = sum / count * scale;

  const torch::Tensor mean_view = mean.view(channelShape(inputs));
  torch::Tensor squares = torch::zeros({inputs.size(1)}, torch::kFloat64);
  forEachChunk(inputs, rows, [&](int64_t, const torch::Tensor& chunk) {
    squares += (chunk.to(torch::kFloat64).mul_(scale) - mean_view).square_().sum(dims);
  });
  const torch::Tensor std = (squares / count).sqrt_();

  Normalization norm;
  const auto* mean_data = mean.data_ptr<double>();
  const auto* std_data = std.data_ptr<double>();
  for (int64_t c = 0; c < inputs.size(1); ++c) {
    norm.mean.push_back(mean_data[c]);
    norm.std.push_back(std_data[c] > 0.0 && std::isfinite(std_data[c]) ? std_data[c] : 1.0);
  }
  return norm;
}

torch::Tensor normalizeRows(const torch::Tensor& inputs, const torch::Tensor& rows,
                            const Normalization& norm) {
  TORCH_CHECK(static_cast<int64_t>(norm.mean.size()) == inputs.size(1) &&
                  static_cast<int64_t>(norm.std.size()) == inputs.size(1),
              "normalizeRows: statistics for ", norm.mean.size(), " channels, data has ", inputs.size(1));
  const double pixel_scale = pixelScale(inputs);
  // (x * s - mean) / std as one multiply and one subtract: x * (s / std) - mean / std.
  std::vector<double> multiplier, offset;
  for (size_t c = 0; c < norm.mean.size(); ++c) {
    multiplier.push_back(pixel_scale / norm.std[c]);
    offset.push_back(norm.mean[c] / norm.std[c]);
  }
  const auto shape = channelShape(inputs);
  const torch::Tensor multiplier_view =
      torch::tensor(multiplier, torch::kFloat64).to(torch::kFloat32).view(shape);
  const torch::Tensor offset_view = torch::tensor(offset, torch::kFloat64).to(torch::kFloat32).view(shape);

  std::vector<int64_t> out_shape = inputs.sizes().vec();
  out_shape[0] = rows.size(0);
  torch::Tensor out = torch::empty(out_shape, torch::kFloat32);
  forEachChunk(inputs, rows, [&](int64_t start, const torch::Tensor& chunk) {
    torch::Tensor target = out.narrow(0, start, chunk.size(0));
    target.copy_(chunk);
    target.mul_(multiplier_view).sub_(offset_view);
  });
  return out;
}

}  // namespace wb
