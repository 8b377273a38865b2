#pragma once
// Unstructured magnitude (L1) pruning with torch.nn.utils.prune's semantics: a parameter w gets a mask, the
// effective weight is w × mask, pruned entries receive no gradient and stay exactly zero through training,
// and a float amount prunes round(amount × n) entries (half to even) among those still unpruned. Global
// pruning ranks every selected weight against one threshold; per-layer pruning brings each layer to the
// amount. Gradual pruning raises the sparsity along Zhu & Gupta's cubic schedule while the model fine-tunes.

#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "compress/model_artifact.h"
#include "workbench/experiment.h"

namespace wb {

// A parameter a prune pass may touch: its state-dict name and its layer's type.
struct PruneTarget {
  std::string name;                           // "layers.0.weight"
  std::optional<PrunedLayerType> layer_type;  // none for masks carried in from an earlier pass
};

// The weights `pass` selects (layer_types, layers name prefixes, the output layer only when
// prune_output_layer). A TorchScript artifact's layers are found by their parameters: 4-D weights as conv2d,
// 2-D as linear. UserError when nothing is selected, naming what was asked for and what exists.
std::vector<PruneTarget> selectPruneTargets(const ModelArtifact& artifact, const CompressPassConfig& pass);

// The masks of parameters being pruned, on the training device, applied as steps of the training loop.
class PruningMasks {
 public:
  // `params` are the model's tensors for `targets` (same order); `existing` masks (an earlier pass's) are
  // kept: entries pruned before stay pruned.
  PruningMasks(std::vector<PruneTarget> targets, std::vector<torch::Tensor> params,
               const NamedTensors& existing);

  // Prunes to `sparsity` of the selected weights (global: one ranking over all; layer: each tensor alone),
  // counting entries already pruned; masks only grow. Gradual pruning's steps.
  void pruneTo(double sparsity, bool global);
  // Prunes `amount` of the entries still live (torch.nn.utils.prune applied again): one-shot pruning.
  void pruneShareOfLive(double amount, bool global);

  // Replaces the masks with stored ones (a checkpoint's), by name, and applies them.
  void restore(const NamedTensors& stored);

  void zeroPrunedGradients() const;  // after backward: pruned entries get no update from the gradient
  void applyToWeights() const;       // after the optimizer step: weight decay and momentum cannot revive them

  NamedTensors masks() const;  // name -> mask on the CPU
  const std::vector<PruneTarget>& targets() const { return m_targets; }
  // Per target: name, size, pruned count; and the whole selection's sparsity.
  nlohmann::json describe() const;
  double sparsity() const;

 private:
  void prune(bool global, const std::function<int64_t(int64_t total, int64_t pruned)>& count);

  std::vector<PruneTarget> m_targets;
  std::vector<torch::Tensor> m_params;
  std::vector<torch::Tensor> m_masks;
};

// Zhu & Gupta (2017): s_t = s_f + (s_i - s_f)(1 - t/n)^3 for step t of n, s_i the starting sparsity.
double cubicSparsity(double initial, double target, int64_t step, int64_t total_steps);

}  // namespace wb
