#include "export/onnx_graph.h"

#include <stdexcept>

namespace wb::onnx_export {

OnnxDataType onnxDataType(torch::ScalarType type) {
  switch (type) {
    case torch::kFloat32:
      return OnnxDataType::Float;
    case torch::kInt8:
      return OnnxDataType::Int8;
    case torch::kUInt8:
      return OnnxDataType::Uint8;
    case torch::kInt32:
      return OnnxDataType::Int32;
    case torch::kInt64:
      return OnnxDataType::Int64;
    default:
      throw std::logic_error(std::string("ONNX export: no ONNX type for ") + c10::toString(type));
  }
}

std::string OnnxGraph::uniqueName(const std::string& base) {
  if (m_used.count(base) == 0) {
    m_used[base] = 1;
    return base;
  }
  // base_1 may already exist (asked for as a base of its own): count on until a name is free.
  int64_t& next = m_used[base];
  std::string name;
  do {
    name = base + "_" + std::to_string(next++);
  } while (m_used.count(name) != 0);
  m_used[name] = 1;
  return name;
}

std::vector<std::string> OnnxGraph::addMulti(const std::string& op, const std::vector<std::string>& inputs,
                                             const std::string& base, int outputs,
                                             const std::vector<OnnxAttr>& attrs) {
  OnnxNodePlan node;
  node.name = uniqueName(base);
  node.op = op;
  node.inputs = inputs;
  for (int i = 0; i < outputs; ++i) {
    node.outputs.push_back(outputs == 1 ? node.name : uniqueName(node.name + ":" + std::to_string(i)));
  }
  node.attrs = attrs;
  m_plan.nodes.push_back(std::move(node));
  return m_plan.nodes.back().outputs;
}

std::string OnnxGraph::add(const std::string& op, const std::vector<std::string>& inputs,
                           const std::string& base, const std::vector<OnnxAttr>& attrs) {
  return addMulti(op, inputs, base, 1, attrs).front();
}

void OnnxGraph::addTo(const std::string& op, const std::vector<std::string>& inputs,
                      const std::string& output) {
  OnnxNodePlan node;
  node.name = uniqueName(output + "/" + op);
  node.op = op;
  node.inputs = inputs;
  node.outputs = {output};
  m_plan.nodes.push_back(std::move(node));
  m_used[output] = 1;
}

std::string OnnxGraph::addInitializer(const std::string& name, const torch::Tensor& tensor) {
  const torch::Tensor t = tensor.detach().to(torch::kCPU).contiguous();
  OnnxTensorPlan p;
  p.name = uniqueName(name);
  p.type = onnxDataType(t.scalar_type());
  p.dims = t.sizes().vec();
  // raw_data is little-endian, as LibTorch's CPU tensors are on every machine it runs on.
  p.raw.assign(static_cast<const char*>(t.data_ptr()), static_cast<size_t>(t.numel() * t.element_size()));
  m_plan.initializers.push_back(std::move(p));
  return m_plan.initializers.back().name;
}

std::string OnnxGraph::constInts(const std::string& name, const std::vector<int64_t>& values) {
  return addInitializer(name, torch::tensor(values, torch::kInt64));
}

std::string OnnxGraph::constFloat(const std::string& name, float value) {
  return addInitializer(name, torch::scalar_tensor(value, torch::kFloat32));
}

}  // namespace wb::onnx_export
