#pragma once
// An ONNX model described in plain C++ — no protobuf, no LibTorch: what the exporter's emitters build
// (onnx_graph.h) and what ONNX's own library turns into a ModelProto (onnx_model_writer.h). It sits between
// them because pip's LibTorch brings a protobuf of its own that Debian's ONNX library cannot share a process
// with: there the plan crosses to the workbench-onnx-writer process as files (onnx_plan_files.h); in the
// Debian build the writer runs in the engine's own process. Either way the same code makes the same bytes.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace wb::onnx_export {

// TensorProto.DataType of the element types the exporter writes, numbered as onnx.proto numbers them.
enum class OnnxDataType : int32_t { Float = 1, Uint8 = 2, Int8 = 3, Int32 = 6, Int64 = 7 };
// Whether `code` is one of the above.
bool isOnnxDataType(int64_t code);
// Bytes per element.
int64_t onnxElementSize(OnnxDataType type);

// AttributeProto.AttributeType of the attributes the emitters write.
enum class OnnxAttrKind { Int, Float, Ints };

// One node attribute; make them with attrInt / attrFloat / attrInts.
struct OnnxAttr {
  std::string name;
  OnnxAttrKind kind = OnnxAttrKind::Int;
  int64_t i = 0;
  float f = 0;
  std::vector<int64_t> ints;

  bool operator==(const OnnxAttr&) const = default;
};
OnnxAttr attrInt(const std::string& name, int64_t value);
OnnxAttr attrFloat(const std::string& name, float value);
OnnxAttr attrInts(const std::string& name, std::vector<int64_t> values);

struct OnnxNodePlan {
  std::string op;
  std::string name;
  std::vector<std::string> inputs;  // "" is an omitted optional input
  std::vector<std::string> outputs;
  std::vector<OnnxAttr> attrs;

  bool operator==(const OnnxNodePlan&) const = default;
};

// An initializer: raw_data is little-endian, as LibTorch's CPU tensors are on every machine it runs on.
struct OnnxTensorPlan {
  std::string name;
  OnnxDataType type = OnnxDataType::Float;
  std::vector<int64_t> dims;  // empty for a scalar
  std::string raw;

  bool operator==(const OnnxTensorPlan&) const = default;
};

// A dimension of a graph input or output: a number, or a symbol (the dynamic "batch") when `param` is set.
struct OnnxDim {
  int64_t value = 0;
  std::string param;

  bool operator==(const OnnxDim&) const = default;
};

struct OnnxValuePlan {
  std::string name;
  OnnxDataType type = OnnxDataType::Float;
  std::vector<OnnxDim> dims;

  bool operator==(const OnnxValuePlan&) const = default;
};

struct OnnxModelPlan {
  std::string subject;  // what the messages name: "artifact cnn-int8"
  int64_t ir_version = 0;
  int64_t opset = 0;  // of the default domain ""
  std::string producer_name;
  int64_t model_version = 0;
  std::string doc_string;
  std::vector<std::pair<std::string, std::string>> metadata_props;
  std::string graph_name;
  std::vector<OnnxValuePlan> inputs;
  std::vector<OnnxValuePlan> outputs;
  std::vector<OnnxNodePlan> nodes;
  std::vector<OnnxTensorPlan> initializers;

  bool operator==(const OnnxModelPlan&) const = default;
};

// "[batch, 10]": a value's shape as the messages write it.
std::string shapeText(const std::vector<OnnxDim>& dims);

}  // namespace wb::onnx_export
