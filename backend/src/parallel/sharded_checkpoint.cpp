#include "parallel/sharded_checkpoint.h"

#include <map>
#include <set>
#include <sstream>

#include "optim/optimizer_state_io.h"
#include "torch_compat.h"
#include "workbench/errors.h"

namespace wb {
namespace {

using StateMap = std::remove_reference_t<decltype(std::declval<torch::optim::Optimizer&>().state())>;

// The optimizer's state of `shard`'s file, read into `optimizer` (replacing what it held).
void loadShardInto(torch::optim::Optimizer& optimizer, const LoadedCheckpoint& checkpoint,
                   const CheckpointShard& shard) {
  const CheckpointContents contents = readCheckpointShard(checkpoint.path, shard);
  std::istringstream in(contents.payload);
  torch::serialize::InputArchive archive;
  archive.load_from(in, torch::Device(torch::kCPU));
  loadOptimizerState(optimizer, archive);
}

// The shards' parameter names against the model's: each named parameter exists, each trainable one is named.
void checkShardsFitModel(const LoadedCheckpoint& checkpoint, const std::vector<CheckpointShard>& shards,
                         const std::map<std::string, torch::Tensor>& by_name, const ParameterOwner& owner) {
  std::set<std::string> named;
  for (const CheckpointShard& shard : shards) {
    for (const std::string& name : shard.parameters) {
      if (!by_name.count(name)) {
        throw UserError("Checkpoint " + shardPath(checkpoint.path, shard) +
                            " holds the optimizer state of parameter " + name +
                            ", which the model does not have.",
                        "The model in experiment.json was changed after the checkpoint was written.");
      }
      named.insert(name);
    }
  }
  for (const auto& [name, parameter] : by_name) {
    if (owner(parameter) >= 0 && !named.count(name)) {
      throw UserError("Checkpoint " + checkpoint.path +
                          ": none of its shard files holds the optimizer state of " + name + ".",
                      "The model in experiment.json was changed after the checkpoint was written.");
    }
  }
}

}  // namespace

std::vector<std::vector<std::string>> ownedParameterNames(Model& model, const ParameterOwner& owner,
                                                          int world_size) {
  std::vector<std::vector<std::string>> names(static_cast<size_t>(world_size));
  for (const auto& [name, parameter] : model.namedParameters()) {
    const int r = owner(parameter);
    if (r >= 0 && r < world_size) names[static_cast<size_t>(r)].push_back(name);
  }
  return names;
}

CheckpointShard writeOptimizerShard(const std::string& folder, int64_t step, int rank, int world_size,
                                    Model& model, torch::optim::Optimizer& optimizer,
                                    const ParameterOwner& owner, std::string& buffer) {
  torch::serialize::OutputArchive archive;
  optimizer.save(archive);
  buffer.clear();  // keeps its capacity
  archive.save_to([&buffer](const void* data, size_t n) {
    buffer.append(static_cast<const char*>(data), n);
    return n;
  });
  std::vector<std::string> mine = std::move(ownedParameterNames(model, owner, world_size)[rank]);
  return writeCheckpointShard(folder, step, rank, world_size, std::move(mine), buffer);
}

std::vector<CheckpointShard> gatherShardRecords(RankGroup& group, const CheckpointShard& mine, int64_t step,
                                                Model& model, const ParameterOwner& owner) {
  // Lengths and CRC-32s are below 2^53: exact as doubles, which every backend all-gathers.
  const torch::Tensor row = torch::tensor(
      {static_cast<double>(mine.check.bytes), static_cast<double>(mine.check.crc32)}, torch::kFloat64);
  const torch::Tensor all = group.allgather(row).cpu();
  std::vector<std::vector<std::string>> names = ownedParameterNames(model, owner, group.size());
  std::vector<CheckpointShard> shards;
  for (int r = 0; r < group.size(); ++r) {
    CheckpointShard s;
    s.file = checkpointShardName(step, r, group.size());
    s.rank = r;
    s.world_size = group.size();
    s.check.bytes = static_cast<uint64_t>(all[r][0].item<double>());
    s.check.crc32 = static_cast<uint32_t>(all[r][1].item<double>());
    s.parameters = std::move(names[static_cast<size_t>(r)]);
    shards.push_back(std::move(s));
  }
  return shards;
}

OptimizerStateAside::OptimizerStateAside(torch::optim::Optimizer& optimizer)
    : m_optimizer(optimizer), m_state(std::move(optimizer.state())) {
  m_optimizer.state().clear();
}

OptimizerStateAside::~OptimizerStateAside() {
  m_optimizer.state() = std::move(m_state);
}

void restoreOptimizerShards(const LoadedCheckpoint& checkpoint, Model& model,
                            torch::optim::Optimizer& optimizer, int rank, const ParameterOwner& owner) {
  const std::vector<CheckpointShard> shards = shardsOf(checkpoint.contents.meta, checkpoint.path);
  StateMap& state = optimizer.state();
  if (shards.empty()) {
    // The main file held every parameter's state: keep this rank's.
    for (const auto& parameter : model.parameters()) {
      if (owner(parameter) != rank) state.erase(compat::optimizerStateKey<StateMap>(parameter));
    }
    return;
  }
  std::map<std::string, torch::Tensor> by_name;
  for (const auto& [name, parameter] : model.namedParameters()) by_name[name] = parameter;
  checkShardsFitModel(checkpoint, shards, by_name, owner);
  StateMap kept;
  for (const CheckpointShard& shard : shards) {
    std::vector<std::string> mine;
    for (const std::string& name : shard.parameters) {
      if (owner(by_name.at(name)) == rank) mine.push_back(name);
    }
    if (mine.empty()) continue;  // none of its parameters are this rank's: not read
    loadShardInto(optimizer, checkpoint, shard);
    for (const std::string& name : mine) {
      const auto it = state.find(compat::optimizerStateKey<StateMap>(by_name.at(name)));
      if (it != state.end()) kept[it->first] = std::move(it->second);  // none yet: no step has touched it
    }
  }
  state = std::move(kept);
}

}  // namespace wb
