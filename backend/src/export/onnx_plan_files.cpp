#include "export/onnx_plan_files.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "workbench/errors.h"

namespace wb::onnx_export {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const char* const kPlanFormat = "workbench-onnx-plan";
constexpr int kPlanVersion = 1;
const char* const kPlanFile = "plan.json";
const char* const kBlobFile = "initializers.bin";

const char* const kAttrKindWords[] = {"int", "float", "ints"};

json dimsJson(const std::vector<OnnxDim>& dims) {
  json out = json::array();
  for (const OnnxDim& d : dims) out.push_back(d.param.empty() ? json(d.value) : json(d.param));
  return out;
}

json valuesJson(const std::vector<OnnxValuePlan>& values) {
  json out = json::array();
  for (const OnnxValuePlan& v : values) {
    out.push_back({{"name", v.name}, {"type", static_cast<int32_t>(v.type)}, {"dims", dimsJson(v.dims)}});
  }
  return out;
}

json attrJson(const OnnxAttr& a, const std::string& node) {
  json out = {{"name", a.name}, {"kind", kAttrKindWords[static_cast<int>(a.kind)]}};
  switch (a.kind) {
    case OnnxAttrKind::Int:
      out["value"] = a.i;
      break;
    case OnnxAttrKind::Float:
      // JSON has no NaN or infinity; a finite float survives as a double printed with 17 digits.
      if (!std::isfinite(a.f))
        throw std::logic_error("ONNX plan: attribute " + a.name + " of " + node + " is not finite");
      out["value"] = static_cast<double>(a.f);
      break;
    case OnnxAttrKind::Ints:
      out["value"] = a.ints;
      break;
  }
  return out;
}

json nodesJson(const std::vector<OnnxNodePlan>& nodes) {
  json out = json::array();
  for (const OnnxNodePlan& n : nodes) {
    json attrs = json::array();
    for (const OnnxAttr& a : n.attrs) attrs.push_back(attrJson(a, n.name));
    out.push_back(
        {{"op", n.op}, {"name", n.name}, {"inputs", n.inputs}, {"outputs", n.outputs}, {"attrs", attrs}});
  }
  return out;
}

// The initializers' bytes into initializers.bin, their entries (with offsets) into the plan.
json writeBlob(const std::vector<OnnxTensorPlan>& tensors, const std::string& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  json entries = json::array();
  int64_t offset = 0;
  for (const OnnxTensorPlan& t : tensors) {
    out.write(t.raw.data(), static_cast<std::streamsize>(t.raw.size()));
    entries.push_back({{"name", t.name},
                       {"type", static_cast<int32_t>(t.type)},
                       {"dims", t.dims},
                       {"offset", offset},
                       {"bytes", static_cast<int64_t>(t.raw.size())}});
    offset += static_cast<int64_t>(t.raw.size());
  }
  out.flush();
  if (!out) {
    throw UserError(
        "Could not write " + path + " (" + std::to_string(offset) + " bytes): " + std::strerror(errno),
        "Check that the folder is writable and the disk is not full.");
  }
  return entries;
}

void writeText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.flush();
  if (!out) {
    throw UserError("Could not write " + path + ": " + std::strerror(errno),
                    "Check that the folder is writable and the disk is not full.");
  }
}

OnnxDataType dataType(const json& code, const std::string& what) {
  if (!code.is_number_integer() || !isOnnxDataType(code.get<int64_t>()))
    throw UserError(what + " has element type " + code.dump() + ", which the ONNX writer does not write");
  return static_cast<OnnxDataType>(code.get<int32_t>());
}

std::vector<OnnxValuePlan> readValues(const json& values, const std::string& where) {
  std::vector<OnnxValuePlan> out;
  for (const json& v : values) {
    OnnxValuePlan p;
    p.name = v.at("name").get<std::string>();
    p.type = dataType(v.at("type"), where + " " + p.name);
    for (const json& d : v.at("dims")) {
      OnnxDim dim;
      if (d.is_string()) {
        dim.param = d.get<std::string>();
      } else {
        dim.value = d.get<int64_t>();
      }
      p.dims.push_back(dim);
    }
    out.push_back(std::move(p));
  }
  return out;
}

OnnxAttr readAttr(const json& a, const std::string& node) {
  const std::string name = a.at("name").get<std::string>();
  const std::string kind = a.at("kind").get<std::string>();
  if (kind == "int") return attrInt(name, a.at("value").get<int64_t>());
  if (kind == "float") return attrFloat(name, static_cast<float>(a.at("value").get<double>()));
  if (kind == "ints") return attrInts(name, a.at("value").get<std::vector<int64_t>>());
  throw UserError("attribute " + name + " of node " + node + " has kind '" + kind +
                  "' (the writer knows int, float, ints)");
}

std::vector<OnnxNodePlan> readNodes(const json& nodes) {
  std::vector<OnnxNodePlan> out;
  for (const json& n : nodes) {
    OnnxNodePlan p;
    p.op = n.at("op").get<std::string>();
    p.name = n.at("name").get<std::string>();
    p.inputs = n.at("inputs").get<std::vector<std::string>>();
    p.outputs = n.at("outputs").get<std::vector<std::string>>();
    for (const json& a : n.at("attrs")) p.attrs.push_back(readAttr(a, p.name));
    out.push_back(std::move(p));
  }
  return out;
}

// Each initializer's bytes from the blob, after checking that they are where the entry says and as many as
// its type and dims make.
std::vector<OnnxTensorPlan> readInitializers(const json& entries, const std::string& blob_path) {
  std::error_code ec;
  const auto blob_size = static_cast<int64_t>(fs::file_size(blob_path, ec));
  if (ec) throw UserError("Could not read " + blob_path + ": " + ec.message());
  std::ifstream in(blob_path, std::ios::binary);
  std::vector<OnnxTensorPlan> out;
  for (const json& e : entries) {
    OnnxTensorPlan t;
    t.name = e.at("name").get<std::string>();
    t.type = dataType(e.at("type"), "initializer " + t.name);
    t.dims = e.at("dims").get<std::vector<int64_t>>();
    const auto offset = e.at("offset").get<int64_t>();
    const auto bytes = e.at("bytes").get<int64_t>();
    int64_t expected = onnxElementSize(t.type);
    for (int64_t d : t.dims) expected *= d;
    if (bytes != expected || offset < 0 || offset + bytes > blob_size) {
      throw UserError("initializer " + t.name + " in " + blob_path + ": " + std::to_string(bytes) +
                      " bytes at offset " + std::to_string(offset) + " (its type and dims need " +
                      std::to_string(expected) + "; the file holds " + std::to_string(blob_size) + ")");
    }
    t.raw.resize(static_cast<size_t>(bytes));
    in.seekg(offset);
    in.read(t.raw.data(), static_cast<std::streamsize>(bytes));
    if (!in) throw UserError("Could not read initializer " + t.name + " from " + blob_path);
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

void writePlanFiles(const OnnxModelPlan& plan, const std::string& folder) {
  json doc = {{"format", kPlanFormat},
              {"version", kPlanVersion},
              {"subject", plan.subject},
              {"ir_version", plan.ir_version},
              {"opset", plan.opset},
              {"producer_name", plan.producer_name},
              {"model_version", plan.model_version},
              {"doc_string", plan.doc_string},
              {"metadata_props", plan.metadata_props},
              {"graph_name", plan.graph_name},
              {"inputs", valuesJson(plan.inputs)},
              {"outputs", valuesJson(plan.outputs)},
              {"nodes", nodesJson(plan.nodes)}};
  doc["initializers"] = writeBlob(plan.initializers, (fs::path(folder) / kBlobFile).string());
  std::string text;
  try {
    text = doc.dump();
  } catch (const json::type_error& e) {
    // Protobuf's strings are bytes, JSON's are UTF-8: a name or metadata value that is not UTF-8 cannot
    // cross.
    throw UserError(
        plan.subject + ": a name or metadata value of the model is not valid UTF-8 (" + e.what() + ")",
        "Rename the class folders (or the experiment) in UTF-8.");
  }
  writeText((fs::path(folder) / kPlanFile).string(), text);
}

OnnxModelPlan readPlanFiles(const std::string& folder) {
  const std::string plan_path = (fs::path(folder) / kPlanFile).string();
  std::ifstream in(plan_path, std::ios::binary);
  if (!in) throw UserError("Could not open " + plan_path + ": " + std::strerror(errno));
  try {
    const json doc = json::parse(in);
    if (doc.value("format", std::string()) != kPlanFormat || doc.value("version", 0) != kPlanVersion) {
      throw UserError(plan_path + " is not a version " + std::to_string(kPlanVersion) + " " + kPlanFormat +
                      " file");
    }
    OnnxModelPlan plan;
    plan.subject = doc.at("subject").get<std::string>();
    plan.ir_version = doc.at("ir_version").get<int64_t>();
    plan.opset = doc.at("opset").get<int64_t>();
    plan.producer_name = doc.at("producer_name").get<std::string>();
    plan.model_version = doc.at("model_version").get<int64_t>();
    plan.doc_string = doc.at("doc_string").get<std::string>();
    plan.metadata_props = doc.at("metadata_props").get<std::vector<std::pair<std::string, std::string>>>();
    plan.graph_name = doc.at("graph_name").get<std::string>();
    plan.inputs = readValues(doc.at("inputs"), "input");
    plan.outputs = readValues(doc.at("outputs"), "output");
    plan.nodes = readNodes(doc.at("nodes"));
    plan.initializers = readInitializers(doc.at("initializers"), (fs::path(folder) / kBlobFile).string());
    return plan;
  } catch (const json::exception& e) {
    throw UserError(plan_path + " is damaged: " + e.what());
  }
}

}  // namespace wb::onnx_export
