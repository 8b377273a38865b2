// ONNX export, written with ONNX's own C++ library (Debian's libonnx-dev): the writer pins the opset and IR
// version, declares the input and output with a dynamic batch dimension, lets one emitter per layer type
// (onnx_emitters.cpp) build the graph, and returns bytes only after onnx::checker and strict shape inference
// accepted them. Debian's LibTorch links the same libonnx.so.1 and libprotobuf.so.32 (its own ONNX code uses
// the onnx_torch namespace only in pip builds), so both live in one process without clashing symbols.

#include "export/onnx_export.h"

#include "workbench/errors.h"

#ifdef WB_WITH_ONNX
#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include "export/onnx_emitters.h"
#endif

namespace wb {

#ifndef WB_WITH_ONNX

std::string onnxModelBytes(const ModelArtifact& artifact, const ExportMetadata&) {
  throw UserError(
      "this build of the workbench has no ONNX export (it was built without ONNX's C++ library, "
      "libonnx-dev), so artifact " +
          artifact.name + " cannot be written as ONNX",
      "Export as TorchScript or safetensors, or rebuild with libonnx-dev installed.");
}

#else

namespace {

using onnx_export::OnnxEmitContext;
using onnx_export::OnnxEmitterTable;
using onnx_export::OnnxGraph;

// Opset 17: the first with LayerNormalization (the ViT layers), supported by ONNX Runtime since 1.14.
// IR version 8 is what ONNX 1.12 writes for it.
constexpr int64_t kOpset = 17;
constexpr int64_t kIrVersion = 8;

const OnnxEmitterTable& emitters() {
  static const OnnxEmitterTable table = [] {
    OnnxEmitterTable t;
    onnx_export::registerOnnxEmitters(t);
    return t;
  }();
  return table;
}

void declareTensor(onnx::ValueInfoProto* value, const std::string& name, const Shape& sample) {
  value->set_name(name);
  onnx::TypeProto_Tensor* tensor = value->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(onnx::TensorProto::FLOAT);
  onnx::TensorShapeProto* shape = tensor->mutable_shape();
  shape->add_dim()->set_dim_param("batch");
  for (int64_t d : sample) shape->add_dim()->set_dim_value(d);
}

// The shape strict inference found for the graph's output, as "[batch, 10]".
std::string inferredOutputShape(const onnx::ModelProto& model) {
  const onnx::TensorShapeProto& shape = model.graph().output(0).type().tensor_type().shape();
  std::string s = "[";
  for (int i = 0; i < shape.dim_size(); ++i) {
    if (i > 0) s += ", ";
    s += shape.dim(i).has_dim_value() ? std::to_string(shape.dim(i).dim_value()) : shape.dim(i).dim_param();
  }
  return s + "]";
}

}  // namespace

std::string onnxModelBytes(const ModelArtifact& artifact, const ExportMetadata& metadata) {
  if (artifact.layers.is_null() || !artifact.torchscript.empty()) {
    throw UserError("artifact " + artifact.name +
                        " is a TorchScript model: ONNX export writes a model from its "
                        "layer list, and a TorchScript file has none the exporter can read (its layers are "
                        "compiled code)",
                    "Export it as TorchScript or safetensors, which take it.");
  }
  const std::vector<LayerPtr> layers = artifactLayers(artifact);

  onnx::ModelProto model;
  model.set_ir_version(kIrVersion);
  onnx::OperatorSetIdProto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(kOpset);
  model.set_producer_name("Torch Workbench");
  model.set_model_version(1);
  model.set_doc_string("artifact " + artifact.name +
                       (artifact.isQuantized()
                            ? " (int8, " + artifact.quantization.value("mode", std::string()) + ")"
                            : std::string(" (float32)")));
  for (const auto& [key, value] : fileMetadata(metadata, artifact, ExportFormat::Onnx)) {
    onnx::StringStringEntryProto* entry = model.add_metadata_props();
    entry->set_key(key);
    entry->set_value(value);
  }

  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name(metadata.experiment_name.empty() ? "workbench" : metadata.experiment_name);
  declareTensor(graph->add_input(), "input", artifact.input_shape);
  OnnxGraph g(*graph);
  g.uniqueName("input");  // reserved: no emitter may name a value like the graph's ends
  g.uniqueName("logits");
  OnnxEmitContext ctx(g, artifact, emitters());
  const nlohmann::json plan = artifact.isQuantized() ? artifact.quantization.at("layers") : nlohmann::json();
  const std::string out = ctx.emitList(layers, "layers", artifact.input_shape, "input", plan);
  g.addTo("Identity", {out}, "logits");
  declareTensor(graph->add_output(), "logits", {artifact.num_classes});

  // From here on a failure is the exporter's bug, not the user's: the layers were all accepted above.
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    throw std::logic_error("ONNX export of " + artifact.name +
                           " made a model onnx::checker refuses: " + e.what());
  }
  try {
    // Strict: a node whose shapes do not infer, or that disagree with a declared one, throws.
    const onnx::ShapeInferenceOptions options(/*check_type=*/true, /*error_mode=*/1, /*data_prop=*/true);
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception& e) {
    throw std::logic_error("ONNX export of " + artifact.name + ": shape inference failed: " + e.what());
  }
  const std::string expected = "[batch, " + std::to_string(artifact.num_classes) + "]";
  if (inferredOutputShape(model) != expected) {
    throw std::logic_error("ONNX export of " + artifact.name + ": the output infers as " +
                           inferredOutputShape(model) + ", not " + expected);
  }

  std::string bytes;
  if (!model.SerializeToString(&bytes)) {
    throw std::logic_error("ONNX export of " + artifact.name + ": the model did not serialize");
  }
  return bytes;
}

#endif  // WB_WITH_ONNX

}  // namespace wb
