#pragma once
// int8 post-training quantization on LibTorch's quantized CPU kernels (oneDNN, QNNPACK; FBGEMM / x86 in
// builds that have them), following torch.ao.quantization's eager mode: fold batch norm into the conv before
// it, fuse conv/linear + relu, per-channel symmetric int8 weights, quint8 activations with qparams from an
// observer run over calibration batches. Layers with no int8 kernel stay float between dequantize and
// quantize, and are named.
//
// A quantized artifact (ModelArtifact):
//   layers        the fused float list: each folded batch norm replaced by {"type": "identity"} (names do not
//                 shift) and its conv given a bias
//   weights       float parameters of the layers that stay float only; buffers likewise
//   quantized     per int8 layer "<p>.weight" (kChar, the weight's shape), "<p>.weight.scale" (float32
//   [out]),
//                 "<p>.weight.zero_point" (int64 [out], all 0) and "<p>.bias" (float32 [out]) when it has one
//   quantization  {"format": 2, "mode": "static"|"dynamic"|"qat", "engine": "onednn"|..., "reduce_range":
//   false,
//                  "weight_range": [-64, 63], "activation_range": [0, 255] (observers.h: why 7-bit weights),
//                  "observer", "calibration_batches", "input": {"scale", "zero_point"} (static),
//                  "layers": [per layer: {"name", "type", "kernel", "relu", "output", "reason", "body",
//                  "shortcut"}] (see quantized_net.h)}
//                 Format 1 (before 7-bit weights): weights in [-128, 127], and reduce_range (activations in
//                 [0, 127]) on the fbgemm and x86 engines. Still read and run; its answers may differ on x86
//                 CPUs without VNNI.

#include <torch/torch.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compress/model_artifact.h"
#include "compress/observers.h"
#include "workbench/experiment.h"

namespace wb {

struct QNode;  // quantized_net.h

struct QuantizeResult {
  ModelArtifact artifact;
  std::vector<std::string> float_layers;  // "layers.5 (gelu): no int8 kernel ..."
  std::string engine;                     // the engine the int8 weights are for ("onednn")
};

// int8 post-training quantization of a float layer-list artifact (pass.mode "dynamic" or "static"; "qat"
// is convertQatModel's). Static mode calls `calibration` until it returns nullopt or
// pass.calibration_batches batches were seen ([B, ...input_shape] float). name/source/history of the result
// are the caller's. UserError for a TorchScript artifact, an int8 one, or a missing engine or op.
QuantizeResult quantizeArtifact(const ModelArtifact& input, const CompressPassConfig& pass,
                                const std::function<std::optional<torch::Tensor>()>& calibration,
                                const std::function<void(const std::string&)>& log);

// The static int8 artifact of a batch-norm-folded float artifact whose activation qparams are known already:
// `plan` is planQuantization(folded's layers, "static") with every node's `output` set, `input` the input's
// qparams. quantizeArtifact's static mode ends here after calibration; convertQatModel comes here with its
// observers' ranges (mode "qat"). Uses the engine selected now. The quantization JSON has format, mode,
// engine, the ranges, torch_version, layers and input; the caller adds what it knows (observer, ...).
QuantizeResult int8FromPlan(const ModelArtifact& folded, const std::vector<QNode>& plan, const QParams& input,
                            QuantizeMode mode, const std::function<void(const std::string&)>& log);

// The int8 forward of an artifact quantizeArtifact made (or one loaded back from disk): repacks the int8
// weights for the artifact's engine and runs LibTorch's quantized kernels. UserError when the engine or an op
// is missing from this LibTorch build.
std::unique_ptr<InferenceModel> makeQuantizedModel(const ModelArtifact& artifact);

// Selects LibTorch's quantized engine, process-wide ("auto" = the fastest this build has: x86, fbgemm,
// onednn, then qnnpack); returns a log line saying which and why. UserError when the requested one is
// missing.
std::string selectQuantizedEngine(const std::string& requested);
// A quantize pass's engine: Auto as "auto", the others by their LibTorch names.
std::string selectQuantizedEngine(QuantizedEngine requested);

// The format quantizeArtifact writes, and whether an int8 artifact's weights are of it (7 bits, so its
// answers hold on every x86 CPU) rather than format 1's 8 bits.
constexpr int kInt8Format = 2;
bool hasSevenBitWeights(const ModelArtifact& int8_artifact);

// The engine selected now, lower case ("onednn"), and those this build supports.
std::string currentQuantizedEngine();
std::vector<std::string> supportedQuantizedEngines();

// Batch norm folded into the conv2d right before it (in every list, residual branches included): the conv's
// weight and bias absorb the normalization, the batch norm becomes {"type": "identity"} and its tensors go.
// Returns the folded pairs as "layers.0+layers.1". A float artifact in, a float artifact out.
ModelArtifact foldBatchNorms(const ModelArtifact& input, std::vector<std::string>* folded = nullptr);

}  // namespace wb
