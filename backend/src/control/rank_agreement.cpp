#include "control/rank_agreement.h"

#include <torch/torch.h>

namespace wb {

ControlDecision agreeOnControl(RankGroup& group, TrainingControl& control, bool checkpoint_due,
                               uint64_t seen) {
  ControlDecision local;
  local.seen = seen;
  local.stop = control.stopRequested();
  local.pause = control.paused();
  local.stop_after_epoch = control.stopAfterEpochRequested();
  if (group.rank() == 0) {
    local.checkpoint_requested = control.takeCheckpointRequest();
    local.checkpoint_due = checkpoint_due;
    local.lr = control.takeLrChange();
  }
  if (group.size() == 1) return local;
  const double lr_kind = !local.lr ? 0.0 : local.lr->kind == LrChange::Kind::Scale ? 1.0 : 2.0;
  const torch::Tensor flags = torch::tensor(
      {local.stop ? 1.0 : 0.0, local.pause ? 1.0 : 0.0, local.checkpoint_requested ? 1.0 : 0.0,
       local.checkpoint_due ? 1.0 : 0.0, -static_cast<double>(seen), local.stop_after_epoch ? 1.0 : 0.0,
       lr_kind, local.lr ? local.lr->value : 0.0, local.lr ? static_cast<double>(local.lr->from_step) : 0.0},
      torch::kFloat64);
  const torch::Tensor rows = group.allgather(flags);
  const torch::Tensor any = rows.amax(0);
  ControlDecision d;
  d.seen = static_cast<uint64_t>(-any[4].item<double>());
  d.stop = any[0].item<double>() > 0;
  d.pause = any[1].item<double>() > 0;
  d.checkpoint_requested = any[2].item<double>() > 0;
  d.checkpoint_due = any[3].item<double>() > 0;
  d.stop_after_epoch = any[5].item<double>() > 0;
  const torch::Tensor lead_flags = rows[0];
  const auto lead_row = lead_flags.accessor<double, 1>();  // float64 carries rank 0's value and step exactly
  if (lead_row[6] > 0) {
    d.lr = LrChange{lead_row[6] == 1.0 ? LrChange::Kind::Scale : LrChange::Kind::Constant, lead_row[7],
                    static_cast<int64_t>(lead_row[8]), local.lr ? local.lr->source : std::string()};
  }
  return d;
}

std::vector<double> sumAcrossRanks(RankGroup& group, std::vector<double> values) {
  const torch::Tensor ranks = group.allgather(torch::tensor(values, torch::kFloat64));
  const torch::Tensor sums = ranks.sum(0);
  for (size_t i = 0; i < values.size(); ++i) values[i] = sums[static_cast<int64_t>(i)].item<double>();
  return values;
}

}  // namespace wb
