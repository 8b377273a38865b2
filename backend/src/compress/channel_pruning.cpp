// Structured pruning in three steps, nothing changed before the last: walk the layer list once to learn which
// tensor dimensions each channel space indexes (one rule per layer type, in `follow`), plan every group's
// removed channels from the original weights, then slice each tensor once. Our layer list already is the
// dependency graph, so no tracing is needed; a residual sum joins its two branches' spaces into one group.

#include "compress/channel_pruning.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

#include "model/layer_list.h"
#include "model/layers/conv_layers.h"
#include "model/layers/dense_layers.h"
#include "model/layers/residual_layer.h"
#include "workbench/errors.h"

namespace wb {
namespace {

using nlohmann::json;

// A layer as the plan names it.
struct LayerRef {
  std::string pointer;  // JSON pointer into the artifact's layer list ("/3/layers/0")
  std::string name;     // state-dict prefix ("layers.3.layers.0")
  std::string path;     // for people ("layers[3].layers[0]")
  std::string type;
};

// Where a space's channels sit in the activation at one point of the forward pass: Image [C, H, W] (channel
// = dim 0), Tokens [N, C] (channel = the last dim, which a linear reads directly), or Flat [F], a flatten of
// either, where channel c owns the features o*C*inner + c*inner + i for every o < outer, i < inner.
struct Flow {
  enum class Form { Image, Tokens, Flat };
  int space = -1;
  Form form = Form::Flat;
  int64_t outer = 1;
  int64_t inner = 1;
};

// A tensor dimension indexed by a space's channels, through the flow's index map at that point.
struct Slice {
  std::string tensor;  // state-dict name
  int64_t dim = 0;
  int64_t outer = 1;
  int64_t inner = 1;
  std::string reader;  // the layer reading the channels ("" for the producers' own output rows)
};

// The output channels of one or more layers, and every tensor dimension they index.
struct Space {
  int parent = 0;  // union-find: residual sums join spaces
  int64_t channels = 0;
  std::vector<LayerRef> producers;  // conv2d / linear layers whose output rows these channels are
  std::vector<Slice> slices;
  std::string blocked;  // why these channels cannot be removed ("" = they can)
};

const std::set<std::string> kElementwise = {
    "relu",    "gelu",     "tanh",      "sigmoid",   "hardswish",          "hardsigmoid",     "silu",
    "dropout", "identity", "maxpool2d", "avgpool2d", "adaptive_avgpool2d", "stochastic_depth"};
const std::set<std::string> kTransformer = {"patch_embed", "position_embedding", "encoder_block",
                                            "token_pool"};

int64_t channelsOf(const Shape& shape) {
  return shape.size() == 3 ? shape[0] : shape.back();
}

Flow freshFlow(int space, const Shape& shape) {
  Flow flow;
  flow.space = space;
  flow.form = shape.size() == 3   ? Flow::Form::Image
              : shape.size() == 2 ? Flow::Form::Tokens
                                  : Flow::Form::Flat;
  return flow;
}

bool sameLayout(const Flow& a, const Flow& b) {
  return a.form == b.form && a.outer == b.outer && a.inner == b.inner;
}

class ChannelGraph {
 public:
  int add(int64_t channels, const std::string& blocked = {}) {
    Space space;
    space.parent = static_cast<int>(m_spaces.size());
    space.channels = channels;
    space.blocked = blocked;
    m_spaces.push_back(space);
    return space.parent;
  }

  int find(int s) {
    while (m_spaces[s].parent != s) s = m_spaces[s].parent = m_spaces[m_spaces[s].parent].parent;
    return s;
  }

  Space& group(int s) { return m_spaces[find(s)]; }

  void block(int s, const std::string& reason) {
    Space& g = group(s);
    if (g.blocked.empty()) g.blocked = reason;
  }

  // The earlier space stays the root, so groups keep the order of the forward pass.
  void join(int a, int b) {
    a = find(a);
    b = find(b);
    if (a == b) return;
    if (b < a) std::swap(a, b);
    Space& root = m_spaces[a];
    Space& other = m_spaces[b];
    root.producers.insert(root.producers.end(), other.producers.begin(), other.producers.end());
    root.slices.insert(root.slices.end(), other.slices.begin(), other.slices.end());
    if (root.blocked.empty()) root.blocked = other.blocked;
    other.producers.clear();
    other.slices.clear();
    other.parent = a;
  }

  // The conv2d / linear layers in forward order, each with the space of its outputs.
  const std::vector<std::pair<LayerRef, int>>& producers() const { return m_producers; }

  Flow walk(const std::vector<LayerPtr>& layers, const Shape& input, Flow flow, const std::string& pointer,
            const std::string& name, const std::string& path) {
    const std::vector<Shape> shapes = inferShapes(layers, input, "layers");
    for (size_t k = 0; k < layers.size(); ++k) {
      const std::string index = std::to_string(k);
      const LayerRef ref{pointer + "/" + index, name + index, path + "[" + index + "]", layers[k]->type()};
      flow = follow(*layers[k], ref, k == 0 ? input : shapes[k - 1], shapes[k], flow);
    }
    return flow;
  }

 private:
  void addSlice(const Flow& flow, const std::string& tensor, int64_t dim, const std::string& reader) {
    group(flow.space).slices.push_back({tensor, dim, flow.outer, flow.inner, reader});
  }

  // A conv2d or linear: reads the flow's channels through weight dim 1, makes a space of its own.
  Flow produce(const LayerRef& ref, int64_t outputs, bool bias, const Shape& out, const Flow& flow) {
    addSlice(flow, ref.name + ".weight", 1, ref.path);
    const int space = add(outputs);
    m_spaces[space].producers.push_back(ref);
    m_producers.emplace_back(ref, space);
    const Flow next = freshFlow(space, out);
    addSlice(next, ref.name + ".weight", 0, "");
    if (bias) addSlice(next, ref.name + ".bias", 0, "");
    return next;
  }

  // The channel rule of each layer type: what it does to the flow it reads, and what flows out.
  Flow follow(const Layer& layer, const LayerRef& ref, const Shape& in, const Shape& out, Flow flow) {
    const std::string& type = ref.type;
    if (const auto* conv = dynamic_cast<const Conv2dLayer*>(&layer)) {
      if (conv->groups() == 1) return produce(ref, conv->outChannels(), conv->bias(), out, flow);
      // A grouped (depthwise) conv ties its output channels to its input channels group by group; this
      // planner does not follow that tie yet, so neither side is pruned rather than pruned wrongly.
      const std::string why = " at " + ref.path + " (conv2d with groups " + std::to_string(conv->groups()) +
                              "), whose channels are tied group by group to its input's";
      block(flow.space, "its outputs feed the grouped conv" + why);
      const Flow next = produce(ref, conv->outChannels(), conv->bias(), out, flow);
      block(next.space, "they are the outputs of the grouped conv" + why);
      return next;
    }
    if (const auto* linear = dynamic_cast<const LinearLayer*>(&layer)) {
      return produce(ref, linear->outFeatures(), linear->bias(), out, flow);
    }
    if (type == "batchnorm2d" || type == "batchnorm1d") {
      // One scale, shift and statistic per channel (feature); num_batches_tracked is a single count.
      for (const char* tensor : {".weight", ".bias", ".running_mean", ".running_var"}) {
        addSlice(flow, ref.name + tensor, 0, ref.path);
      }
      return flow;
    }
    if (kElementwise.count(type) != 0) return flow;  // per element or per channel: channels pass unchanged
    if (type == "flatten") {
      if (flow.form == Flow::Form::Image) {
        flow.inner = in[1] * in[2];  // channel c becomes features [c*H*W, (c+1)*H*W)
      } else if (flow.form == Flow::Form::Tokens) {
        flow.outer = in[0];  // token n, channel c becomes feature n*C + c
      }
      flow.form = Flow::Form::Flat;
      return flow;
    }
    if (type == "layernorm") {
      block(flow.space,
            "its outputs feed the layernorm at " + ref.path +
                ", which normalizes over all features: removing some would change the statistics of "
                "the others");
      return flow;
    }
    if (const auto* residual = dynamic_cast<const ResidualLayer*>(&layer)) {
      const Flow body = walk(residual->body(), in, flow, ref.pointer + "/layers", ref.name + ".layers.",
                             ref.path + ".layers");
      const Flow shortcut = residual->shortcut().empty()
                                ? flow
                                : walk(residual->shortcut(), in, flow, ref.pointer + "/shortcut",
                                       ref.name + ".shortcut.", ref.path + ".shortcut");
      // The sum adds channel c of one branch to channel c of the other: they can only go together.
      if (sameLayout(body, shortcut) && group(body.space).channels == group(shortcut.space).channels) {
        join(body.space, shortcut.space);
      } else {
        const std::string reason = "the residual sum at " + ref.path +
                                   " adds its outputs to a tensor whose channels are laid out differently";
        block(body.space, reason);
        block(shortcut.space, reason);
      }
      return body;
    }
    // Transformer layers (and any type without a rule here): their sizes are tied to their input, and their
    // insides are not pruned, so the channels reaching them stay and what comes out is not prunable.
    const std::string what =
        kTransformer.count(type) != 0
            ? ": transformer layers are not pruned, and their sizes are tied to their input"
            : ", which structured pruning cannot rewire";
    block(flow.space, "its outputs feed the " + type + " at " + ref.path + what);
    return freshFlow(
        add(channelsOf(out), "its channels are tied through a residual sum to the outputs of the " + type +
                                 " at " + ref.path + ", which is not pruned"),
        out);
  }

  std::vector<Space> m_spaces;
  std::vector<std::pair<LayerRef, int>> m_producers;
};

bool matchesPrefix(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0 &&
         (text.size() == prefix.size() || text[prefix.size()] == '.');
}

// The feature indices a kept-channel list keeps through a flow's index map.
torch::Tensor featureIndices(const torch::Tensor& kept, int64_t channels, int64_t outer, int64_t inner) {
  if (outer == 1 && inner == 1) return kept;
  const torch::Tensor perChannel = (kept.unsqueeze(1) * inner + torch::arange(inner).unsqueeze(0)).flatten();
  return (torch::arange(outer).unsqueeze(1) * (channels * inner) + perChannel.unsqueeze(0)).flatten();
}

// Importance per channel: the norm of the row each producer writes it with, summed over the group.
torch::Tensor channelImportance(const ModelArtifact& artifact, const Space& group, bool l2) {
  torch::Tensor importance = torch::zeros({group.channels}, torch::kDouble);
  for (const LayerRef& producer : group.producers) {
    const torch::Tensor weight = artifact.tensor(producer.name + ".weight");
    if (!weight.defined()) {
      throw UserError("artifact " + artifact.name + " lacks tensor " + producer.name + ".weight",
                      "The artifact does not match its own layer list: run the pass that made it again.");
    }
    const torch::Tensor rows = weight.detach().to(torch::kCPU, torch::kDouble).reshape({group.channels, -1});
    importance += l2 ? rows.pow(2).sum(1).sqrt() : rows.abs().sum(1);
  }
  return importance;
}

using SlicePlan = std::map<std::string, std::vector<std::pair<int64_t, torch::Tensor>>>;

NamedTensors sliced(const NamedTensors& tensors, const SlicePlan& plan) {
  NamedTensors out;
  out.reserve(tensors.size());
  for (const auto& [name, t] : tensors) {
    const auto it = plan.find(name);
    if (it == plan.end()) {
      out.emplace_back(name, t);
      continue;
    }
    torch::Tensor s = t;
    for (const auto& [dim, indices] : it->second) s = s.index_select(dim, indices.to(s.device()));
    out.emplace_back(name, s.contiguous());
  }
  return out;
}

json namesOf(const std::vector<LayerRef>& refs, const std::string& except) {
  json names = json::array();
  for (const LayerRef& r : refs) {
    if (r.name != except) names.push_back(r.name);
  }
  return names;
}

// The pruned artifact must be one the layer list describes: same tensors, the shapes a fresh model has. A
// mismatch is a bug in the plan, caught here rather than as a shape error in a later pass.
void checkConsistent(const ModelArtifact& artifact) {
  const std::vector<ValidationIssue> issues =
      checkLayers(artifact.layers, artifact.input_shape, artifact.num_classes);
  if (!issues.empty()) {
    throw std::logic_error("structured pruning made an invalid layer list: " + issues.front().path + ": " +
                           issues.front().message);
  }
  torch::nn::Sequential fresh = instantiateLayers(artifactLayers(artifact), artifact.input_shape);
  auto check = [&](const std::string& name, const torch::Tensor& expected) {
    const torch::Tensor t = artifact.tensor("layers." + name);
    if (!t.defined() || !t.sizes().equals(expected.sizes())) {
      throw std::logic_error("structured pruning left tensor layers." + name + " with shape " +
                             (t.defined() ? shapeToString(t.sizes().vec()) : std::string("(missing)")) +
                             " where the layer list needs " + shapeToString(expected.sizes().vec()));
    }
  };
  for (const auto& item : fresh->named_parameters()) check(item.key(), item.value());
  for (const auto& item : fresh->named_buffers()) check(item.key(), item.value());
  for (const auto& [name, mask] : artifact.masks) {
    const torch::Tensor t = artifact.tensor(name);
    if (t.defined() && !t.sizes().equals(mask.sizes())) {
      throw std::logic_error("structured pruning left the mask of " + name + " unlike its weight");
    }
  }
}

// Channels are removed from a layer list, and before int8.
void refuseUnprunable(const ModelArtifact& input) {
  if (!input.torchscript.empty() || input.layers.is_null()) {
    throw UserError(
        "artifact " + input.name +
            " is a TorchScript module: its layers are opaque, so channels cannot be removed and the "
            "layers reading them rewired",
        "Use method \"unstructured\" (it prunes a TorchScript model's weights), or train a layer-list "
        "model (a preset or model.layers).");
  }
  if (input.isQuantized()) {
    throw UserError("artifact " + input.name + " is int8: its channels cannot be pruned any more",
                    "Put the structured prune pass before the quantize pass.");
  }
}

// The group's `pass.amount` least important channels (never all) removed from every tensor that holds them,
// its producers' widths in `layers` set to what is kept, and each producer's entry in the record.
void pruneGroup(const ModelArtifact& input, const Space& g, const CompressPassConfig& pass, SlicePlan& plan,
                json& layersJson, json& record) {
  const int64_t channels = g.channels;
  const int64_t count = static_cast<int64_t>(std::nearbyint(pass.amount * static_cast<double>(channels)));
  const int64_t removeCount = std::clamp<int64_t>(count, 0, channels - 1);
  const torch::Tensor importance = channelImportance(input, g, pass.norm == PruneNorm::L2);
  // Stable, so channels of equal importance go lowest index first and the plan is reproducible.
  const torch::Tensor order = std::get<1>(importance.sort(/*stable=*/true, /*dim=*/0, /*descending=*/false));
  const torch::Tensor removed = std::get<0>(order.slice(0, 0, removeCount).sort());
  const torch::Tensor keep = torch::ones({channels}, torch::kBool).index_fill_(0, removed, false);
  const torch::Tensor kept = keep.nonzero().flatten();
  const int64_t keptCount = channels - removeCount;

  json readers = json::array();
  for (const Slice& s : g.slices) {
    plan[s.tensor].emplace_back(s.dim, featureIndices(kept, channels, s.outer, s.inner));
    if (!s.reader.empty() && std::find(readers.begin(), readers.end(), s.reader) == readers.end()) {
      readers.push_back(s.reader);
    }
  }
  const std::vector<int64_t> removedList(removed.data_ptr<int64_t>(),
                                         removed.data_ptr<int64_t>() + removeCount);
  for (const LayerRef& ref : g.producers) {
    layersJson[json::json_pointer(ref.pointer)][ref.type == "conv2d" ? "out_channels" : "out_features"] =
        keptCount;
    json entry = {{"path", ref.path},
                  {"name", ref.name},
                  {"type", ref.type},
                  {"channels_before", channels},
                  {"channels_after", keptCount},
                  {"removed", removedList},
                  {"rewired", readers}};
    if (g.producers.size() > 1) entry["coupled_with"] = namesOf(g.producers, ref.name);
    record["pruned"].push_back(entry);
  }
}

[[noreturn]] void refuseNoSelection(const ChannelGraph& graph, const CompressPassConfig& pass) {
  std::string available;
  for (const auto& [ref, space] : graph.producers()) {
    available += (available.empty() ? "" : ", ") + ref.name + " (" + ref.type + ")";
  }
  throw UserError(
      "the structured prune pass selects no layer: layer_types and layers match none of " +
          (available.empty() ? std::string("the model's layers (it has no conv2d or linear layer)")
                             : available) +
          (pass.prune_output_layer ? "" : "; the output layer is left alone unless prune_output_layer"),
      "Set compress.passes[i].layer_types / layers to name layers the model has.");
}

}  // namespace

ModelArtifact pruneChannels(const ModelArtifact& input, const CompressPassConfig& pass, json& record) {
  refuseUnprunable(input);
  torch::NoGradGuard no_grad;

  ChannelGraph graph;
  const int inputSpace =
      graph.add(channelsOf(input.input_shape),
                "its channels are tied through a residual sum to the model's input, which cannot shrink");
  const Flow output = graph.walk(artifactLayers(input), input.input_shape,
                                 freshFlow(inputSpace, input.input_shape), "", "layers.", "layers");
  graph.block(output.space, "its outputs are the model's outputs (one per class)");

  // The selection, as unstructured pruning reads it: types, name prefixes, and the last linear layer (the
  // classes) only when prune_output_layer. That layer is then still skipped, with the reason.
  std::string outputLayer;
  for (const auto& [ref, space] : graph.producers()) {
    if (ref.type == "linear") outputLayer = ref.name;
  }
  auto selected = [&](const LayerRef& ref) {
    const std::string weight = ref.name + ".weight";
    const std::optional<PrunedLayerType> type = fromWord<PrunedLayerType>(ref.type);
    const bool typeOk =
        type && std::find(pass.layer_types.begin(), pass.layer_types.end(), *type) != pass.layer_types.end();
    const bool nameOk =
        pass.layers.empty() || std::any_of(pass.layers.begin(), pass.layers.end(),
                                           [&](const std::string& p) { return matchesPrefix(weight, p); });
    return typeOk && nameOk && (pass.prune_output_layer || ref.name != outputLayer);
  };

  if (!record.contains("pruned")) record["pruned"] = json::array();
  if (!record.contains("skipped")) record["skipped"] = json::array();
  json layersJson = input.layers;
  SlicePlan plan;
  bool anySelected = false;
  bool anyPruned = false;
  std::set<int> visited;
  for (const auto& [first, space] : graph.producers()) {
    const int root = graph.find(space);
    if (!visited.insert(root).second) continue;
    const Space& g = graph.group(root);
    // A group is pruned when any member is selected: its channels can only go from all members together.
    if (std::none_of(g.producers.begin(), g.producers.end(), selected)) continue;
    anySelected = true;
    if (!g.blocked.empty()) {
      for (const LayerRef& ref : g.producers) {
        if (!selected(ref)) continue;
        json skip = {{"path", ref.path}, {"name", ref.name}, {"type", ref.type}, {"reason", g.blocked}};
        if (g.producers.size() > 1) skip["coupled_with"] = namesOf(g.producers, ref.name);
        record["skipped"].push_back(skip);
      }
      continue;
    }
    anyPruned = true;
    pruneGroup(input, g, pass, plan, layersJson, record);
  }

  if (!anySelected) refuseNoSelection(graph, pass);
  if (!anyPruned) {
    std::string reasons;
    for (const json& skip : record["skipped"]) {
      reasons += "\n  " + skip["path"].get<std::string>() + ": " + skip["reason"].get<std::string>();
    }
    throw UserError("structured pruning can remove channels from none of the selected layers:" + reasons,
                    "Select other layers (compress.passes[i].layers), or use method \"unstructured\".");
  }

  ModelArtifact out = input;
  out.layers = layersJson;
  out.weights = sliced(input.weights, plan);
  out.buffers = sliced(input.buffers, plan);
  out.masks = sliced(input.masks, plan);
  checkConsistent(out);
  return out;
}

}  // namespace wb
