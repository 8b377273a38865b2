#include "pipeline/pipeline_stages.h"

#include <algorithm>
#include <optional>

#include "model/layer_list.h"
#include "pipeline/pipeline_cut.h"
#include "workbench/did_you_mean.h"
#include "workbench/errors.h"

namespace wb {
namespace {

const char* const kStagesHint =
    "write train.pipeline.stages as [[device, \"first..last\"], ...] covering every top-level layer once, in "
    "order (`workbench-cli check` lists the layers' names and indices), or set stages to \"balanced\"";

bool isIndex(const std::string& text) {
  return !text.empty() && text.size() < 10 && text.find_first_not_of("0123456789") == std::string::npos;
}

bool nameMatches(const Layer& layer, const std::string& name) {
  const auto& own = layer.naming().name;
  return own && (*own == name || own->rfind(name + ".", 0) == 0);
}

// "layer1.0 (model.layers[4])", "relu (model.layers[5])".
std::string describeLayer(const std::vector<LayerPtr>& layers, size_t i) {
  const Layer& layer = *layers[i];
  const std::string what = layer.naming().name ? *layer.naming().name : layer.type();
  return what + " (model.layers[" + std::to_string(i) + "])";
}

std::string describeRange(const std::vector<LayerPtr>& layers, size_t begin, size_t end) {
  if (end - begin == 1) return describeLayer(layers, begin);
  return describeLayer(layers, begin) + " to " + describeLayer(layers, end - 1);
}

// The names a range may use: every layer's name and each of its dotted prefixes ("layer1" of "layer1.0").
std::vector<std::string> candidateNames(const std::vector<LayerPtr>& layers) {
  std::vector<std::string> names;
  for (const LayerPtr& layer : layers) {
    if (!layer->naming().name) continue;
    const std::string& name = *layer->naming().name;
    for (size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', dot + 1))
      names.push_back(name.substr(0, dot));
    names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

class RangeReader {
 public:
  RangeReader(const std::vector<LayerPtr>& layers, std::vector<std::string>& problems)
      : m_layers(layers), m_problems(problems) {}

  // [begin, end) of `text` at `path`, or nullopt with its problems added.
  std::optional<std::pair<size_t, size_t>> read(const std::string& text, const std::string& path) {
    const size_t dots = text.find("..");
    const std::string first = dots == std::string::npos ? text : text.substr(0, dots);
    const std::string last = dots == std::string::npos ? text : text.substr(dots + 2);
    const std::optional<size_t> begin = end(first, path, /*last=*/false);
    const std::optional<size_t> stop = end(last, path, /*last=*/true);
    if (!begin || !stop) return std::nullopt;
    if (*stop <= *begin) {
      m_problems.push_back(path + ": \"" + text + "\" runs backwards: \"" + first + "\" starts at " +
                           describeLayer(m_layers, *begin) + ", after \"" + last + "\" ends at " +
                           describeLayer(m_layers, *stop - 1) + "; write the earlier layer first");
      return std::nullopt;
    }
    return std::make_pair(*begin, *stop);
  }

 private:
  // The first layer an end names, or one past the last (with the unnamed layers after it) for the range's
  // end.
  std::optional<size_t> end(const std::string& word, const std::string& path, bool last) {
    const size_t n = m_layers.size();
    if (isIndex(word)) {
      const size_t index = std::stoul(word);
      if (index < n) return last ? index + 1 : index;
      m_problems.push_back(path + ": layer index " + word + " is past the model's last top-level layer, " +
                           describeLayer(m_layers, n - 1));
      return std::nullopt;
    }
    std::optional<size_t> found;
    for (size_t i = 0; i < n; ++i) {
      if (!nameMatches(*m_layers[i], word)) continue;
      found = i;
      if (!last) break;
    }
    if (!found) {
      const std::vector<std::string> names = candidateNames(m_layers);
      const std::string suggestion = didYouMean(word, names);
      std::string message = path + ": no top-level layer is named \"" + word + "\"";
      if (!suggestion.empty()) {
        message += "; did you mean \"" + suggestion + "\"?";
      } else if (names.empty()) {
        message += "; this model's layers have no names: give indices, such as \"0.." +
                   std::to_string(n / 2 - (n > 1 ? 1 : 0)) + "\"";
      }
      m_problems.push_back(message);
      return std::nullopt;
    }
    if (!last) return found;
    size_t stop = *found + 1;
    while (stop < n && !m_layers[stop]->naming().name) ++stop;
    return stop;
  }

  const std::vector<LayerPtr>& m_layers;
  std::vector<std::string>& m_problems;
};

// Every layer in exactly one stage, stages in the layers' order.
void checkCover(const std::vector<LayerPtr>& layers, const std::vector<StageRange>& stages,
                std::vector<std::string>& problems) {
  size_t next = 0;  // the first layer no stage before holds
  for (size_t s = 0; s < stages.size(); ++s) {
    const StageRange& stage = stages[s];
    const std::string path = "train.pipeline.stages[" + std::to_string(s) + "][1]";
    if (s > 0 && stage.begin < stages[s - 1].begin) {
      problems.push_back(path + ": stages must follow the layers' order, but this stage starts at " +
                         describeLayer(layers, stage.begin) + ", before the stage above it (" +
                         describeLayer(layers, stages[s - 1].begin) + ")");
    } else if (stage.begin < next) {
      problems.push_back(path + ": " + describeRange(layers, stage.begin, std::min(next, stage.end)) +
                         " is already in stages[" + std::to_string(s - 1) + "]: a layer runs in one stage");
    } else if (stage.begin > next) {
      problems.push_back(path + ": " + describeRange(layers, next, stage.begin) +
                         " is in no stage: this stage starts at " + describeLayer(layers, stage.begin));
    }
    next = std::max(next, stage.end);
  }
  if (next < layers.size()) {
    problems.push_back("train.pipeline.stages: " + describeRange(layers, next, layers.size()) +
                       " is in no stage: the last stage must end at the model's last layer, " +
                       describeLayer(layers, layers.size() - 1));
  }
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += (text.empty() ? "" : "\n") + line;
  return text;
}

// The cut pipeline/pipeline_cut.h proposes: the slowest stage's forward FLOPs as small as contiguous ranges
// allow, then the most even. No memory limits here (the device checks and `check` say what fits).
std::vector<StageRange> balancedStages(const PipelineConfig& pipeline, const std::vector<LayerPtr>& layers,
                                       const Shape& input) {
  PipelineCutRequest request;
  request.devices = static_cast<int>(pipeline.devices.size());
  Shape shape = input;
  for (size_t i = 0; i < layers.size(); ++i) {
    PipelineLayerCost cost;
    cost.name = layers[i]->naming().name ? *layers[i]->naming().name : std::to_string(i);
    cost.parameters = layers[i]->parameterCount(shape);
    cost.flops = layers[i]->flopsPerSample(shape);
    shape = layers[i]->outputShape(shape);
    cost.output_elements = 1;
    for (int64_t size : shape) cost.output_elements *= size;
    request.layers.push_back(cost);
  }
  const PipelineCut cut = proposePipelineCut(request);
  if (!cut.ok()) throw UserError("train.pipeline: no balanced cut: " + cut.problem, kStagesHint);
  std::vector<StageRange> stages;
  for (size_t s = 0; s < cut.stages.size(); ++s) {
    StageRange stage;
    stage.device = torch::Device(pipeline.devices[s]);
    stage.begin = cut.stages[s].first;
    stage.end = cut.stages[s].last + 1;
    stage.label = describeRange(layers, stage.begin, stage.end) + " on " + pipeline.devices[s];
    stages.push_back(stage);
  }
  return stages;
}

}  // namespace

std::vector<StageRange> resolvePipelineStages(const PipelineConfig& pipeline,
                                              const std::vector<LayerPtr>& layers, const Shape& input) {
  if (layers.empty()) throw UserError("train.pipeline: the model has no layers to cut", kStagesHint);
  if (pipeline.balanced) return balancedStages(pipeline, layers, input);
  std::vector<std::string> problems;
  RangeReader reader(layers, problems);
  std::vector<StageRange> stages;
  for (size_t s = 0; s < pipeline.stages.size(); ++s) {
    const PipelineStageConfig& config = pipeline.stages[s];
    const auto range = reader.read(config.layers, "train.pipeline.stages[" + std::to_string(s) + "][1]");
    if (!range) continue;
    stages.push_back(
        {torch::Device(config.device), range->first, range->second, config.layers + " on " + config.device});
  }
  if (problems.empty()) checkCover(layers, stages, problems);
  if (!problems.empty()) throw UserError(joined(problems), kStagesHint);
  return stages;
}

}  // namespace wb
