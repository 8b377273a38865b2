#include "parallel/shard_checks.h"

namespace wb {

// The levels the trainer implements; a level it does not is refused here instead of training unsharded.
bool shardLevelTrains(ShardLevel level) {
  switch (level) {
    case ShardLevel::None:
    case ShardLevel::Optimizer:
    case ShardLevel::Gradients:
    case ShardLevel::Parameters:
      return true;
  }
  return false;
}

std::vector<ValidationIssue> checkShard(const Experiment& e) {
  std::vector<ValidationIssue> issues;
  if (!shardLevelTrains(e.train.shard)) {
    issues.push_back({"train.shard", "\"" + wordString(e.train.shard) +
                                         "\" (ZeRO stage 3) is not available in this version yet; use "
                                         "\"gradients\", \"optimizer\" or \"none\""});
  }
  // fp16's loss scaler skips a step when any gradient is inf/NaN: with sharded gradients each rank sees only
  // its own, and the ranks would disagree on skipping.
  if (e.train.shard >= ShardLevel::Gradients && e.train.amp == Precision::Fp16) {
    issues.push_back({"train.shard", "\"" + wordString(e.train.shard) +
                                         "\" does not work with train.amp = \"fp16\" yet (the loss "
                                         "scaler's inf/NaN check would see one shard); use \"optimizer\" or "
                                         "\"bf16\""});
  }
  // Stage 3 runs the model's top-level layers one by one, gathering each one's parameters around it.
  if (e.train.shard == ShardLevel::Parameters && !e.model.torchscript.empty()) {
    issues.push_back({"train.shard",
                      "\"parameters\" gathers the parameters layer by layer, and a TorchScript model "
                      "(model.torchscript) has no layer list; use \"gradients\" or \"optimizer\", or give "
                      "model.layers or a model.preset"});
  }
  if (e.train.shard == ShardLevel::Parameters && e.train.pipeline.enabled) {
    issues.push_back({"train.shard",
                      "\"parameters\" does not work with train.pipeline (each stage already holds only its "
                      "layers); use \"gradients\" or \"optimizer\", or set train.pipeline to false"});
  }
  return issues;
}

}  // namespace wb
