#include "experiment/experiment_schema.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <set>
#include <type_traits>
#include <utility>

#include "experiment/value_checks.h"
#include "workbench/did_you_mean.h"

namespace wb {
namespace {

using nlohmann::json;

using ReadFunction = std::function<void(const json&, const std::string&, IssueList&, Experiment&)>;
using WriteFunction = std::function<json(const Experiment&)>;

// The field of Experiment a key is stored in, as an accessor that works on a const experiment (for writing
// the file) and a mutable one (for reading it), so each key names its field once.
#define WB_FIELD(member) \
  [](auto& e) -> auto& { \
    return e.member;     \
  }

SchemaKey leafKey(const char* name, KeyKind kind, ReadFunction read, WriteFunction write) {
  SchemaKey key;
  key.name = name;
  key.kind = kind;
  key.read = std::move(read);
  key.write = std::move(write);
  return key;
}

SchemaKey sectionKey(const char* name, std::vector<SchemaKey> children, bool switchable = false) {
  SchemaKey key;
  key.name = name;
  key.kind = KeyKind::Section;
  key.children = std::move(children);
  key.switchable = switchable;
  return key;
}

// The key matters only while the word key at `path` holds one of `values` (when), or none of them (unless).
// The values are the enum's, so a condition cannot name a word the key does not have.
template <typename E>
std::vector<std::string> wordsOf(std::initializer_list<E> values) {
  std::vector<std::string> words;
  for (E value : values) words.push_back(wordString(value));
  return words;
}
template <typename E>
SchemaKey when(const char* path, std::initializer_list<E> values, SchemaKey key) {
  key.appliesWhen = KeyCondition{path, wordsOf(values), false};
  return key;
}
template <typename E>
SchemaKey unless(const char* path, std::initializer_list<E> values, SchemaKey key) {
  key.appliesWhen = KeyCondition{path, wordsOf(values), true};
  return key;
}

template <typename Access>
SchemaKey booleanKey(const char* name, Access field) {
  return leafKey(
      name, KeyKind::Boolean,
      [field](const json& value, const std::string& path, IssueList& issues, Experiment& e) {
        if (auto result = readBoolean(value, path, issues)) field(e) = *result;
      },
      [field](const Experiment& e) { return json(field(e)); });
}

template <typename Access>
SchemaKey integerKey(const char* name, IntegerRule rule, Access field) {
  return leafKey(
      name, KeyKind::Integer,
      [field, rule](const json& value, const std::string& path, IssueList& issues, Experiment& e) {
        if (auto result = readInteger(value, rule, path, issues)) field(e) = *result;
      },
      [field](const Experiment& e) { return json(field(e)); });
}

template <typename Access>
SchemaKey numberKey(const char* name, NumberRule rule, Access field) {
  return leafKey(
      name, KeyKind::Number,
      [field, rule](const json& value, const std::string& path, IssueList& issues, Experiment& e) {
        if (auto result = readNumber(value, rule, path, issues)) field(e) = *result;
      },
      [field](const Experiment& e) { return json(field(e)); });
}

template <typename Access>
SchemaKey stringKey(const char* name, StringRule rule, Access field) {
  SchemaKey key = leafKey(
      name, KeyKind::String,
      [field, rule](const json& value, const std::string& path, IssueList& issues, Experiment& e) {
        if (auto result = readString(value, rule, path, issues)) field(e) = *result;
      },
      [field](const Experiment& e) { return json(field(e)); });
  key.holdsText = true;
  key.choices = rule.choices;
  return key;
}

// A key whose value is one word of a fixed set (workbench/word_set.h): the choices come from the enum's
// table, the field holds the value, the file the word.
template <typename Access>
SchemaKey wordKey(const char* name, Access field) {
  using Value = std::remove_reference_t<decltype(field(std::declval<Experiment&>()))>;
  const StringRule rule = oneOf(allWords<Value>());
  SchemaKey key = leafKey(
      name, KeyKind::String,
      [field, rule](const json& value, const std::string& path, IssueList& issues, Experiment& e) {
        if (auto result = readString(value, rule, path, issues)) field(e) = *fromWord<Value>(*result);
      },
      [field](const Experiment& e) { return json(wordString(field(e))); });
  key.holdsText = true;
  key.choices = rule.choices;
  return key;
}

struct IntegerListRule {
  IntegerRule element;
  size_t minItems = 0;
  size_t maxItems = SIZE_MAX;
  bool increasing = false;  // strictly
  std::string expected;     // the whole list in words
};

std::optional<std::vector<int64_t>> readIntegerList(const json& value, const IntegerListRule& rule,
                                                    const std::string& path, IssueList& issues) {
  if (!value.is_array() || value.size() < rule.minItems || value.size() > rule.maxItems) {
    issues.add(path, "expected " + rule.expected + ", got " + describeValue(value));
    return std::nullopt;
  }
  std::vector<int64_t> result;
  bool valid = true;
  for (size_t i = 0; i < value.size(); ++i) {
    const std::string itemPath = indexPath(path, i);
    const std::optional<int64_t> item = readInteger(value[i], rule.element, itemPath, issues);
    if (!item) {
      valid = false;
      continue;
    }
    if (rule.increasing && !result.empty() && *item <= result.back()) {
      issues.add(itemPath, "expected a value greater than the one before it (" +
                               std::to_string(result.back()) + "), got " + std::to_string(*item) +
                               ": the list must be strictly increasing");
      valid = false;
    }
    result.push_back(*item);
  }
  if (!valid) return std::nullopt;
  return result;
}

template <typename Access>
SchemaKey integerListKey(const char* name, IntegerListRule rule, Access field) {
  return leafKey(
      name, KeyKind::List,
      [field, rule](const json& value, const std::string& path, IssueList& issues, Experiment& e) {
        if (auto result = readIntegerList(value, rule, path, issues)) field(e) = *result;
      },
      [field](const Experiment& e) { return json(field(e)); });
}

SchemaKey seedKey() {
  return leafKey(
      "seed", KeyKind::Integer,
      [](const json& value, const std::string& path, IssueList& issues, Experiment& e) {
        if (auto result = readUnsigned(value, path, issues)) e.seed = *result;
      },
      [](const Experiment& e) { return json(e.seed); });
}

// Adam's two averaging constants travel as one pair, as in PyTorch's `betas=(0.9, 0.999)`.
SchemaKey betasKey() {
  return leafKey(
      "betas", KeyKind::List,
      [](const json& value, const std::string& path, IssueList& issues, Experiment& e) {
        if (!value.is_array() || value.size() != 2) {
          issues.add(path,
                     "expected two numbers in [0, 1) such as [0.9, 0.999], got " + describeValue(value));
          return;
        }
        const NumberRule rule = numberIn(0.0, true, 1.0, false);
        const std::optional<double> beta1 = readNumber(value[0], rule, indexPath(path, 0), issues);
        const std::optional<double> beta2 = readNumber(value[1], rule, indexPath(path, 1), issues);
        if (beta1 && beta2) {
          e.optimizer.beta1 = *beta1;
          e.optimizer.beta2 = *beta2;
        }
      },
      [](const Experiment& e) {
        return json::array({e.optimizer.beta1, e.optimizer.beta2});
      });
}

// "cpu:N" asks for N CPU ranks; more than this is a typo, not a machine.
constexpr int64_t kMaxCpuRanks = 1024;

// The digits after `prefix` ("cuda:" or "cpu:"), when `name` is the prefix followed by 1 to 4 digits.
std::optional<int64_t> indexAfter(const std::string& name, const std::string& prefix) {
  if (name.size() <= prefix.size() || name.size() > prefix.size() + 4 ||
      name.compare(0, prefix.size(), prefix) != 0) {
    return std::nullopt;
  }
  const bool digits = std::all_of(name.begin() + static_cast<std::ptrdiff_t>(prefix.size()), name.end(),
                                  [](char c) { return c >= '0' && c <= '9'; });
  if (!digits) return std::nullopt;
  return std::stoll(name.substr(prefix.size()));
}

bool isDeviceName(const std::string& name) {
  if (name == "cpu" || name == "cuda" || indexAfter(name, "cuda:")) return true;
  const std::optional<int64_t> ranks = indexAfter(name, "cpu:");
  return ranks && *ranks >= 1 && *ranks <= kMaxCpuRanks;
}

// "gpu", "GPU:1" and "cuda1" are what people type for CUDA devices; plain edit distance would offer "cpu".
std::string suggestDevice(const std::string& name) {
  std::string lower;
  for (char c : name) {
    if (c != ' ') lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (lower.compare(0, 3, "gpu") == 0) lower = "cuda" + lower.substr(3);
  if (lower.size() > 4 && lower.compare(0, 4, "cuda") == 0 && lower[4] != ':') {
    lower = "cuda:" + lower.substr(4);
  }
  if (lower.size() > 3 && lower.compare(0, 3, "cpu") == 0 && lower[3] != ':') {
    lower = "cpu:" + lower.substr(3);
  }
  if (isDeviceName(lower)) return lower;
  return didYouMean(name, {"cpu", "cuda"});
}

// What is wrong with one entry of train.devices, or "" when it names a device.
std::string deviceEntryProblem(const json& entry) {
  if (entry.is_string()) {
    const std::string name = entry.get<std::string>();
    if (isDeviceName(name)) return {};
    const std::optional<int64_t> ranks = indexAfter(name, "cpu:");
    if (ranks) {
      return "expected \"cpu:N\" with N in [1, " + std::to_string(kMaxCpuRanks) + "] (N CPU ranks), got " +
             describeValue(entry) + (*ranks == 0 ? "; for one CPU rank write \"cpu\"" : "");
    }
  }
  std::string message =
      "expected \"cpu\", \"cpu:N\" (N CPU ranks), \"cuda\" or \"cuda:N\" (N = 0, 1, ...), got " +
      describeValue(entry);
  if (entry.is_string()) {
    const std::string suggestion = suggestDevice(entry.get<std::string>());
    if (!suggestion.empty()) message += "; did you mean \"" + suggestion + "\"?";
  }
  return message;
}

// Each entry is one data-parallel rank. "cpu:N" stands for N "cpu" entries, so the experiment (and the file
// written from it) holds the expanded list. A CUDA device names hardware and is listed once ("cuda" is
// "cuda:0"); the CPU may be listed as often as it should have ranks.
SchemaKey devicesKey() {
  SchemaKey key = leafKey(
      "devices", KeyKind::List,
      [](const json& value, const std::string& path, IssueList& issues, Experiment& e) {
        const std::string expected =
            "a device (\"cpu\", \"cpu:N\", \"cuda\" or \"cuda:N\") or a list of them";
        const json list = value.is_string() ? json::array({value}) : value;
        if (!list.is_array() || list.empty()) {
          issues.add(path, "expected " + expected + ", got " + describeValue(value));
          return;
        }
        std::vector<std::string> devices;
        std::set<int64_t> cudaSeen;
        bool valid = true;
        for (size_t i = 0; i < list.size(); ++i) {
          const std::string itemPath = value.is_string() ? path : indexPath(path, i);
          const std::string problem = deviceEntryProblem(list[i]);
          if (!problem.empty()) {
            issues.add(itemPath, problem);
            valid = false;
            continue;
          }
          const std::string device = list[i].get<std::string>();
          if (const std::optional<int64_t> ranks = indexAfter(device, "cpu:")) {
            devices.insert(devices.end(), static_cast<size_t>(*ranks), "cpu");
            continue;
          }
          if (device != "cpu") {
            const int64_t index = device == "cuda" ? 0 : *indexAfter(device, "cuda:");
            if (!cudaSeen.insert(index).second) {
              const std::string canonical = "cuda:" + std::to_string(index);
              issues.add(itemPath, "\"" + device + "\" is listed twice" +
                                       (device == canonical ? "" : " (it is " + canonical + ")") +
                                       ": each CUDA device runs one rank, name it once");
              valid = false;
            }
          }
          devices.push_back(device);
        }
        if (valid) e.train.devices = devices;
      },
      [](const Experiment& e) { return json(e.train.devices); });
  key.holdsText = true;
  return key;
}

// A number with a unit, whose range message says the unit ("a number of seconds in [1, 86400]"). A value of
// the wrong type gets the common message (with its hint about quotes).
template <typename Access>
SchemaKey measureKey(const char* name, NumberRule rule, std::string expected, Access field) {
  return leafKey(
      name, KeyKind::Number,
      [field, rule, expected](const json& value, const std::string& path, IssueList& issues, Experiment& e) {
        if (value.is_number()) {
          const double number = value.get<double>();
          const bool aboveLow = rule.lowInclusive ? number >= rule.low : number > rule.low;
          const bool belowHigh = rule.highInclusive ? number <= rule.high : number < rule.high;
          if (!std::isfinite(number) || !aboveLow || !belowHigh) {
            issues.add(path, "expected " + expected + ", got " + describeValue(value));
            return;
          }
        }
        if (auto result = readNumber(value, rule, path, issues)) field(e) = *result;
      },
      [field](const Experiment& e) { return json(field(e)); });
}

// Only the outline is checked here; what each layer needs, and whether the list fits the data, is the model
// module's business (checkLayers), which knows the layer types.
SchemaKey layersKey() {
  return leafKey(
      "layers", KeyKind::Layers,
      [](const json& value, const std::string& path, IssueList& issues, Experiment& e) {
        if (value.is_null()) {
          e.model.layers = nullptr;
          return;
        }
        if (!holdsValidUtf8(value)) {
          issues.add(path, "expected text in UTF-8, got a layer list holding other bytes");
          return;
        }
        if (!value.is_array() || value.empty()) {
          issues.add(path,
                     "expected a list of layers such as [{\"type\": \"flatten\"}, {\"type\": \"linear\", "
                     "\"out_features\": 10}], got " +
                         describeValue(value));
          return;
        }
        bool valid = true;
        for (size_t i = 0; i < value.size(); ++i) {
          const json& layer = value[i];
          const std::string layerPath = indexPath(path, i);
          if (!layer.is_object()) {
            issues.add(layerPath,
                       "expected a layer object such as {\"type\": \"relu\"}, got " + describeValue(layer));
            valid = false;
          } else if (!layer.contains("type")) {
            issues.add(layerPath,
                       "a layer needs a \"type\" (such as \"linear\" or \"conv2d\"), got an object "
                       "without one");
            valid = false;
          } else if (!layer["type"].is_string()) {
            issues.add(joinPath(layerPath, "type"),
                       "expected a layer type name (a string such as \"linear\"), got " +
                           describeValue(layer["type"]));
            valid = false;
          }
        }
        if (valid) e.model.layers = value;
      },
      [](const Experiment& e) { return e.model.layers; });
}

// The schema reads best as a table, one key a line.
// clang-format off
// Number ranges used by several keys.
const NumberRule kFraction = numberIn(0.0, true, 1.0, false);       // [0, 1)
const NumberRule kOpenFraction = numberIn(0.0, false, 1.0, false);  // (0, 1)
// The keys that decide which others matter.
const char* const kDataset = "data.dataset";
const char* const kOptimizer = "optimizer.name";
const char* const kSchedule = "schedule.name";

SchemaKey dataSection() {
  IntegerListRule shape;
  shape.element = atLeast(1);
  shape.minItems = 1;
  shape.maxItems = 3;
  shape.expected = "1 to 3 positive integers ([channels, height, width] or [features])";

  return sectionKey("data", {
    wordKey("dataset", WB_FIELD(data.dataset)),
    unless(kDataset, {DatasetName::Synthetic}, stringKey("path", StringRule{}, WB_FIELD(data.path))),
    integerKey("limit", atLeast(0), WB_FIELD(data.limit)),
    numberKey("val_fraction", kFraction, WB_FIELD(data.val_fraction)),
    unless(kDataset, {DatasetName::Csv, DatasetName::Text}, sectionKey("augment", {
      booleanKey("enabled", WB_FIELD(data.augment_enabled)),
      unless(kDataset, {DatasetName::ImageFolder}, booleanKey("random_crop", WB_FIELD(data.augment.random_crop))),
      unless(kDataset, {DatasetName::ImageFolder}, integerKey("crop_padding", atLeast(0), WB_FIELD(data.augment.crop_padding))),
      when(kDataset, {DatasetName::ImageFolder}, booleanKey("random_resized_crop", WB_FIELD(data.augment.random_resized_crop))),
      booleanKey("horizontal_flip", WB_FIELD(data.augment.horizontal_flip)),
    }, /*switchable=*/true)),
    integerKey("prefetch", atLeast(1), WB_FIELD(data.prefetch)),
    when(kDataset, {DatasetName::ImageFolder, DatasetName::Text}, integerKey("workers", atLeast(0), WB_FIELD(data.workers))),
    when(kDataset, {DatasetName::ImageFolder}, wordKey("augment_on", WB_FIELD(data.augment_on))),
    when(kDataset, {DatasetName::ImageFolder}, sectionKey("images", {
      integerKey("resize", atLeast(0), WB_FIELD(data.images.resize)),
      integerKey("crop", atLeast(0), WB_FIELD(data.images.crop)),
      integerKey("channels", IntegerRule{1, 3}, WB_FIELD(data.images.channels)),
      wordKey("bad_files", WB_FIELD(data.images.bad_files)),
      wordKey("normalize", WB_FIELD(data.images.normalize)),
      booleanKey("jpeg_draft", WB_FIELD(data.images.jpeg_draft)),
    })),
    when(kDataset, {DatasetName::Csv}, stringKey("label_column", nonEmptyString(), WB_FIELD(data.label_column))),
    when(kDataset, {DatasetName::Text}, sectionKey("text", {
      stringKey("text_column", nonEmptyString(), WB_FIELD(data.text.text_column)),
      stringKey("text_pair_column", StringRule{}, WB_FIELD(data.text.text_pair_column)),
      stringKey("label_column", nonEmptyString(), WB_FIELD(data.text.label_column)),
      stringKey("tokenizer", StringRule{}, WB_FIELD(data.text.tokenizer)),
      integerKey("max_length", atLeast(2), WB_FIELD(data.text.max_length)),
      booleanKey("bucket_by_length", WB_FIELD(data.text.bucket_by_length)),
      wordKey("bad_rows", WB_FIELD(data.text.bad_rows)),
    })),
    when(kDataset, {DatasetName::Csv, DatasetName::ImageFolder, DatasetName::Text}, stringKey("test_path", StringRule{}, WB_FIELD(data.test_path))),
    when(kDataset, {DatasetName::Csv, DatasetName::ImageFolder, DatasetName::Text}, numberKey("test_fraction", kFraction, WB_FIELD(data.test_fraction))),
    when(kDataset, {DatasetName::Synthetic}, sectionKey("synthetic", {
      integerKey("samples", atLeast(1), WB_FIELD(data.synthetic_samples)),
      integerKey("classes", atLeast(2), WB_FIELD(data.synthetic_classes)),
      integerListKey("shape", shape, WB_FIELD(data.synthetic_shape)),
    })),
  });
}

SchemaKey modelSection() {
  StringRule preset = oneOf(allWords<ModelPreset>());
  preset.allowEmpty = true;  // empty when model.layers or model.torchscript says what the model is

  return sectionKey("model", {
    stringKey("preset", preset, WB_FIELD(model.preset)),
    layersKey(),
    stringKey("torchscript", StringRule{}, WB_FIELD(model.torchscript)),
    stringKey("huggingface", StringRule{}, WB_FIELD(model.huggingface)),
    stringKey("weights", StringRule{}, WB_FIELD(model.weights)),
    stringKey("weights_prefix", StringRule{}, WB_FIELD(model.weights_prefix)),
    wordKey("weights_mismatch", WB_FIELD(model.weights_mismatch)),
    freezeKey(),
    unfreezeSection(),
  });
}

SchemaKey optimizerSection() {
  return sectionKey("optimizer", {
    wordKey("name", WB_FIELD(optimizer.name)),
    numberKey("lr", positiveNumber(), WB_FIELD(optimizer.lr)),
    numberKey("weight_decay", nonNegativeNumber(), WB_FIELD(optimizer.weight_decay)),
    when(kOptimizer, {OptimizerName::Sgd, OptimizerName::RmsProp},
         numberKey("momentum", nonNegativeNumber(), WB_FIELD(optimizer.momentum))),
    when(kOptimizer, {OptimizerName::Sgd}, booleanKey("nesterov", WB_FIELD(optimizer.nesterov))),
    when(kOptimizer, {OptimizerName::Adam, OptimizerName::AdamW}, betasKey()),
    unless(kOptimizer, {OptimizerName::Sgd}, numberKey("eps", positiveNumber(), WB_FIELD(optimizer.eps))),
    when(kOptimizer, {OptimizerName::RmsProp}, numberKey("alpha", kFraction, WB_FIELD(optimizer.alpha))),
    booleanKey("decay_bias_and_norm", WB_FIELD(optimizer.decay_bias_and_norm)),
    booleanKey("fused", WB_FIELD(optimizer.fused)),
    paramGroupsKey(),
  });
}

SchemaKey scheduleSection() {
  IntegerListRule milestones;
  milestones.element = atLeast(1);
  milestones.increasing = true;
  milestones.expected = "a list of positive step numbers in increasing order, such as [3000, 6000]";

  return sectionKey("schedule", {
    wordKey("name", WB_FIELD(schedule.name)),
    integerKey("warmup_steps", atLeast(0), WB_FIELD(schedule.warmup_steps)),
    unless(kSchedule, {ScheduleName::Linear}, numberKey("warmup_start_factor", numberIn(0.0, false, 1.0, true), WB_FIELD(schedule.warmup_start_factor))),
    when(kSchedule, {ScheduleName::Step}, integerKey("step_size", atLeast(1), WB_FIELD(schedule.step_size))),
    when(kSchedule, {ScheduleName::MultiStep}, integerListKey("milestones", milestones, WB_FIELD(schedule.milestones))),
    when(kSchedule, {ScheduleName::Step, ScheduleName::MultiStep, ScheduleName::Exponential},
         numberKey("gamma", positiveNumber(), WB_FIELD(schedule.gamma))),
    when(kSchedule, {ScheduleName::Cosine}, integerKey("t_max", atLeast(0), WB_FIELD(schedule.t_max))),
    when(kSchedule, {ScheduleName::Cosine}, numberKey("eta_min", nonNegativeNumber(), WB_FIELD(schedule.eta_min))),
    when(kSchedule, {ScheduleName::OneCycle}, numberKey("pct_start", kOpenFraction, WB_FIELD(schedule.pct_start))),
    when(kSchedule, {ScheduleName::OneCycle},
         wordKey("anneal_strategy", WB_FIELD(schedule.anneal_strategy))),
    when(kSchedule, {ScheduleName::OneCycle}, numberKey("div_factor", positiveNumber(), WB_FIELD(schedule.div_factor))),
    when(kSchedule, {ScheduleName::OneCycle},
         numberKey("final_div_factor", positiveNumber(), WB_FIELD(schedule.final_div_factor))),
    when(kSchedule, {ScheduleName::OneCycle}, booleanKey("three_phase", WB_FIELD(schedule.three_phase))),
    when(kSchedule, {ScheduleName::Plateau}, wordKey("mode", WB_FIELD(schedule.plateau_mode))),
    when(kSchedule, {ScheduleName::Plateau}, numberKey("factor", kOpenFraction, WB_FIELD(schedule.factor))),
    when(kSchedule, {ScheduleName::Plateau}, integerKey("patience", atLeast(0), WB_FIELD(schedule.patience))),
    when(kSchedule, {ScheduleName::Plateau}, numberKey("threshold", nonNegativeNumber(), WB_FIELD(schedule.threshold))),
    when(kSchedule, {ScheduleName::Plateau},
         wordKey("threshold_mode", WB_FIELD(schedule.threshold_mode))),
    when(kSchedule, {ScheduleName::Plateau}, integerKey("cooldown", atLeast(0), WB_FIELD(schedule.cooldown))),
    when(kSchedule, {ScheduleName::Plateau}, numberKey("min_lr", nonNegativeNumber(), WB_FIELD(schedule.min_lr))),
  });
}

SchemaKey trainSection() {
  return sectionKey("train", {
    // Bounded where a larger value would overflow what it becomes: epochs x steps an epoch (int64 steps),
    // threads (int for LibTorch and OpenBLAS), minutes (the nanosecond clock of the checkpoint timer).
    integerKey("epochs", IntegerRule{0, 1000000}, WB_FIELD(train.epochs)),
    integerKey("max_steps", atLeast(0), WB_FIELD(train.max_steps)),
    integerKey("batch_size", atLeast(1), WB_FIELD(train.batch_size)),
    integerKey("grad_accum", atLeast(1), WB_FIELD(train.grad_accum)),
    numberKey("clip_grad_norm", nonNegativeNumber(), WB_FIELD(train.clip_grad_norm)),
    wordKey("amp", WB_FIELD(train.amp)),
    devicesKey(),
    measureKey("bucket_mb", numberIn(0.0, false, 1024.0, true),
               "a number of megabytes in (0, 1024] (gradients allreduced together)",
               WB_FIELD(train.bucket_mb)),
    booleanKey("sync_batchnorm", WB_FIELD(train.sync_batchnorm)),
    wordKey("shard", WB_FIELD(train.shard)),
    measureKey("collective_timeout", numberIn(1.0, true, 86400.0, true),
               "a number of seconds in [1, 86400] (one second to one day)",
               WB_FIELD(train.collective_timeout)),
    integerKey("threads", IntegerRule{0, 4096}, WB_FIELD(train.threads)),
    integerKey("blas_threads", IntegerRule{0, 4096}, WB_FIELD(train.blas_threads)),
    booleanKey("cudnn_benchmark", WB_FIELD(train.cudnn_benchmark)),
    booleanKey("tf32", WB_FIELD(train.tf32)),
    booleanKey("channels_last", WB_FIELD(train.channels_last)),
    booleanKey("pinned_memory", WB_FIELD(train.pinned_memory)),
    wordKey("data_on_device", WB_FIELD(train.data_on_device)),
    wordKey("cuda_graphs", WB_FIELD(train.cuda_graphs)),
    integerKey("eval_every_epochs", atLeast(1), WB_FIELD(train.eval_every_epochs)),
    integerKey("log_every_steps", atLeast(1), WB_FIELD(train.log_every_steps)),
    integerKey("checkpoint_every_steps", atLeast(0), WB_FIELD(train.checkpoint_every_steps)),
    measureKey("checkpoint_every_minutes", numberIn(0.0, true, 525600.0, true),
               "a number of minutes in [0, 525600] (0 = off; at most a year)",
               WB_FIELD(train.checkpoint_every_minutes)),
    integerKey("keep_checkpoints", atLeast(1), WB_FIELD(train.keep_checkpoints)),
    sectionKey("early_stopping", {
      booleanKey("enabled", WB_FIELD(train.early_stopping.enabled)),
      wordKey("metric", WB_FIELD(train.early_stopping.metric)),
      integerKey("patience", atLeast(1), WB_FIELD(train.early_stopping.patience)),
      numberKey("min_delta", nonNegativeNumber(), WB_FIELD(train.early_stopping.min_delta)),
    }, /*switchable=*/true),
    pipelineSection(),
  });
}

// Top-level keys in the order the written file lists them.
SchemaKey buildSchema() {
  return sectionKey("", {
    stringKey("name", StringRule(), WB_FIELD(name)),  // "" = named after the model and the data
    seedKey(),
    wordKey("task", WB_FIELD(task)),
    dataSection(),
    modelSection(),
    optimizerSection(),
    scheduleSection(),
    trainSection(),
    compressSection(),
    sectionKey("output", {stringKey("runs_dir", nonEmptyString(), WB_FIELD(output.runs_dir))}),
  });
}

// clang-format on

#undef WB_FIELD

}  // namespace

const SchemaKey* SchemaKey::child(const std::string& childName) const {
  for (const SchemaKey& key : children) {
    if (key.name == childName) return &key;
  }
  return nullptr;
}

std::vector<std::string> SchemaKey::childNames() const {
  std::vector<std::string> names;
  for (const SchemaKey& key : children) names.push_back(key.name);
  return names;
}

const SchemaKey& experimentSchema() {
  static const SchemaKey root = buildSchema();
  return root;
}

std::string joinPath(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string indexPath(const std::string& parent, size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

std::string unknownKeyMessage(const std::string& key, const SchemaKey& section,
                              const std::string& sectionPath) {
  const std::vector<std::string> names = section.childNames();
  const std::string suggestion = didYouMean(key, names);
  if (!suggestion.empty()) return "unknown key \"" + key + "\"; did you mean \"" + suggestion + "\"?";
  const std::string where = sectionPath.empty() ? "at the top level" : "in " + sectionPath;
  return "unknown key \"" + key + "\"; the keys " + where + " are " + quotedList(names, " and ");
}

}  // namespace wb
