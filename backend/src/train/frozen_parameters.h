#pragma once
// model.freeze and model.unfreeze on a built model. Frozen parameters have requires_grad false, so they get
// no gradient, the optimizer leaves them out (no state, no weight decay; a checkpoint holds none for them)
// and clipping never sees them. A batch-norm module whose parameters are all frozen keeps its statistics
// frozen too: it runs in eval mode while the rest trains (torchvision's fine-tune recipes use
// FrozenBatchNorm2d for this), so its running statistics stay as loaded and the batch is normalized with
// them.
//
// Thawing (model.unfreeze) goes by units: "body" is one unit, and each freeze pattern is one (a parameter two
// patterns pick belongs to the first). Units thaw at the start of an epoch, nearest the head first (the unit
// whose last parameter comes latest in the model): all at epoch after_epochs + 1, or with every_epochs N one
// at after_epochs + 1, the next N epochs later, and so on.

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include "model/model.h"
#include "optim/lr_schedule.h"
#include "workbench/experiment.h"

namespace wb {

class FrozenParameters {
 public:
  // Freezes what `config` says in `model`. Throws wb::UserError naming a pattern that picks nothing (with a
  // "did you mean"), or when nothing would be left to train.
  FrozenParameters(const ModelConfig& config, Model& model);

  bool any() const { return !m_units.empty(); }
  // "frozen: 60 of 62 tensors (11,176,512 parameters); trainable: fc.weight, fc.bias" (names as known
  // outside).
  std::string summary() const;
  // When the units thaw, for the log ("unfreeze: layer4.* at epoch 3, layer3.* at epoch 5"); "" without.
  std::string plan() const;

  // Thaws the units due by the start of `epoch` that are still frozen; their labels (empty: nothing new).
  std::vector<std::string> thawThrough(int64_t epoch);
  // How many units are thawed, in thawing order (a checkpoint keeps it), and the epoch unit `index` thaws at.
  size_t thawedCount() const { return m_thawed; }
  size_t unitCount() const { return m_units.size(); }
  int64_t thawEpoch(size_t index) const { return m_units.at(index).epoch; }
  // The parameters unit `index` freezes: indices into the model's named parameters.
  const std::vector<size_t>& unitParameters(size_t index) const { return m_units.at(index).params; }

  // After model.train(true): the batch-norm modules whose parameters are all frozen back in eval mode. Only
  // for models built from layers (a TorchScript module's submodules train as it says).
  void keepStatisticsFrozen(Model& model) const;

 private:
  struct Unit {
    std::string label;
    std::vector<size_t> params;  // indices into the model's named parameters
    int64_t epoch = 0;           // 0: never
  };
  Model& m_model;
  std::vector<Unit> m_units;  // in thawing order
  size_t m_thawed = 0;
};

// Thaws what is due by the start of `epoch` and brings it into `optimizer` (groups appended with fresh state,
// as torch's add_param_group) and `schedule` (their base rates). The line for the log, "" when nothing
// thawed.
std::string thawIntoOptimizer(FrozenParameters& frozen, int64_t epoch, Model& model,
                              torch::optim::Optimizer& optimizer, const OptimizerConfig& config,
                              LrSchedule& schedule);

// Before a checkpoint at (`epoch`, `next_batch`) is loaded: the thaws the run had made by then (each at an
// epoch's start, so those of `epoch` itself only when the checkpoint lies inside it), one thaw at a time so
// the optimizer's groups come out as the run made them and its saved state fits them.
void thawForResume(FrozenParameters& frozen, int64_t epoch, int64_t next_batch, Model& model,
                   torch::optim::Optimizer& optimizer, const OptimizerConfig& config, LrSchedule& schedule);

}  // namespace wb
