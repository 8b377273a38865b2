#pragma once
// Quantization-aware training (torch.ao.quantization's prepare_qat / convert, eager mode) on the static int8
// plan of quantized_net.h. The float network trains as usual, but its forward fake-quantizes (rounds to the
// int8 grid and back, gradients passed straight through) exactly where the int8 model will quantize:
//   - weights of every int8 layer (conv2d, linear): per-channel symmetric qint8, ranges from the current
//     weights, as quantizeWeightPerChannel will quantize them at convert;
//   - activations where the int8 model holds quint8 tensors: the input where an int8 layer or add first reads
//     it, each int8 layer's and residual add's output (after a fused relu), and a float layer's output where
//     an int8 layer reads it. Ranges come from moving-average min/max observers (torch's
//     MovingAverageMinMaxObserver, averaging constant 0.01), updated in training mode only.
// Batch norms are folded into the conv before them first (foldBatchNorms) and so frozen: the weights that
// train are the folded ones, which convert quantizes as they are. A batch norm that follows no conv stays a
// float layer and trains (the plan runs it in float too).
//
// Observer state is in namedBuffers() ("<layer>.activation_post_process.min_val" / "max_val", the input's as
// "quant.activation_post_process.*"; +inf / -inf until the first observation), so a checkpoint of parameters
// and buffers resumes exactly. Parameters keep the float model's names ("layers.0.weight").

#include <functional>
#include <memory>
#include <string>

#include "compress/model_artifact.h"
#include "compress/quantization.h"
#include "model/model.h"
#include "workbench/experiment.h"

namespace wb {

// torch.ao.quantization's default for QAT activation observers.
constexpr double kQatAveragingConstant = 0.01;

// A float layer-list artifact prepared for quantization-aware training (on the CPU; Model::to moves it).
// Selects pass.engine (its reduce_range decides the activation range). UserError for an int8 or TorchScript
// artifact.
std::unique_ptr<Model> makeQatModel(const ModelArtifact& float_artifact, const CompressPassConfig& pass,
                                    const std::function<void(const std::string&)>& log);

// After training: the int8 artifact (static mode's layout, quantization["mode"] "qat"): int8 weights from the
// trained (folded) weights, activation qparams from the observers' ranges. UserError when `qat` is not a
// model makeQatModel made or an observer never saw a batch (the model was not trained).
QuantizeResult convertQatModel(Model& qat, const CompressPassConfig& pass,
                               const std::function<void(const std::string&)>& log);

}  // namespace wb
