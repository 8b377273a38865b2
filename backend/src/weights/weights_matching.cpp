// loadModelWeights (weights/weights_loading.h): the file's names matched against the model's, the report
// made, and the tensors copied only once the match is accepted.
#include <algorithm>
#include <map>
#include <set>

#include "model/model_head.h"
#include "weights/timm_names.h"
#include "weights/weights_loading.h"
#include "workbench/errors.h"

namespace wb {
namespace {

// One tensor of the model: its name here, its name outside (what the file and the report use), the tensor.
struct WmTarget {
  std::string ours;
  std::string outside;
  torch::Tensor tensor;
  bool head = false;
};

std::vector<WmTarget> wmTargets(Model& model) {
  const std::map<std::string, std::string> external = model.externalNames();
  const std::vector<std::string> head_names = headParameterNames(model);
  const std::set<std::string> head(head_names.begin(), head_names.end());
  NamedTensors all = model.namedParameters();
  for (auto& buffer : model.namedBuffers()) all.push_back(buffer);
  std::vector<WmTarget> targets;
  for (const auto& [name, tensor] : all) {
    const auto it = external.find(name);
    targets.push_back({name, it == external.end() ? name : it->second, tensor, head.count(name) > 0});
  }
  return targets;
}

// How the file's names are read: a prefix stripped where they have it, then timm's names translated, or a
// base model's names given the prefix they have in the model (Model::baseModelPrefix: "embeddings.…" read as
// "bert.embeddings.…").
struct WmNaming {
  std::string prefix;
  bool timm = false;
  std::string base;
};

// The file's names as read -> their index in the file.
std::map<std::string, size_t> wmIndex(const NamedTensors& file, const WmNaming& naming) {
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < file.size(); ++i) {
    const std::string& name = file[i].first;
    const bool strip = !naming.prefix.empty() && name.rfind(naming.prefix, 0) == 0;
    std::string read = strip ? name.substr(naming.prefix.size()) : name;
    if (naming.timm) {
      if (std::string translated = torchvisionNameOfTimm(read); !translated.empty())
        read = std::move(translated);
    }
    if (!naming.base.empty() && read.rfind(naming.base, 0) != 0) read = naming.base + read;
    index.emplace(std::move(read), i);
  }
  return index;
}

// A file tensor is found under the model's outside name, or its own name (our checkpoints and model.pt).
const size_t kWmNone = static_cast<size_t>(-1);
size_t wmFind(const std::map<std::string, size_t>& index, const WmTarget& target) {
  auto it = index.find(target.outside);
  if (it == index.end()) it = index.find(target.ours);
  return it == index.end() ? kWmNone : it->second;
}

size_t wmMatches(const std::vector<WmTarget>& targets, const std::map<std::string, size_t>& index) {
  size_t found = 0;
  for (const auto& target : targets) found += wmFind(index, target) != kWmNone;
  return found;
}

// The prefixes to try: `given`, or else none and each segment-wise prefix of the longest run of leading
// segments ("module.", "model.backbone.") that every name of the file shares.
std::vector<std::string> wmPrefixes(const NamedTensors& file, const std::string& given) {
  if (!given.empty()) return {given};
  std::vector<std::string> prefixes{""};
  if (file.empty()) return prefixes;
  std::string common = file.front().first;
  for (const auto& [name, tensor] : file) {
    size_t n = 0;
    while (n < common.size() && n < name.size() && common[n] == name[n]) ++n;
    common.resize(n);
  }
  for (size_t dot = common.find('.'); dot != std::string::npos; dot = common.find('.', dot + 1))
    prefixes.push_back(common.substr(0, dot + 1));
  return prefixes;
}

// Of the prefixes, with and without timm's names, the reading that matches the most of the model's tensors
// (the plainest one on a tie: no translation, the shortest prefix).
WmNaming wmChooseNaming(const std::vector<WmTarget>& targets, const NamedTensors& file,
                        const std::string& given, const std::string& base_prefix) {
  WmNaming best{given.empty() ? "" : given, false, ""};
  size_t best_found = wmMatches(targets, wmIndex(file, best));
  for (const std::string& base : {std::string(), base_prefix}) {
    for (const bool timm : {false, true}) {
      for (const std::string& prefix : wmPrefixes(file, given)) {
        const WmNaming naming{prefix, timm, base};
        const size_t found = wmMatches(targets, wmIndex(file, naming));
        if (found > best_found) {
          best = naming;
          best_found = found;
        }
      }
    }
    if (base_prefix.empty()) break;
  }
  return best;
}

// The head is new when each of its tensors is absent from the file, or differs only in its first dimension
// (the class count), and at least one does not fit as it is.
bool wmHeadIsNew(const std::vector<WmTarget>& targets, const std::map<std::string, size_t>& index,
                 const NamedTensors& file, int64_t& file_classes) {
  bool any_head = false;
  bool differs = false;
  file_classes = 0;
  for (const auto& target : targets) {
    if (!target.head) continue;
    any_head = true;
    const size_t i = wmFind(index, target);
    if (i == kWmNone) {
      differs = true;
      continue;
    }
    const auto ours = target.tensor.sizes();
    const auto theirs = file[i].second.sizes();
    if (ours == theirs) continue;
    if (ours.size() != theirs.size() || ours.empty() ||
        !std::equal(ours.begin() + 1, ours.end(), theirs.begin() + 1))
      return false;
    differs = true;
    file_classes = theirs[0];
  }
  return any_head && differs;
}

std::string wmList(const std::vector<std::string>& names, size_t limit = 3) {
  std::string text;
  for (size_t i = 0; i < names.size() && i < limit; ++i) text += (i ? ", " : "") + names[i];
  if (names.size() > limit) text += ", …";
  return text;
}

std::string wmShape(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

[[noreturn]] void wmRefuseNothingMatches(const WeightsLoadReport& report,
                                         const std::vector<WmTarget>& targets, const NamedTensors& file,
                                         const std::string& architecture) {
  std::vector<std::string> theirs;
  std::vector<std::string> ours;
  for (const auto& [name, tensor] : file) theirs.push_back(name);
  for (const auto& target : targets) ours.push_back(target.outside);
  const bool preset = architecture.find(' ') == std::string::npos;
  throw UserError("model.weights: 0 of " + std::to_string(report.model_tensors) +
                      " tensors of the model match " + report.file +
                      (preset ? ": is this a " + architecture + " file?" : ".") + " The file's names begin " +
                      wmList(theirs) + " (" + std::to_string(file.size()) + " tensors); the model's begin " +
                      wmList(ours),
                  "give weights saved from the same architecture, or set model.weights_prefix to the prefix "
                  "the file's names carry");
}

[[noreturn]] void wmRefuseMismatch(const WeightsLoadReport& report, const std::string& architecture) {
  std::vector<std::string> parts;
  if (!report.missing.empty()) {
    parts.push_back(std::to_string(report.missing.size()) +
                    " of the model's tensors missing from the file (" + wmList(report.missing) + ")");
  }
  if (!report.unexpected.empty()) {
    parts.push_back(std::to_string(report.unexpected.size()) + " of the file's not in the model (" +
                    wmList(report.unexpected) + ")");
  }
  if (!report.mismatched.empty()) {
    const WeightsShapeMismatch& m = report.mismatched.front();
    parts.push_back(std::to_string(report.mismatched.size()) + " of another shape (" + m.name +
                    ": the model's " + wmShape(m.ours) + ", the file's " + wmShape(m.file) +
                    (report.mismatched.size() > 1 ? ", …)" : ")"));
  }
  std::string what;
  for (size_t i = 0; i < parts.size(); ++i) what += (i ? "; " : "") + parts[i];
  // Most of the model unmatched: more likely a file of another architecture than a damaged one.
  const bool preset = architecture.find(' ') == std::string::npos;
  if (preset && static_cast<int64_t>(report.loaded.size()) * 2 < report.model_tensors) {
    what = "only " + std::to_string(report.loaded.size()) + " of " + std::to_string(report.model_tensors) +
           " tensors fit: is this a " + architecture + " file? " + what;
  }
  throw UserError(
      "model.weights: " + report.file + " does not fit " + architecture + ": " + what,
      "give weights of this architecture, or set model.weights_mismatch to \"skip\" to load the " +
          std::to_string(report.loaded.size()) +
          " tensors that fit and keep the rest as initialized (each listed in the report)");
}

// Float tensors of another dtype are converted; one note per conversion ("float16 → float32: 62 tensors").
void wmNoteConversions(const std::vector<std::pair<torch::Tensor, torch::Tensor>>& copies,
                       WeightsLoadReport& report) {
  std::map<std::string, int64_t> counts;
  for (const auto& [target, source] : copies) {
    if (source.scalar_type() == target.scalar_type()) continue;
    counts[std::string(c10::toString(source.scalar_type())) + " → " + c10::toString(target.scalar_type())]++;
  }
  for (const auto& [what, count] : counts)
    report.notes.push_back("converted " + what + " (" + std::to_string(count) + " tensors)");
}

}  // namespace

WeightsLoadReport loadModelWeights(Model& model, const ModelWeightsSource& source, const ModelConfig& config,
                                   const std::string& architecture) {
  const NamedTensors& file = source.contents.tensors;
  const std::vector<WmTarget> targets = wmTargets(model);
  WeightsLoadReport report;
  report.weights = source.weights;
  report.file = source.file;
  report.format = source.format;
  report.notes = source.contents.notes;
  report.model_tensors = static_cast<int64_t>(targets.size());
  report.file_tensors = static_cast<int64_t>(file.size());
  const WmNaming naming = wmChooseNaming(targets, file, config.weights_prefix, model.baseModelPrefix());
  report.prefix = naming.prefix;
  report.prefix_detected = config.weights_prefix.empty() && !report.prefix.empty();
  if (naming.timm) report.notes.push_back("timm's names (blocks.N.attn.qkv, …) read as torchvision's");
  if (!naming.base.empty()) {
    report.notes.push_back("a base model's names, read with the classifier's prefix \"" + naming.base + "\"");
  }
  if (!config.weights_prefix.empty() && std::none_of(file.begin(), file.end(), [&](const auto& entry) {
        return entry.first.rfind(config.weights_prefix, 0) == 0;
      })) {
    throw UserError(
        "model.weights_prefix: no tensor in " + source.file + " has a name that starts with \"" +
            config.weights_prefix + "\" (the first is " +
            (file.empty() ? std::string("none") : file.front().first) + ")",
        "give the prefix the file's names carry, or leave model.weights_prefix empty to detect it");
  }
  const std::map<std::string, size_t> index = wmIndex(file, naming);
  const bool new_head = wmHeadIsNew(targets, index, file, report.file_head_classes);
  std::vector<bool> used(file.size(), false);
  std::vector<std::pair<torch::Tensor, torch::Tensor>> copies;
  for (const auto& target : targets) {
    const size_t i = wmFind(index, target);
    if (i != kWmNone) used[i] = true;
    if (target.head && new_head) {
      report.new_head.push_back(target.outside);
      if (report.head_classes == 0 && target.tensor.dim() > 0) report.head_classes = target.tensor.size(0);
    } else if (i == kWmNone) {
      report.missing.push_back(target.outside);
    } else if (file[i].second.sizes() != target.tensor.sizes()) {
      report.mismatched.push_back(
          {target.outside, target.tensor.sizes().vec(), file[i].second.sizes().vec()});
    } else {
      report.loaded.push_back(target.outside);
      copies.emplace_back(target.tensor, file[i].second);
    }
  }
  for (size_t i = 0; i < file.size(); ++i)
    if (!used[i]) report.unexpected.push_back(file[i].first);
  if (report.loaded.empty()) wmRefuseNothingMatches(report, targets, file, architecture);
  const bool misfit = !report.missing.empty() || !report.unexpected.empty() || !report.mismatched.empty();
  if (misfit && config.weights_mismatch == WeightsMismatch::Refuse) wmRefuseMismatch(report, architecture);
  wmNoteConversions(copies, report);
  torch::NoGradGuard no_grad;
  for (auto& [target, tensor] : copies) target.copy_(tensor);
  return report;
}

}  // namespace wb
