#ifdef WB_WITH_ONNX

#include "export/onnx_model_writer.h"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <stdexcept>

#include "util/atomic_file.h"

namespace wb::onnx_export {
namespace {

void declareValue(onnx::ValueInfoProto* value, const OnnxValuePlan& plan) {
  value->set_name(plan.name);
  onnx::TypeProto_Tensor* tensor = value->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(static_cast<int32_t>(plan.type));
  onnx::TensorShapeProto* shape = tensor->mutable_shape();
  for (const OnnxDim& d : plan.dims) {
    if (d.param.empty()) {
      shape->add_dim()->set_dim_value(d.value);
    } else {
      shape->add_dim()->set_dim_param(d.param);
    }
  }
}

onnx::AttributeProto::AttributeType attributeType(OnnxAttrKind kind) {
  switch (kind) {
    case OnnxAttrKind::Int:
      return onnx::AttributeProto::INT;
    case OnnxAttrKind::Float:
      return onnx::AttributeProto::FLOAT;
    case OnnxAttrKind::Ints:
      return onnx::AttributeProto::INTS;
  }
  return onnx::AttributeProto::UNDEFINED;
}

void addNode(onnx::GraphProto* graph, const OnnxNodePlan& plan) {
  onnx::NodeProto* node = graph->add_node();
  node->set_name(plan.name);
  node->set_op_type(plan.op);
  for (const std::string& in : plan.inputs) node->add_input(in);
  for (const std::string& out : plan.outputs) node->add_output(out);
  for (const OnnxAttr& a : plan.attrs) {
    onnx::AttributeProto* p = node->add_attribute();
    p->set_name(a.name);
    p->set_type(attributeType(a.kind));
    if (a.kind == OnnxAttrKind::Int) p->set_i(a.i);
    if (a.kind == OnnxAttrKind::Float) p->set_f(a.f);
    if (a.kind == OnnxAttrKind::Ints) {
      for (int64_t v : a.ints) p->add_ints(v);
    }
  }
}

void addInitializerProto(onnx::GraphProto* graph, OnnxTensorPlan& plan) {
  onnx::TensorProto* p = graph->add_initializer();
  p->set_name(plan.name);
  p->set_data_type(static_cast<int32_t>(plan.type));
  for (int64_t d : plan.dims) p->add_dims(d);
  p->set_raw_data(std::move(plan.raw));  // moved: a model's weights are held once
}

onnx::ModelProto modelProto(OnnxModelPlan& plan) {
  onnx::ModelProto model;
  model.set_ir_version(plan.ir_version);
  onnx::OperatorSetIdProto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(plan.opset);
  model.set_producer_name(plan.producer_name);
  model.set_model_version(plan.model_version);
  model.set_doc_string(plan.doc_string);
  for (const auto& [key, value] : plan.metadata_props) {
    onnx::StringStringEntryProto* entry = model.add_metadata_props();
    entry->set_key(key);
    entry->set_value(value);
  }
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name(plan.graph_name);
  for (const OnnxValuePlan& v : plan.inputs) declareValue(graph->add_input(), v);
  for (const OnnxNodePlan& n : plan.nodes) addNode(graph, n);
  for (const OnnxValuePlan& v : plan.outputs) declareValue(graph->add_output(), v);
  for (OnnxTensorPlan& t : plan.initializers) addInitializerProto(graph, t);
  return model;
}

// The shape strict inference found for the graph's first output, as "[batch, 10]".
std::string inferredOutputShape(const onnx::ModelProto& model) {
  const onnx::TensorShapeProto& shape = model.graph().output(0).type().tensor_type().shape();
  std::vector<OnnxDim> dims;
  for (int i = 0; i < shape.dim_size(); ++i) {
    OnnxDim d;
    if (shape.dim(i).has_dim_value()) {
      d.value = shape.dim(i).dim_value();
    } else {
      d.param = shape.dim(i).dim_param();
    }
    dims.push_back(d);
  }
  return shapeText(dims);
}

}  // namespace

std::string serializeOnnxModel(OnnxModelPlan plan) {
  if (plan.outputs.empty())
    throw std::logic_error("ONNX export of " + plan.subject + ": the plan has no output");
  const std::string subject = plan.subject;
  const std::string expected = shapeText(plan.outputs.front().dims);
  onnx::ModelProto model = modelProto(plan);
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    throw std::logic_error("ONNX export of " + subject + " made a model onnx::checker refuses: " + e.what());
  }
  try {
    // Strict: a node whose shapes do not infer, or that disagree with a declared one, throws.
    const onnx::ShapeInferenceOptions options(/*check_type=*/true, /*error_mode=*/1, /*data_prop=*/true);
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception& e) {
    throw std::logic_error("ONNX export of " + subject + ": shape inference failed: " + e.what());
  }
  if (inferredOutputShape(model) != expected) {
    throw std::logic_error("ONNX export of " + subject + ": the output infers as " +
                           inferredOutputShape(model) + ", not " + expected);
  }
  std::string bytes;
  if (!model.SerializeToString(&bytes)) {
    throw std::logic_error("ONNX export of " + subject + ": the model did not serialize");
  }
  return bytes;
}

void writeOnnxModelFile(OnnxModelPlan plan, const std::string& path) {
  writeFileAtomically(path, serializeOnnxModel(std::move(plan)));
}

}  // namespace wb::onnx_export

#endif  // WB_WITH_ONNX
