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

void saveNamedWeights(const std::string& file, const NamedTensors& parameters, const NamedTensors& buffers) {
  torch::serialize::OutputArchive archive;
  for (const auto& [name, tensor] : parameters) archive.write(name, tensor);
  for (const auto& [name, tensor] : buffers) archive.write(name, tensor, /*is_buffer=*/true);
  writeWeightsFile(file, [&archive](const std::string& tempFile) { archive.save_to(tempFile); });
}

void loadNamedWeights(const std::string& file, const NamedTensors& targets) {
  requireWeightsFile(file);
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(file, torch::Device(torch::kCPU));  // copy_ moves each tensor to the model's device
  } catch (const c10::Error& error) {
    throw UserError(file + ": not a weights file the workbench can read (" + shortErrorText(error) + ")",
                    "give a file written by the workbench for this model");
  }
  copyCheckedWeights(file, targets, [&archive](const std::string& name, torch::Tensor& tensor) {
    return archive.try_read(name, tensor);
  });
}

}  // namespace wb
