#ifdef WB_WITH_ONNX

#include "export/onnx_graph.h"

#include <stdexcept>

namespace wb::onnx_export {

OnnxAttr attrInt(const std::string& name, int64_t value) {
  OnnxAttr a;
  a.name = name;
  a.type = onnx::AttributeProto::INT;
  a.i = value;
  return a;
}

OnnxAttr attrFloat(const std::string& name, float value) {
  OnnxAttr a;
  a.name = name;
  a.type = onnx::AttributeProto::FLOAT;
  a.f = value;
  return a;
}

OnnxAttr attrInts(const std::string& name, std::vector<int64_t> values) {
  OnnxAttr a;
  a.name = name;
  a.type = onnx::AttributeProto::INTS;
  a.ints = std::move(values);
  return a;
}

int32_t onnxDataType(torch::ScalarType type) {
  switch (type) {
    case torch::kFloat32:
      return onnx::TensorProto::FLOAT;
    case torch::kInt8:
      return onnx::TensorProto::INT8;
    case torch::kUInt8:
      return onnx::TensorProto::UINT8;
    case torch::kInt32:
      return onnx::TensorProto::INT32;
    case torch::kInt64:
      return onnx::TensorProto::INT64;
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

namespace {

void setAttributes(onnx::NodeProto* node, const std::vector<OnnxAttr>& attrs) {
  for (const OnnxAttr& a : attrs) {
    onnx::AttributeProto* p = node->add_attribute();
    p->set_name(a.name);
    p->set_type(a.type);
    if (a.type == onnx::AttributeProto::INT) p->set_i(a.i);
    if (a.type == onnx::AttributeProto::FLOAT) p->set_f(a.f);
    if (a.type == onnx::AttributeProto::INTS) {
      for (int64_t v : a.ints) p->add_ints(v);
    }
  }
}

}  // namespace

std::vector<std::string> OnnxGraph::addMulti(const std::string& op, const std::vector<std::string>& inputs,
                                             const std::string& base, int outputs,
                                             const std::vector<OnnxAttr>& attrs) {
  onnx::NodeProto* node = m_graph.add_node();
  const std::string node_name = uniqueName(base);
  node->set_name(node_name);
  node->set_op_type(op);
  for (const std::string& in : inputs) node->add_input(in);
  std::vector<std::string> names;
  for (int i = 0; i < outputs; ++i) {
    names.push_back(outputs == 1 ? node_name : uniqueName(node_name + ":" + std::to_string(i)));
    node->add_output(names.back());
  }
  setAttributes(node, attrs);
  return names;
}

std::string OnnxGraph::add(const std::string& op, const std::vector<std::string>& inputs,
                           const std::string& base, const std::vector<OnnxAttr>& attrs) {
  return addMulti(op, inputs, base, 1, attrs).front();
}

void OnnxGraph::addTo(const std::string& op, const std::vector<std::string>& inputs,
                      const std::string& output) {
  onnx::NodeProto* node = m_graph.add_node();
  node->set_name(uniqueName(output + "/" + op));
  node->set_op_type(op);
  for (const std::string& in : inputs) node->add_input(in);
  node->add_output(output);
  m_used[output] = 1;
}

std::string OnnxGraph::addInitializer(const std::string& name, const torch::Tensor& tensor) {
  const torch::Tensor t = tensor.detach().to(torch::kCPU).contiguous();
  onnx::TensorProto* p = m_graph.add_initializer();
  const std::string unique = uniqueName(name);
  p->set_name(unique);
  p->set_data_type(onnxDataType(t.scalar_type()));
  for (int64_t d : t.sizes()) p->add_dims(d);
  // raw_data is little-endian, as LibTorch's CPU tensors are on every machine it runs on.
  p->set_raw_data(std::string(static_cast<const char*>(t.data_ptr()), t.numel() * t.element_size()));
  return unique;
}

std::string OnnxGraph::constInts(const std::string& name, const std::vector<int64_t>& values) {
  return addInitializer(name, torch::tensor(values, torch::kInt64));
}

std::string OnnxGraph::constFloat(const std::string& name, float value) {
  return addInitializer(name, torch::scalar_tensor(value, torch::kFloat32));
}

}  // namespace wb::onnx_export

#endif  // WB_WITH_ONNX
