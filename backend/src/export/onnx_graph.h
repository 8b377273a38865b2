#pragma once
// The small context every ONNX emitter writes through, after pnnx and PyTorch's ONNX encoder: fresh unique
// value names, nodes with attributes, and initializers made from LibTorch tensors. Emitters never touch the
// model plan themselves, so two layers cannot produce the same value name and every tensor is converted to
// ONNX in one place. It writes a plan (onnx_model_plan.h), not protobuf: no ONNX header reaches LibTorch's
// side, so every build has it.

#include <torch/torch.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "export/onnx_model_plan.h"

namespace wb::onnx_export {

class OnnxGraph {
 public:
  explicit OnnxGraph(OnnxModelPlan& plan) : m_plan(plan) {}

  // `base` itself the first time, then base_1, base_2, ...; names of values and initializers share one space.
  std::string uniqueName(const std::string& base);

  // A node with one output, named after `base` ("layers.3/Conv"); returns the output's name. An input given
  // as "" is an omitted optional input.
  std::string add(const std::string& op, const std::vector<std::string>& inputs, const std::string& base,
                  const std::vector<OnnxAttr>& attrs = {});
  // A node with `outputs` outputs (DynamicQuantizeLinear, Split), named base:0, base:1, ...
  std::vector<std::string> addMulti(const std::string& op, const std::vector<std::string>& inputs,
                                    const std::string& base, int outputs,
                                    const std::vector<OnnxAttr>& attrs = {});
  // A node writing exactly `output` (the graph's output, which must keep its name).
  void addTo(const std::string& op, const std::vector<std::string>& inputs, const std::string& output);

  // The tensor as an initializer (float32, int8, uint8, int32, int64; 0-d for a scalar), stored raw, under
  // `name` made unique. Artifact tensors keep their state-dict names so each initializer leads back to it.
  std::string addInitializer(const std::string& name, const torch::Tensor& tensor);
  // Constants of the graph's own making (shapes, axes, 1.0): int64 [n] and float32 scalars.
  std::string constInts(const std::string& name, const std::vector<int64_t>& values);
  std::string constFloat(const std::string& name, float value);

 private:
  OnnxModelPlan& m_plan;
  std::map<std::string, int64_t> m_used;  // name -> how many times it was asked for
};

// LibTorch dtype -> ONNX TensorProto data type; std::logic_error for one the exporter never writes.
OnnxDataType onnxDataType(torch::ScalarType type);

}  // namespace wb::onnx_export
