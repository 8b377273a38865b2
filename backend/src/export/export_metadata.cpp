#include "export/export_metadata.h"

#include <torch/version.h>

#include "compress/model_artifact.h"

namespace wb {

std::map<std::string, std::string> ExportMetadata::asStrings() const {
  using nlohmann::json;
  json normalization = {{"mean", mean}, {"std", std}, {"pixels_in_0_255", pixels_in_0_255}};
  normalization["formula"] =
      pixels_in_0_255 ? "x = (pixel / 255 - mean) / std per channel" : "x = (value - mean) / std per feature";
  std::map<std::string, std::string> out;
  out["input_shape"] = json(input_shape).dump();
  out["normalization"] = normalization.dump();
  out["class_names"] = json(class_names).dump();
  if (!preprocessing.is_null()) out["preprocessing"] = preprocessing.dump();
  out["experiment_name"] = experiment_name;
  out["artifact"] = artifact;
  out["history"] = history.dump();
  out["producer"] = "torch-workbench";
  return out;
}

std::map<std::string, std::string> fileMetadata(const ExportMetadata& metadata, const ModelArtifact& a,
                                                ExportFormat format) {
  std::map<std::string, std::string> out = metadata.asStrings();
  out["num_classes"] = std::to_string(a.num_classes);
  out["export_format"] = toString(format);
  out["torch_version"] = TORCH_VERSION;
  if (a.isQuantized()) {
    out["quantized_engine"] = a.quantization.value("engine", std::string());
    out["quantization"] = a.quantization.dump();
  }
  if (!a.layers.is_null()) out["layers"] = a.layers.dump();
  return out;
}

}  // namespace wb
