#pragma once
// Observers in torch.ao.quantization's sense: they only record what flows through a point of the network
// and turn it into a scale and zero point. MinMax keeps the running range; Histogram keeps a 2048-bin
// histogram and searches the range that minimizes the L2 quantization error (PyTorch 1.13's algorithm,
// itself from caffe2's NormMinimization), which clips rare outliers. The weight observer is per channel and
// symmetric: int8 kernels of oneDNN and QNNPACK want weight zero points of 0.

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <string>

#include "workbench/compression_words.h"

namespace wb {

struct QParams {
  double scale = 1.0;
  int64_t zero_point = 0;
};

// An integer range of quantized values.
struct QRange {
  int64_t quant_min = 0;
  int64_t quant_max = 255;
};

// The ranges of every int8 artifact (quantization format 2), whatever the engine and the CPU: activations
// quint8 [0, 255] per tensor, weights qint8 [-64, 63] per channel, i.e. 7 bits.
// Why 7-bit weights: on x86 CPUs without VNNI (AVX2, and AVX-512 without VNNI) the int8 kernels of oneDNN,
// FBGEMM and ONNX Runtime's MLAS multiply uint8 activations by int8 weights with vpmaddubsw, which adds each
// pair of products into a signed 16-bit lane and saturates at 32767: 255 x 128 x 2 = 65280 overflows, and
// 255 x 64 x 2 = 32640 never does. Measured on such a CPU (emulated AVX2, 8-bit weights): 34 output steps off
// the model's float simulation in the engine and 35 in ONNX Runtime; with 7-bit weights 1 step in both, as on
// a VNNI CPU. PyTorch's alternative, 7-bit activations (reduce_range), only holds while every activation
// stays inside its calibrated range; an input beyond it quantizes up to 255 and saturates again. 7-bit
// weights hold for every input, on every engine, and in every runtime an exported file reaches.
constexpr QRange kActivationRange{0, 255};
constexpr QRange kWeightRange{-64, 63};

// The activation range of format-1 artifacts and of the dynamic kernels' reduce_range flag: [0, 127] with it.
QRange activationRange(bool reduce_range);

// PyTorch's _calculate_qparams for per-tensor affine quantization: the range is widened to include 0 (so
// zero padding and ReLU outputs are exact), scale = (max - min) / (quant_max - quant_min) at least float32
// eps, zero_point = quant_min - round(min / scale) clamped to the range. float32 arithmetic as PyTorch's.
QParams affineQParams(double min_val, double max_val, QRange range);

class ActivationObserver {
 public:
  virtual ~ActivationObserver() = default;
  virtual void observe(const torch::Tensor& x) = 0;
  virtual bool seen() const = 0;
  virtual QParams qparams() const = 0;
  // The range the qparams were computed from (after the histogram's search), for logs.
  virtual std::pair<double, double> range() const = 0;
};

class MinMaxObserver : public ActivationObserver {
 public:
  explicit MinMaxObserver(QRange range) : m_range(range) {}
  void observe(const torch::Tensor& x) override;
  bool seen() const override { return m_seen; }
  QParams qparams() const override;
  std::pair<double, double> range() const override { return {m_min, m_max}; }

 private:
  QRange m_range;
  bool m_seen = false;
  double m_min = 0, m_max = 0;
};

class HistogramObserver : public ActivationObserver {
 public:
  explicit HistogramObserver(QRange range, int64_t bins = 2048, int64_t upsample_rate = 128)
      : m_range(range), m_bins(bins), m_upsample(upsample_rate) {}
  void observe(const torch::Tensor& x) override;
  bool seen() const override { return m_seen; }
  QParams qparams() const override;
  std::pair<double, double> range() const override;

  // The histogram and its range (tests compare them with PyTorch's).
  const torch::Tensor& histogram() const { return m_hist; }
  float minValue() const { return m_min; }
  float maxValue() const { return m_max; }

 private:
  std::pair<double, double> searchRange() const;
  double quantizationError(int64_t start_bin, int64_t end_bin) const;

  QRange m_range;
  int64_t m_bins;
  int64_t m_upsample;
  bool m_seen = false;
  float m_min = 0, m_max = 0;
  torch::Tensor m_hist;  // float32 [bins]
};

std::unique_ptr<ActivationObserver> makeObserver(ObserverKind kind, QRange range);

// Per-channel symmetric int8 along axis 0 in kWeightRange (PyTorch's per-channel symmetric weight observer
// with reduce_range): scale_c = max(|w_c|) / 63.5 (at least float32 eps), zero point 0, values in [-64, 63].
struct ChannelQuantized {
  torch::Tensor values;       // int8 (kChar), the shape of the weight
  torch::Tensor scales;       // float32 [C]
  torch::Tensor zero_points;  // int64 [C], all 0
};
ChannelQuantized quantizeWeightPerChannel(const torch::Tensor& weight);

// The quantized tensor (qint8, per channel along axis 0) of stored int8 values, scales and zero points.
torch::Tensor perChannelQInt8(const torch::Tensor& values, const torch::Tensor& scales,
                              const torch::Tensor& zero_points);

}  // namespace wb
