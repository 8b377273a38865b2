#include "compress/observers.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace wb {
namespace {

constexpr float kMinScale = std::numeric_limits<float>::epsilon();  // torch.finfo(torch.float32).eps

std::pair<float, float> minMaxOf(const torch::Tensor& x) {
  const torch::Tensor flat = x.detach().to(torch::kCPU, torch::kFloat32).reshape({-1});
  auto [lo, hi] = torch::aminmax(flat);
  return {lo.item<float>(), hi.item<float>()};
}

}  // namespace

QRange activationRange(bool reduce_range) {
  return reduce_range ? QRange{0, 127} : QRange{0, 255};
}

QParams affineQParams(double min_val, double max_val, QRange range) {
  const float lo = std::min(static_cast<float>(min_val), 0.0f);
  const float hi = std::max(static_cast<float>(max_val), 0.0f);
  float scale = (hi - lo) / static_cast<float>(range.quant_max - range.quant_min);
  scale = std::max(scale, kMinScale);
  int64_t zero_point = range.quant_min - static_cast<int64_t>(std::nearbyint(lo / scale));
  zero_point = std::clamp(zero_point, range.quant_min, range.quant_max);
  return {scale, zero_point};
}

// MinMax
// -----------------------------------------------------------------------------------------------------

void MinMaxObserver::observe(const torch::Tensor& x) {
  if (x.numel() == 0) return;
  const auto [lo, hi] = minMaxOf(x);
  m_min = m_seen ? std::min<double>(m_min, lo) : lo;
  m_max = m_seen ? std::max<double>(m_max, hi) : hi;
  m_seen = true;
}

QParams MinMaxObserver::qparams() const {
  if (!m_seen) return {};
  return affineQParams(m_min, m_max, m_range);
}

// Histogram
// -----------------------------------------------------------------------------------------------------

void HistogramObserver::observe(const torch::Tensor& input) {
  if (input.numel() == 0) return;
  const torch::Tensor x = input.detach().to(torch::kCPU, torch::kFloat32).reshape({-1});
  const auto [new_min, new_max] = minMaxOf(x);
  // PyTorch 1.13 passes int(min) and int(max) to histc here, which truncates the range (and for |x| < 1
  // makes histc fall back to the data's own range); later releases pass the float range, as we do.
  if (!m_seen || m_min == m_max) {
    m_min = new_min;
    m_max = new_max;
    m_hist = torch::histc(x, m_bins, new_min, new_max);
    m_seen = true;
    return;
  }
  float combined_min = std::min(new_min, m_min);
  float combined_max = std::max(new_max, m_max);
  // A common grid: the old histogram upsampled by upsample_rate, the combined range a whole multiple of it
  // (only the max is relaxed, so a one-sided distribution keeps its min at 0).
  const float hist_bin_width = (m_max - m_min) / static_cast<float>(m_bins * m_upsample);
  const int64_t downsample_rate = static_cast<int64_t>(
      std::ceil((combined_max - combined_min) / (static_cast<float>(m_bins) * hist_bin_width)));
  const float e = static_cast<float>(downsample_rate) * (static_cast<float>(m_bins) * hist_bin_width) -
                  (combined_max - combined_min);
  combined_max = combined_max + e;
  const int64_t start_idx = static_cast<int64_t>(std::nearbyint((m_min - combined_min) / hist_bin_width));

  torch::Tensor combined = torch::histc(x, m_bins, combined_min, combined_max);
  if (combined_min == m_min && combined_max == m_max) {
    combined += m_hist;
  } else {
    const torch::Tensor upsampled = m_hist.repeat_interleave(m_upsample);
    torch::Tensor wide = torch::zeros({m_bins * downsample_rate});
    wide.slice(0, start_idx, start_idx + m_bins * m_upsample).copy_(upsampled);
    // Double precision: the running sum would lose counts in float32.
    const torch::Tensor integral =
        wide.cumsum(0, torch::kFloat64).slice(0, downsample_rate - 1, c10::nullopt, downsample_rate);
    torch::Tensor shifted = torch::zeros({m_bins}, torch::kFloat64);
    shifted.slice(0, 1, m_bins).copy_(integral.slice(0, 0, m_bins - 1));
    combined = combined + ((integral - shifted) / static_cast<double>(m_upsample)).to(torch::kFloat32);
  }
  m_hist = combined;
  m_min = combined_min;
  m_max = combined_max;
}

// The L2 error of quantizing the histogram to 256 levels over bins [start_bin, end_bin]: each source bin's
// mass spread uniformly, measured against the centre of the destination bins its span falls into.
double HistogramObserver::quantizationError(int64_t start_bin, int64_t end_bin) const {
  const double bin_width =
      (static_cast<double>(m_max) - static_cast<double>(m_min)) / static_cast<double>(m_bins);
  const int64_t dst_nbins = 256;
  const double dst_bin_width_d = bin_width * static_cast<double>(end_bin - start_bin + 1) / dst_nbins;
  if (dst_bin_width_d == 0.0) return 0.0;
  const float bw = static_cast<float>(bin_width);
  const float dst = static_cast<float>(dst_bin_width_d);
  const float half = dst / 2;
  const float last = static_cast<float>(dst_nbins - 1);
  const float* hist = m_hist.data_ptr<float>();
  auto norm = [](float begin, float end, float density) {
    return density * ((end * end * end - begin * begin * begin) / 3);
  };
  const float whole = norm(-half, half, 1.0f);
  double total = 0;
  for (int64_t i = 0; i < m_bins; ++i) {
    const float src_begin = static_cast<float>(i - start_bin) * bw;
    const float src_end = src_begin + bw;
    const float dst_of_begin = std::clamp(std::floor(src_begin / dst), 0.0f, last);
    const float dst_of_end = std::clamp(std::floor(src_end / dst), 0.0f, last);
    const float density = hist[i] / bw;
    float n = norm(src_begin - (dst_of_begin + 0.5f) * dst, half, density);
    n += (dst_of_end - dst_of_begin - 1) * (density * whole);
    n += norm(-half, src_end - (dst_of_end * dst + half), density);
    total += n;
  }
  return total;
}

// PyTorch's _non_linear_param_search: walk the quantile bounds inwards in steps of 1e-5 of the mass, moving
// whichever side trims fewer bins, while the quantization error keeps falling.
std::pair<double, double> HistogramObserver::searchRange() const {
  const float* hist = m_hist.data_ptr<float>();
  std::vector<double> csum(static_cast<size_t>(m_bins));
  double total = 0;
  {
    // cumsum in float32, like torch.cumsum of a float tensor
    float running = 0;
    for (int64_t i = 0; i < m_bins; ++i) {
      running += hist[i];
      csum[static_cast<size_t>(i)] = running;
      total += hist[i];
    }
  }
  const double step = 1e-5;
  double alpha = 0.0, beta = 1.0;
  int64_t start_bin = 0, end_bin = m_bins - 1;
  double norm_min = std::numeric_limits<double>::infinity();
  while (alpha < beta) {
    const double next_alpha = alpha + step;
    const double next_beta = beta - step;
    int64_t l = start_bin, r = end_bin;
    while (l < end_bin && csum[static_cast<size_t>(l)] < next_alpha * total) ++l;
    while (r > start_bin && csum[static_cast<size_t>(r)] > next_beta * total) --r;
    int64_t next_start = start_bin, next_end = end_bin;
    if ((l - start_bin) > (end_bin - r)) {
      next_start = l;
      alpha = next_alpha;
    } else {
      next_end = r;
      beta = next_beta;
    }
    if (next_start == start_bin && next_end == end_bin) continue;
    const double norm = quantizationError(next_start, next_end);
    if (norm > norm_min) break;
    norm_min = norm;
    start_bin = next_start;
    end_bin = next_end;
  }
  const float bin_width = (m_max - m_min) / static_cast<float>(m_bins);
  return {m_min + bin_width * static_cast<float>(start_bin),
          m_min + bin_width * static_cast<float>(end_bin + 1)};
}

std::pair<double, double> HistogramObserver::range() const {
  if (!m_seen) return {0, 0};
  return searchRange();
}

QParams HistogramObserver::qparams() const {
  if (!m_seen) return {};
  const auto [lo, hi] = searchRange();
  return affineQParams(lo, hi, m_range);
}

std::unique_ptr<ActivationObserver> makeObserver(ObserverKind kind, QRange range) {
  switch (kind) {
    case ObserverKind::MinMax:
      return std::make_unique<MinMaxObserver>(range);
    case ObserverKind::Histogram:
      break;
  }
  return std::make_unique<HistogramObserver>(range);
}

// Weights
// -----------------------------------------------------------------------------------------------------

ChannelQuantized quantizeWeightPerChannel(const torch::Tensor& weight) {
  const torch::Tensor w = weight.detach().to(torch::kCPU, torch::kFloat32).contiguous();
  const torch::Tensor rows = w.reshape({w.size(0), -1});
  const torch::Tensor lo = std::get<0>(rows.min(1)).clamp_max(0);
  const torch::Tensor hi = std::get<0>(rows.max(1)).clamp_min(0);
  const torch::Tensor bound = torch::max(-lo, hi);
  // (quant_max - quant_min) / 2 of kWeightRange
  const float half_range = static_cast<float>(kWeightRange.quant_max - kWeightRange.quant_min) / 2.0f;
  const torch::Tensor scales = (bound / half_range).clamp_min(kMinScale);
  const torch::Tensor zero_points = torch::zeros({w.size(0)}, torch::kLong);
  // quantize_per_channel rounds half to even as every kernel does, onto qint8's [-128, 127]; the channel's
  // largest weight lands on +-63.5 and rounds to 64, which the 7-bit range clamps to 63.
  const torch::Tensor q = torch::quantize_per_channel(w, scales, zero_points, 0, torch::kQInt8)
                              .int_repr()
                              .clamp(kWeightRange.quant_min, kWeightRange.quant_max);
  return {q, scales, zero_points};
}

torch::Tensor perChannelQInt8(const torch::Tensor& values, const torch::Tensor& scales,
                              const torch::Tensor& zero_points) {
  return torch::_make_per_channel_quantized_tensor(
      values.to(torch::kChar).contiguous(), scales.to(torch::kDouble), zero_points.to(torch::kLong), 0);
}

}  // namespace wb
