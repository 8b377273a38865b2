#include "model/weights_file.h"

#include <filesystem>

#include "model/layer.h"
#include "util/atomic_file.h"
#include "workbench/errors.h"

namespace wb {

std::string shortErrorText(const std::exception& error) {
  std::string text = error.what();
  if (const auto* torchError = dynamic_cast<const c10::Error*>(&error))
    text = torchError->what_without_backtrace();
  const size_t newline = text.find('\n');
  return newline == std::string::npos ? text : text.substr(0, newline);
}

void writeWeightsFile(const std::string& file,
                      const std::function<void(const std::string& tempFile)>& write) {
  try {
    writeFileAtomically(file, write);
  } catch (const UserError&) {
    throw;
  } catch (const std::exception& error) {
    throw UserError("cannot write model weights to " + file + ": " + shortErrorText(error),
                    "check that its folder exists and is writable");
  }
}

void requireWeightsFile(const std::string& file) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(file, error)) {
    throw UserError(file + ": no such weights file", "check the path, or train the model first to create it");
  }
}

void copyCheckedWeights(const std::string& file, const NamedTensors& targets,
                        const std::function<bool(const std::string& name, torch::Tensor& tensor)>& read) {
  std::vector<torch::Tensor> sources;
  sources.reserve(targets.size());
  for (const auto& [name, target] : targets) {
    torch::Tensor source;
    if (!read(name, source)) {
      throw UserError(file + ": " + name + " is missing; the file holds weights of a different model",
                      "load weights saved from the same experiment's model");
    }
    if (source.sizes() != target.sizes()) {
      throw UserError(file + ": " + name + " has shape " + shapeToString(source.sizes().vec()) +
                          ", the experiment's model expects " + shapeToString(target.sizes().vec()),
                      "load weights saved from the same experiment's model");
    }
    sources.push_back(source);
  }
  torch::NoGradGuard noGrad;
  for (size_t i = 0; i < targets.size(); ++i) targets[i].second.copy_(sources[i]);
}

}  // namespace wb
