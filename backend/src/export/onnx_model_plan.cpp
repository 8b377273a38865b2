#include "export/onnx_model_plan.h"

namespace wb::onnx_export {

bool isOnnxDataType(int64_t code) {
  for (OnnxDataType t : {OnnxDataType::Float, OnnxDataType::Uint8, OnnxDataType::Int8, OnnxDataType::Int32,
                         OnnxDataType::Int64}) {
    if (code == static_cast<int64_t>(t)) return true;
  }
  return false;
}

int64_t onnxElementSize(OnnxDataType type) {
  switch (type) {
    case OnnxDataType::Uint8:
    case OnnxDataType::Int8:
      return 1;
    case OnnxDataType::Float:
    case OnnxDataType::Int32:
      return 4;
    case OnnxDataType::Int64:
      return 8;
  }
  return 0;
}

OnnxAttr attrInt(const std::string& name, int64_t value) {
  OnnxAttr a;
  a.name = name;
  a.kind = OnnxAttrKind::Int;
  a.i = value;
  return a;
}

OnnxAttr attrFloat(const std::string& name, float value) {
  OnnxAttr a;
  a.name = name;
  a.kind = OnnxAttrKind::Float;
  a.f = value;
  return a;
}

OnnxAttr attrInts(const std::string& name, std::vector<int64_t> values) {
  OnnxAttr a;
  a.name = name;
  a.kind = OnnxAttrKind::Ints;
  a.ints = std::move(values);
  return a;
}

std::string shapeText(const std::vector<OnnxDim>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) s += ", ";
    s += dims[i].param.empty() ? std::to_string(dims[i].value) : dims[i].param;
  }
  return s + "]";
}

}  // namespace wb::onnx_export
