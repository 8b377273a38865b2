#pragma once
// Which values of an experiment are its defaults, for the front ends to say so (`runs compare`, the editor's
// "default" marks, the recipe line a run's log starts with). A key's default is what PyTorch does when
// nothing is written; a few depend on other keys: optimizer.lr, optimizer.weight_decay and optimizer.eps are
// torch.optim's for the optimizer named, model.preset is "cnn" only when no layer list or TorchScript file is
// given. Plain C++ and JSON (no Torch): the GUI includes it.

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace wb {

struct Experiment;

// Every key's default in the context of `doc` (an experiment document, complete or not; values it cannot read
// are ignored), in the complete form experimentToJson writes.
nlohmann::json experimentDefaults(const nlohmann::json& doc);

// The keys of `doc` whose value is the default in its context, as sorted paths ("optimizer.momentum",
// "data.augment.enabled"; lists are whole keys: "optimizer.betas", "schedule.milestones"). A path the
// document lacks is not listed.
std::vector<std::string> defaultedKeys(const nlohmann::json& doc);

// The line every run's log starts with: which of augmentation, a validation split and a learning-rate
// schedule the run uses and which are defaults, since these three decide most of what a short run reaches:
// "Recipe: augmentation off (data.augment, default) · validation 10% of the training split held out
// (data.val_fraction, default) · schedule constant, lr 0.001 (schedule.name, default)"
std::string describeTrainingRecipe(const Experiment& experiment);

}  // namespace wb
