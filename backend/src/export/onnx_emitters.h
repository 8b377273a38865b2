#pragma once
// ONNX emitters: one per layer type, looked up by the layer's type name, each turning one layer of the list
// into ONNX nodes through OnnxEmitContext (pnnx's pass_onnx pattern). The table is filled by an explicit
// call, registerOnnxEmitters, never by self-registering statics: a static library's unreferenced object files
// are dropped by the linker, and their emitters with them.
//
// int8 artifacts: the context walks the quantization plan (quantization.h) beside the layer list and keeps
// track of the activation's quantization, the way QuantizedNet runs it, so the file computes what LibTorch's
// int8 kernels compute:
//   static  weights stay int8 (DequantizeLinear per output channel, axis 0); activations pass
//           QuantizeLinear/DequantizeLinear (uint8) with the artifact's calibrated scales wherever LibTorch
//           holds them as quint8 — the QDQ form ONNX Runtime fuses into QLinearConv / QLinearMatMul
//   dynamic DynamicQuantizeLinear + MatMulInteger on int8 weights, rescaled by input scale x weight scale

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compress/model_artifact.h"
#include "export/onnx_graph.h"

namespace wb::onnx_export {

// One layer as its emitter sees it.
struct EmitLayer {
  const Layer& layer;
  std::string name;     // state-dict prefix: "layers.3", "layers.3.layers.0"
  Shape input;          // one sample's input shape
  nlohmann::json plan;  // the layer's entry of quantization.layers (null for a float artifact)

  // The plan's kernel ("int8", "int8_dynamic", "residual", "fused", "passthrough", "float"), "" when float.
  std::string kernel() const;
};

class OnnxEmitContext;
// Emits the layer applied to value `x` ([batch, ...input]); returns the value holding its output.
using OnnxEmitter = std::function<std::string(OnnxEmitContext&, const EmitLayer&, const std::string& x)>;
using OnnxEmitterTable = std::map<std::string, OnnxEmitter>;

// Every layer type the engine has.
void registerOnnxEmitters(OnnxEmitterTable& table);

// Where the current activation stands in a static int8 graph: on the int8 grid of `scale`/`zero_point`
// already (it came out of a QuantizeLinear/DequantizeLinear pair or a layer that keeps the grid), or float
// that LibTorch quantizes with them at the next int8 kernel.
struct ActivationGrid {
  bool on_grid = false;
  double scale = 1.0;
  int64_t zero_point = 0;
};

class OnnxEmitContext {
 public:
  OnnxEmitContext(OnnxGraph& graph, const ModelArtifact& artifact, const OnnxEmitterTable& emitters);

  OnnxGraph& graph() { return m_graph; }
  const ModelArtifact& artifact() const { return m_artifact; }
  bool staticInt8() const { return m_static; }

  // The artifact's float tensor (weights or buffers) as an initializer under its state-dict name.
  std::string floatTensor(const std::string& name);
  // The int8 artifact's tensor (quantized) by name; undefined when absent and not required.
  torch::Tensor quantizedTensor(const std::string& name, bool required = true) const;
  // The layer's int8 weight as INT8 initializer "<name>.weight", dequantized per output channel (axis 0) by a
  // DequantizeLinear node: the float weight exists only at run time.
  std::string dequantizedWeight(const std::string& name);

  // The layers of one list (the model's, or a residual branch's) applied to `x`, each by its emitter, with
  // the quantization plan `plan` (null for float) handled around them.
  std::string emitList(const std::vector<LayerPtr>& layers, const std::string& prefix, Shape shape,
                       std::string x, const nlohmann::json& plan);

  // Static int8: the activation's grid, and the QuantizeLinear + DequantizeLinear pair that puts a float
  // value on a grid (LibTorch's quantize_per_tensor to quint8, then the int8 kernel's view of it).
  ActivationGrid& grid() { return m_grid; }
  std::string onGrid(const std::string& x, const ActivationGrid& grid, const std::string& base);
  std::string quantizeDequantize(const std::string& x, double scale, int64_t zero_point,
                                 const std::string& base);

 private:
  std::string emitOne(const EmitLayer& l, const std::string& x);

  OnnxGraph& m_graph;
  const ModelArtifact& m_artifact;
  const OnnxEmitterTable& m_emitters;
  bool m_static = false;
  ActivationGrid m_grid;
};

}  // namespace wb::onnx_export
