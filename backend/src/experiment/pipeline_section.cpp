// The experiment file's `train.pipeline` section: the cut of the model into stages (a list of [device,
// layers] pairs, or "balanced" with a list of devices), the micro-batches and the schedule. Only the form is
// checked here; whether a range names layers of the model is the model's business
// (pipeline/pipeline_stages.h), which knows the layers.

#include <optional>
#include <string>
#include <vector>

#include "experiment/experiment_consistency.h"
#include "experiment/experiment_schema.h"
#include "experiment/value_checks.h"
#include "workbench/did_you_mean.h"

namespace wb {
namespace {

using nlohmann::json;

const char* const kStageExample = "[[\"cpu\", \"conv1..layer2\"], [\"cpu\", \"layer3..fc\"]]";

// "cpu", "cuda" or "cuda:N": one stage runs on one device (several stages may share one).
std::string stageDeviceProblem(const json& value) {
  if (value.is_string()) {
    const std::string name = value.get<std::string>();
    if (name == "cpu" || name == "cuda") return {};
    if (name.rfind("cuda:", 0) == 0 && name.size() > 5 && name.size() < 9 &&
        name.find_first_not_of("0123456789", 5) == std::string::npos) {
      return {};
    }
  }
  std::string message =
      "expected a stage's device, \"cpu\", \"cuda\" or \"cuda:N\", got " + describeValue(value);
  if (value.is_string()) {
    const std::string suggestion = didYouMean(value.get<std::string>(), {"cpu", "cuda", "cuda:0", "cuda:1"});
    if (!suggestion.empty()) message += "; did you mean \"" + suggestion + "\"?";
  }
  return message;
}

std::optional<PipelineStageConfig> readStage(const json& value, const std::string& path, IssueList& issues) {
  if (!value.is_array() || value.size() != 2) {
    issues.add(path, "expected a stage [device, layers] such as [\"cpu\", \"conv1..layer2\"], got " +
                         describeValue(value));
    return std::nullopt;
  }
  bool valid = true;
  const std::string deviceProblem = stageDeviceProblem(value[0]);
  if (!deviceProblem.empty()) {
    issues.add(indexPath(path, 0), deviceProblem);
    valid = false;
  }
  if (!value[1].is_string() || value[1].get<std::string>().empty()) {
    issues.add(indexPath(path, 1),
               "expected the stage's layers: a top-level layer's name or index, or a range \"first..last\" "
               "such as \"conv1..layer2\" or \"0..5\", got " +
                   describeValue(value[1]));
    valid = false;
  }
  if (!valid) return std::nullopt;
  return PipelineStageConfig{value[0].get<std::string>(), value[1].get<std::string>()};
}

SchemaKey stagesKey() {
  SchemaKey key;
  key.name = "stages";
  key.kind = KeyKind::List;
  key.holdsText = true;
  key.read = [](const json& value, const std::string& path, IssueList& issues, Experiment& e) {
    PipelineConfig& pipeline = e.train.pipeline;
    if (value.is_string() && value.get<std::string>() == "balanced") {
      pipeline.balanced = true;
      pipeline.stages.clear();
      return;
    }
    if (!value.is_array()) {
      issues.add(path, std::string("expected \"balanced\" or a list of stages [device, layers] such as ") +
                           kStageExample + ", got " + describeValue(value));
      return;
    }
    std::vector<PipelineStageConfig> stages;
    bool valid = true;
    for (size_t i = 0; i < value.size(); ++i) {
      if (auto stage = readStage(value[i], indexPath(path, i), issues)) {
        stages.push_back(*stage);
      } else {
        valid = false;
      }
    }
    if (!valid) return;
    pipeline.balanced = false;
    pipeline.stages = stages;
  };
  key.write = [](const Experiment& e) {
    const PipelineConfig& pipeline = e.train.pipeline;
    if (pipeline.balanced) return json("balanced");
    json list = json::array();
    for (const PipelineStageConfig& stage : pipeline.stages) list.push_back({stage.device, stage.layers});
    return list;
  };
  return key;
}

SchemaKey stageDevicesKey() {
  SchemaKey key;
  key.name = "devices";
  key.kind = KeyKind::List;
  key.holdsText = true;
  key.read = [](const json& value, const std::string& path, IssueList& issues, Experiment& e) {
    if (!value.is_array()) {
      issues.add(path, "expected a list of devices, one stage each, such as [\"cuda:0\", \"cuda:1\"], got " +
                           describeValue(value));
      return;
    }
    std::vector<std::string> devices;
    bool valid = true;
    for (size_t i = 0; i < value.size(); ++i) {
      const std::string problem = stageDeviceProblem(value[i]);
      if (!problem.empty()) {
        issues.add(indexPath(path, i), problem);
        valid = false;
        continue;
      }
      devices.push_back(value[i].get<std::string>());
    }
    if (valid) e.train.pipeline.devices = devices;
  };
  key.write = [](const Experiment& e) { return json(e.train.pipeline.devices); };
  return key;
}

}  // namespace

SchemaKey pipelineSection() {
  SchemaKey enabled;
  enabled.name = "enabled";
  enabled.kind = KeyKind::Boolean;
  enabled.read = [](const json& value, const std::string& path, IssueList& issues, Experiment& e) {
    if (auto on = readBoolean(value, path, issues)) e.train.pipeline.enabled = *on;
  };
  enabled.write = [](const Experiment& e) { return json(e.train.pipeline.enabled); };

  SchemaKey microBatches;
  microBatches.name = "micro_batches";
  microBatches.kind = KeyKind::Integer;
  microBatches.read = [](const json& value, const std::string& path, IssueList& issues, Experiment& e) {
    if (auto n = readInteger(value, IntegerRule{1, 4096}, path, issues)) e.train.pipeline.micro_batches = *n;
  };
  microBatches.write = [](const Experiment& e) { return json(e.train.pipeline.micro_batches); };

  SchemaKey schedule;
  schedule.name = "schedule";
  schedule.kind = KeyKind::String;
  schedule.holdsText = true;
  schedule.choices = allWords<PipelineSchedule>();
  schedule.read = [](const json& value, const std::string& path, IssueList& issues, Experiment& e) {
    if (auto word = readString(value, oneOf(allWords<PipelineSchedule>()), path, issues)) {
      e.train.pipeline.schedule = *fromWord<PipelineSchedule>(*word);
    }
  };
  schedule.write = [](const Experiment& e) { return json(wordString(e.train.pipeline.schedule)); };

  SchemaKey section;
  section.name = "pipeline";
  section.kind = KeyKind::Section;
  section.switchable = true;
  section.children = {enabled, stagesKey(), stageDevicesKey(), microBatches, schedule};
  return section;
}

}  // namespace wb

namespace wb {
namespace {

// "cuda" is "cuda:0".
std::string canonicalDevice(const std::string& device) {
  return device == "cuda" ? "cuda:0" : device;
}

// The stages' devices, as the cut will have them.
std::vector<std::string> stageDevices(const PipelineConfig& pipeline) {
  if (pipeline.balanced) return pipeline.devices;
  std::vector<std::string> devices;
  for (const PipelineStageConfig& stage : pipeline.stages) devices.push_back(stage.device);
  return devices;
}

void checkCutGiven(const PipelineConfig& pipeline, IssueList& issues) {
  if (!pipeline.balanced && pipeline.stages.empty() && !issues.hasIssueAt("train.pipeline.stages")) {
    issues.add("train.pipeline.stages",
               std::string("the pipeline needs its stages: a list of [device, layers] such as ") +
                   kStageExample + ", or \"balanced\" with train.pipeline.devices");
  }
  if (pipeline.balanced && pipeline.devices.empty() && !issues.hasIssueAt("train.pipeline.devices")) {
    issues.add(
        "train.pipeline.devices",
        "\"stages\": \"balanced\" cuts the model over train.pipeline.devices, one stage each, but the list "
        "is empty: give the devices, such as [\"cuda:0\", \"cuda:1\"]");
  }
  if (!pipeline.balanced && !pipeline.stages.empty() && !pipeline.devices.empty()) {
    issues.add(
        "train.pipeline.devices",
        "train.pipeline.devices is for \"stages\": \"balanced\"; explicit stages name their own devices: "
        "remove train.pipeline.devices or set stages to \"balanced\"");
  }
}

// What the pipeline cannot be combined with (yet), each with the way out.
void checkCombinations(const Experiment& e, const std::vector<std::string>& devices, IssueList& issues) {
  const TrainConfig& train = e.train;
  if (!e.model.torchscript.empty()) {
    issues.add("train.pipeline",
               "the model is a TorchScript module (model.torchscript " + e.model.torchscript +
                   "), which has no layer list to cut into stages: give model.layers or a model.preset, or "
                   "set train.pipeline to false");
  }
  if (!e.model.huggingface.empty()) {
    issues.add("train.pipeline", "the model is a Hugging Face text model (model.huggingface " +
                                     e.model.huggingface +
                                     "), which is not cut into stages yet: set train.pipeline to false");
  }
  if (train.devices.size() > 1) {
    issues.add("train.pipeline",
               "a pipeline and data parallel (several train.devices) together are not supported yet: give "
               "train.devices one device, the first stage's");
  } else if (!devices.empty() && train.devices.size() == 1 &&
             canonicalDevice(train.devices.front()) != canonicalDevice(devices.front())) {
    issues.add("train.devices", "batches are loaded onto train.devices, which is \"" + train.devices.front() +
                                    "\", but the pipeline's first stage runs on \"" + devices.front() +
                                    "\": set train.devices to \"" + devices.front() + "\"");
  }
  if (train.pipeline.micro_batches > train.batch_size) {
    issues.add("train.pipeline.micro_batches",
               "train.pipeline.micro_batches is " + std::to_string(train.pipeline.micro_batches) +
                   " but a batch has only " + std::to_string(train.batch_size) +
                   " samples (train.batch_size): a micro-batch needs at least one; lower micro_batches");
  }
  if (train.amp == Precision::Fp16) {
    issues.add("train.amp",
               "fp16 with train.pipeline is not supported yet (the loss scaler's state lives on one device): "
               "use \"bf16\" or \"off\"");
  }
  if (train.cuda_graphs == AutoSwitch::On) {
    issues.add(
        "train.cuda_graphs",
        "a pipeline's step runs on several threads and streams, which one CUDA graph cannot capture: set "
        "train.cuda_graphs to \"off\" or \"auto\"");
  }
}

}  // namespace

void checkPipelineConsistency(const Experiment& e, IssueList& issues) {
  const PipelineConfig& pipeline = e.train.pipeline;
  if (!pipeline.enabled) return;
  checkCutGiven(pipeline, issues);
  checkCombinations(e, stageDevices(pipeline), issues);
}

}  // namespace wb
