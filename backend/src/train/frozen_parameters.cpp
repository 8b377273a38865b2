#include "train/frozen_parameters.h"

#include <algorithm>
#include <sstream>

#include "model/layer_net_model.h"
#include "model/model_head.h"
#include "optim/optimizer_factory.h"
#include "util/name_patterns.h"
#include "workbench/errors.h"

namespace wb {

namespace {

// The units as configured, each with the parameters it freezes (by index), in the order written.
std::vector<std::pair<std::string, std::vector<size_t>>> unitsOf(const ModelConfig& config, Model& model,
                                                                 const std::vector<ParameterName>& names) {
  std::vector<std::pair<std::string, std::vector<size_t>>> units;
  if (config.freeze_body) {
    const std::vector<std::string> head = headParameterNames(model);
    std::vector<size_t> body;
    for (size_t i = 0; i < names.size(); ++i) {
      if (std::find(head.begin(), head.end(), names[i].ours) == head.end()) body.push_back(i);
    }
    if (!body.empty()) units.emplace_back("body", body);
    return units;
  }
  std::vector<bool> taken(names.size(), false);
  for (size_t k = 0; k < config.freeze.size(); ++k) {
    const std::string& pattern = config.freeze[k];
    const std::vector<size_t> matched = patternPicks(pattern, names);
    std::vector<size_t> picked;
    for (size_t i : matched) {
      if (!taken[i]) picked.push_back(i);
      taken[i] = true;
    }
    if (matched.empty()) {
      throw UserError(noMatchMessage("model.freeze[" + std::to_string(k) + "]", pattern, names),
                      "write the pattern against the model's parameter names (the Model tab lists them)");
    }
    if (!picked.empty()) units.emplace_back(pattern, picked);
  }
  return units;
}

std::string joinNames(const std::vector<std::string>& names, size_t shown) {
  std::string text;
  for (size_t i = 0; i < names.size() && i < shown; ++i) text += (i ? ", " : "") + names[i];
  if (names.size() > shown) text += " and " + std::to_string(names.size() - shown) + " more";
  return text;
}

}  // namespace

FrozenParameters::FrozenParameters(const ModelConfig& config, Model& model) : m_model(model) {
  const auto parameters = model.namedParameters();
  std::vector<std::string> ours;
  for (const auto& named : parameters) ours.push_back(named.first);
  const std::vector<ParameterName> names = parameterNames(ours, model.externalNames());
  for (auto& [label, params] : unitsOf(config, model, names)) m_units.push_back({label, params, 0});
  if (m_units.empty()) return;
  // Nearest the head first: the unit whose last parameter comes latest.
  std::stable_sort(m_units.begin(), m_units.end(),
                   [](const Unit& a, const Unit& b) { return a.params.back() > b.params.back(); });
  const UnfreezeConfig& unfreeze = config.unfreeze;
  for (size_t u = 0; u < m_units.size(); ++u) {
    if (unfreeze.after_epochs <= 0) break;
    const int64_t step = unfreeze.every_epochs * static_cast<int64_t>(u);
    m_units[u].epoch = unfreeze.after_epochs + 1 + step;
  }
  size_t frozen = 0;
  for (const Unit& unit : m_units) {
    for (size_t i : unit.params) parameters[i].second.requires_grad_(false);
    frozen += unit.params.size();
  }
  if (frozen == parameters.size()) {
    throw UserError("model.freeze freezes every parameter of the model: nothing would train",
                    "leave the head out of model.freeze (\"body\" does), or remove model.freeze");
  }
}

std::string FrozenParameters::summary() const {
  const auto parameters = m_model.namedParameters();
  const auto external = m_model.externalNames();
  int64_t frozen_tensors = 0, frozen_numel = 0;
  std::vector<std::string> trainable;
  for (const auto& [name, tensor] : parameters) {
    if (tensor.requires_grad()) {
      const auto it = external.find(name);
      trainable.push_back(it == external.end() ? name : it->second);
    } else {
      ++frozen_tensors;
      frozen_numel += tensor.numel();
    }
  }
  std::ostringstream line;
  line << "frozen: " << frozen_tensors << " of " << parameters.size() << " tensors ("
       << groupedThousands(frozen_numel) << " parameters); trainable: " << joinNames(trainable, 8);
  return line.str();
}

std::string FrozenParameters::plan() const {
  // Units of one epoch together: "unfreeze: layer4.*, layer3.* at epoch 3; layer2.* at epoch 5".
  std::string text;
  for (size_t u = m_thawed; u < m_units.size() && m_units[u].epoch > 0; ++u) {
    const bool first_of_epoch = u == m_thawed || m_units[u - 1].epoch != m_units[u].epoch;
    text += first_of_epoch ? (text.empty() ? "unfreeze: " : "; ") : ", ";
    text += m_units[u].label;
    const bool last_of_epoch = u + 1 == m_units.size() || m_units[u + 1].epoch != m_units[u].epoch;
    if (last_of_epoch) text += " at epoch " + std::to_string(m_units[u].epoch);
  }
  return text;
}

std::vector<std::string> FrozenParameters::thawThrough(int64_t epoch) {
  std::vector<std::string> labels;
  const auto parameters = m_model.namedParameters();
  while (m_thawed < m_units.size() && m_units[m_thawed].epoch > 0 && m_units[m_thawed].epoch <= epoch) {
    for (size_t i : m_units[m_thawed].params) parameters[i].second.requires_grad_(true);
    labels.push_back(m_units[m_thawed].label);
    ++m_thawed;
  }
  return labels;
}

void FrozenParameters::keepStatisticsFrozen(Model& model) const {
  auto* layers = dynamic_cast<LayerNetModel*>(&model);
  if (!layers || m_thawed == m_units.size()) return;
  for (const auto& item : layers->net()->named_modules()) {
    torch::nn::Module& module = *item.value();
    const auto own = module.named_parameters(/*recurse=*/false);
    if (own.is_empty() || !module.named_buffers(/*recurse=*/false).contains("running_mean")) continue;
    const bool frozen =
        std::none_of(own.begin(), own.end(), [](const auto& p) { return p.value().requires_grad(); });
    if (frozen) module.eval();
  }
}

std::string thawIntoOptimizer(FrozenParameters& frozen, int64_t epoch, Model& model,
                              torch::optim::Optimizer& optimizer, const OptimizerConfig& config,
                              LrSchedule& schedule) {
  const std::vector<std::string> labels = frozen.thawThrough(epoch);
  if (labels.empty()) return {};
  const size_t before = optimizer.param_groups().size();
  const size_t added = addParameters(optimizer, config, model.namedParameters(), model.externalNames());
  const std::vector<double> lrs = groupLearningRates(optimizer);
  schedule.addGroups(std::vector<double>(lrs.begin() + static_cast<std::ptrdiff_t>(before), lrs.end()));
  std::string names;
  for (const std::string& label : labels) names += (names.empty() ? "" : ", ") + label;
  return "Unfreeze at epoch " + std::to_string(epoch) + ": " + names + " joins the optimizer (" +
         std::to_string(added) + " parameter group(s), fresh state); " + frozen.summary();
}

void thawForResume(FrozenParameters& frozen, int64_t epoch, int64_t next_batch, Model& model,
                   torch::optim::Optimizer& optimizer, const OptimizerConfig& config, LrSchedule& schedule) {
  const int64_t through = next_batch > 0 ? epoch : epoch - 1;
  for (size_t u = 0; u < frozen.unitCount(); ++u) {
    const int64_t at = frozen.thawEpoch(u);
    if (at > 0 && at <= through) thawIntoOptimizer(frozen, at, model, optimizer, config, schedule);
  }
}

}  // namespace wb
