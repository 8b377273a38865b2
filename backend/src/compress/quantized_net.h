#pragma once
// The int8 form of a layer list, shared by the quantize pass (which plans it and calibrates it in float) and
// the int8 forward (which runs it on LibTorch's quantized CPU kernels). The plan decides per layer which
// kernel runs it:
//   int8         conv2d / linear on quint8 activations with per-channel qint8 weights (static mode), a relu
//                after it fused in (quantized::conv2d_relu, linear_relu)
//   int8_dynamic linear with int8 weights on float activations quantized on the fly (dynamic mode)
//   residual     both branches planned alike; static mode adds with quantized::add / add_relu
//   fused        a relu merged into the layer before it
//   passthrough  parameterless layers that work on quint8 and float alike (pools, flatten, dropout, identity,
//                a relu that nothing absorbed), keeping the scale of their input
//   float        no int8 kernel: dequantize, run the float layer, quantize again with its calibrated qparams
// The quantized:: ops are looked up in the dispatcher at run time, so a LibTorch build without one (the 2.x
// line is retiring this stack) fails with a message that names it rather than at link time.

#include <torch/torch.h>

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "compress/model_artifact.h"
#include "compress/observers.h"

namespace wb {

enum class QKernel { Int8, Int8Dynamic, Residual, Fused, Passthrough, Float };
std::string kernelName(QKernel kernel);

struct QNode {
  std::string name;  // state-dict prefix: "layers.3", "layers.3.layers.0", "layers.3.shortcut.0"
  LayerPtr layer;
  Shape input_shape;
  QKernel kernel = QKernel::Passthrough;
  bool relu = false;                  // int8 / int8_dynamic / residual: the relu after it is fused in
  std::string reason;                 // float: why it has no int8 kernel
  QParams output;                     // static: the quint8 qparams of its output (int8, residual, float)
  std::vector<QNode> body, shortcut;  // residual

  torch::nn::AnyModule module;  // float and passthrough layers; in calibration every layer but residuals
  c10::IValue packed;           // int8 / int8_dynamic: the engine's packed weights
  std::shared_ptr<ActivationObserver> observer;  // calibration only
};

// The plan of a (batch-norm-folded) layer list for a quantize mode (qat plans as static).
std::vector<QNode> planQuantization(const std::vector<LayerPtr>& layers, const Shape& input_shape,
                                    QuantizeMode mode);

// Every float node, nested ones included, as "layers.5 (gelu): reason".
std::vector<std::string> floatLayerNotes(const std::vector<QNode>& plan);

// Static mode: runs calibration batches in float through `plan` (its modules loaded from `folded`, a float
// artifact), observing the input and every layer's output; fills each node's `output` and returns the
// input's qparams. Stops when `next` returns nullopt or after `max_batches`; `batches_seen` says how many
// ran.
QParams calibratePlan(std::vector<QNode>& plan, const ModelArtifact& folded, ObserverKind observer,
                      QRange range, const std::function<std::optional<torch::Tensor>()>& next,
                      int64_t max_batches, int64_t& batches_seen);

// The per-layer part of the quantization JSON ({"name", "type", "kernel", "relu", "output", "reason",
// "body", "shortcut"}), parallel to the layer list.
nlohmann::json planToJson(const std::vector<QNode>& plan);

// Reads a quantized artifact's per-layer record into `nodes` (planQuantization's plan of the same layers):
// each node's output qparams in static mode. std::runtime_error when the record does not fit the plan.
void readPlanJson(std::vector<QNode>& nodes, const nlohmann::json& list, bool static_mode);

// A layer's float module with its tensors from the artifact, in eval mode (float and passthrough layers; in
// calibration every layer). UserError when a tensor is missing or misshapen.
torch::nn::AnyModule floatModule(const QNode& n, const ModelArtifact& artifact);

// A tensor of the artifact's int8 part by name ("layers.0.weight.scale"); undefined when absent and not
// required, UserError when required.
torch::Tensor quantizedTensor(const ModelArtifact& a, const std::string& name, bool required);

// A quantized:: operator of this LibTorch build; UserError naming it when the build lacks it.
const c10::OperatorHandle& quantizedOp(const std::string& name, const std::string& overload = "");

// The int8 forward of a quantized artifact (what makeQuantizedModel returns).
class QuantizedNet : public InferenceModel {
 public:
  explicit QuantizedNet(const ModelArtifact& artifact);
  torch::Tensor forward(const torch::Tensor& x) override;

  const std::string& engine() const { return m_engine; }

 private:
  torch::Tensor runList(std::vector<QNode>& nodes, torch::Tensor x, QParams& point);

  std::vector<QNode> m_plan;
  Shape m_inputShape;
  QParams m_input;
  bool m_static = true;
  bool m_reduceRange = false;
  std::string m_engine;
};

}  // namespace wb
