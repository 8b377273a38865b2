#include "compress/magnitude_pruning.h"

#include <algorithm>
#include <cmath>

#include "model/layers/conv_layers.h"
#include "model/layers/dense_layers.h"
#include "model/layers/residual_layer.h"
#include "workbench/errors.h"

namespace wb {
namespace {

// Every conv2d and linear weight of a layer list with its state-dict name, in forward order.
void collectLayerWeights(const std::vector<LayerPtr>& layers, const std::string& prefix,
                         std::vector<PruneTarget>& out) {
  for (size_t i = 0; i < layers.size(); ++i) {
    const std::string base = prefix + std::to_string(i);
    const Layer& layer = *layers[i];
    if (dynamic_cast<const Conv2dLayer*>(&layer)) {
      out.push_back({base + ".weight", PrunedLayerType::Conv2d});
    } else if (dynamic_cast<const LinearLayer*>(&layer)) {
      out.push_back({base + ".weight", PrunedLayerType::Linear});
    } else if (const auto* residual = dynamic_cast<const ResidualLayer*>(&layer)) {
      collectLayerWeights(residual->body(), base + ".layers.", out);
      collectLayerWeights(residual->shortcut(), base + ".shortcut.", out);
    }
  }
}

bool startsWith(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0 &&
         (text.size() == prefix.size() || text[prefix.size()] == '.');
}

int64_t roundHalfEven(double value) {
  return static_cast<int64_t>(std::nearbyint(value));
}

}  // namespace

std::vector<PruneTarget> selectPruneTargets(const ModelArtifact& artifact, const CompressPassConfig& pass) {
  std::vector<PruneTarget> all;
  if (!artifact.layers.is_null()) {
    collectLayerWeights(artifactLayers(artifact), "layers.", all);
  } else {
    // A TorchScript module is opaque: its layers are known only by their parameters' shapes.
    for (const auto& [name, t] : artifact.weights) {
      const bool weight = name.size() > 7 && name.compare(name.size() - 7, 7, ".weight") == 0;
      if (weight && t.dim() == 4) all.push_back({name, PrunedLayerType::Conv2d});
      if (weight && t.dim() == 2) all.push_back({name, PrunedLayerType::Linear});
    }
  }
  // The last linear layer maps to the classes: pruning it removes evidence for whole classes.
  std::string output_layer;
  for (const PruneTarget& t : all) {
    if (t.layer_type == PrunedLayerType::Linear) output_layer = t.name;
  }
  std::vector<PruneTarget> selected;
  for (const PruneTarget& t : all) {
    const bool type_ok =
        std::find(pass.layer_types.begin(), pass.layer_types.end(), t.layer_type) != pass.layer_types.end();
    const bool name_ok =
        pass.layers.empty() || std::any_of(pass.layers.begin(), pass.layers.end(),
                                           [&](const std::string& p) { return startsWith(t.name, p); });
    const bool output_ok = pass.prune_output_layer || t.name != output_layer;
    if (type_ok && name_ok && output_ok) selected.push_back(t);
  }
  if (selected.empty()) {
    std::string available;
    for (const PruneTarget& t : all)
      available += (available.empty() ? "" : ", ") + t.name + " (" + wordString(*t.layer_type) + ")";
    throw UserError(
        "the prune pass selects no weight: layer_types and layers match none of the model's " +
            (available.empty() ? std::string("(it has no conv2d or linear layer)") : available) +
            (pass.prune_output_layer ? "" : "; the output layer is left alone unless prune_output_layer"),
        "Set compress.passes[i].layer_types / layers to name layers the model has.");
  }
  return selected;
}

PruningMasks::PruningMasks(std::vector<PruneTarget> targets, std::vector<torch::Tensor> params,
                           const NamedTensors& existing)
    : m_targets(std::move(targets)), m_params(std::move(params)) {
  for (size_t i = 0; i < m_targets.size(); ++i) {
    torch::Tensor mask = torch::ones_like(m_params[i]);
    for (const auto& [name, m] : existing) {
      if (name == m_targets[i].name && m.sizes().equals(mask.sizes())) mask.copy_(m);
    }
    m_masks.push_back(mask);
  }
  applyToWeights();
}

void PruningMasks::pruneTo(double sparsity, bool global) {
  prune(global,
        [sparsity](int64_t total, int64_t) { return roundHalfEven(sparsity * static_cast<double>(total)); });
}

void PruningMasks::pruneShareOfLive(double amount, bool global) {
  prune(global, [amount](int64_t total, int64_t pruned) {
    return pruned + roundHalfEven(amount * static_cast<double>(total - pruned));
  });
}

void PruningMasks::prune(bool global, const std::function<int64_t(int64_t total, int64_t pruned)>& count) {
  torch::NoGradGuard no_grad;
  // Importance is |w|; entries already pruned rank below every live one, so a growing target prunes only
  // among the live entries (torch's PruningContainer does the same).
  auto importance = [&](size_t i) {
    return torch::where(m_masks[i] > 0, m_params[i].detach().abs().to(torch::kFloat32),
                        torch::full_like(m_params[i], -1.0, torch::kFloat32))
        .flatten();
  };
  auto pruneSmallest = [](const torch::Tensor& scores, int64_t k, torch::Tensor flat_mask_out) {
    if (k <= 0) return;
    const auto smallest = std::get<1>(torch::topk(scores, k, /*dim=*/0, /*largest=*/false, /*sorted=*/false));
    flat_mask_out.index_fill_(0, smallest, 0.0);
  };
  if (global) {
    std::vector<torch::Tensor> scores;
    int64_t total = 0;
    for (size_t i = 0; i < m_params.size(); ++i) {
      scores.push_back(importance(i));
      total += m_params[i].numel();
    }
    const torch::Tensor all = torch::cat(scores);
    const int64_t pruned = (all < 0).sum().item<int64_t>();
    const int64_t k = std::min<int64_t>(total, count(total, pruned));
    torch::Tensor flat = torch::ones({total}, torch::TensorOptions().device(all.device()));
    pruneSmallest(all, k, flat);
    int64_t offset = 0;
    for (size_t i = 0; i < m_params.size(); ++i) {
      const int64_t n = m_params[i].numel();
      m_masks[i].mul_(flat.slice(0, offset, offset + n).view_as(m_masks[i]).to(m_masks[i].dtype()));
      offset += n;
    }
  } else {
    for (size_t i = 0; i < m_params.size(); ++i) {
      const int64_t n = m_params[i].numel();
      const torch::Tensor scores = importance(i);
      const int64_t k = std::min<int64_t>(n, count(n, (scores < 0).sum().item<int64_t>()));
      torch::Tensor flat = torch::ones({n}, torch::TensorOptions().device(m_params[i].device()));
      pruneSmallest(scores, k, flat);
      m_masks[i].mul_(flat.view_as(m_masks[i]).to(m_masks[i].dtype()));
    }
  }
  applyToWeights();
}

void PruningMasks::restore(const NamedTensors& stored) {
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < m_targets.size(); ++i) {
    for (const auto& [name, m] : stored) {
      if (name == m_targets[i].name && m.sizes().equals(m_masks[i].sizes())) m_masks[i].copy_(m);
    }
  }
  applyToWeights();
}

void PruningMasks::zeroPrunedGradients() const {
  for (size_t i = 0; i < m_params.size(); ++i) {
    const torch::Tensor& grad = m_params[i].grad();
    if (grad.defined()) grad.mul_(m_masks[i]);
  }
}

void PruningMasks::applyToWeights() const {
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < m_params.size(); ++i) m_params[i].mul_(m_masks[i]);
}

NamedTensors PruningMasks::masks() const {
  NamedTensors out;
  for (size_t i = 0; i < m_targets.size(); ++i)
    out.emplace_back(m_targets[i].name, m_masks[i].to(torch::kCPU));
  return out;
}

double PruningMasks::sparsity() const {
  double pruned = 0;
  double total = 0;
  for (const torch::Tensor& m : m_masks) {
    total += static_cast<double>(m.numel());
    pruned += static_cast<double>(m.numel() - m.count_nonzero().item<int64_t>());
  }
  return total > 0 ? pruned / total : 0;
}

nlohmann::json PruningMasks::describe() const {
  nlohmann::json layers = nlohmann::json::array();
  for (size_t i = 0; i < m_targets.size(); ++i) {
    const int64_t n = m_masks[i].numel();
    const int64_t pruned = n - m_masks[i].count_nonzero().item<int64_t>();
    layers.push_back({{"name", m_targets[i].name},
                      {"type", m_targets[i].layer_type ? wordString(*m_targets[i].layer_type) : ""},
                      {"size", n},
                      {"pruned", pruned}});
  }
  return {{"layers", layers}, {"sparsity", sparsity()}};
}

double cubicSparsity(double initial, double target, int64_t step, int64_t total_steps) {
  if (total_steps <= 0 || step >= total_steps) return target;
  const double remaining =
      1.0 - static_cast<double>(std::max<int64_t>(0, step)) / static_cast<double>(total_steps);
  return target + (initial - target) * remaining * remaining * remaining;
}

}  // namespace wb
