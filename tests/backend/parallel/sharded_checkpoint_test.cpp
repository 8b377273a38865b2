// A sharded run's checkpoint on disk (train.shard): the main file and one shard file per rank listed, pruned
// and verified as one checkpoint, orphan shards removed, a damaged shard sending the resume to the previous
// checkpoint with the file named; and its optimizer state re-sharded by parameter name onto 1, 2 and 3 ranks,
// tensor for tensor, each rank reading only the shard files that hold its parameters. (The runs that write
// and resume them: sharded_data_parallel_test.cpp; a kill -9: tests/cli/cli_data_parallel_test.cpp.)

#include "parallel/sharded_checkpoint.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "model/model.h"
#include "optim/optimizer_factory.h"
#include "optim/optimizer_state_io.h"
#include "parallel/shard_partition.h"
#include "run_folder/checkpoint_shards.h"
#include "run_folder/checkpoint_store.h"
#include "run_folder/training_state.h"
#include "support/test_experiments.h"
#include "torch_compat.h"

namespace wb {
namespace sharded_checkpoint_test {

namespace fs = std::filesystem;

std::set<std::string> filesIn(const std::string& folder) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) names.insert(entry.path().filename().string());
  return names;
}

// Step `step`'s checkpoint as a 2-rank sharded run writes it: the shards first, then the main file naming
// them.
std::string saveSharded(CheckpointStore& store, int64_t step) {
  std::vector<CheckpointShard> shards;
  for (int r = 0; r < 2; ++r) {
    shards.push_back(writeCheckpointShard(store.folder(), step, r, 2, {"layer" + std::to_string(r)},
                                          std::string(1000 + 10 * r, static_cast<char>('a' + r))));
  }
  return store.save(step, {{"shards", shardsToJson(shards)}}, "model weights");
}

class ShardedCheckpointFiles : public ::testing::Test {
 protected:
  void SetUp() override { dir = test::freshDir("sharded-ckpt"); }
  void TearDown() override { fs::remove_all(dir); }
  std::string dir;
};

TEST_F(ShardedCheckpointFiles, ListedAndPrunedAsOneCheckpointOrphansRemoved) {
  CheckpointStore store(dir, /*keep=*/2, /*minimize=*/true);
  for (int64_t step : {1, 2, 3}) saveSharded(store, step);
  const std::vector<std::string> listed = store.list();
  ASSERT_EQ(listed.size(), 2u);  // main files only: the shards belong to them
  EXPECT_EQ(fs::path(listed[0]).filename(), "step-000000000003.wbckpt");
  EXPECT_EQ(store.filesOf(listed[0]),
            (std::vector<std::string>{listed[0], store.folder() + "/step-000000000003.shard-0-of-2.wbshard",
                                      store.folder() + "/step-000000000003.shard-1-of-2.wbshard"}));
  // Step 1 pruned with its shard files.
  EXPECT_EQ(filesIn(store.folder()),
            (std::set<std::string>{"step-000000000002.wbckpt", "step-000000000002.shard-0-of-2.wbshard",
                                   "step-000000000002.shard-1-of-2.wbshard", "step-000000000003.wbckpt",
                                   "step-000000000003.shard-0-of-2.wbshard",
                                   "step-000000000003.shard-1-of-2.wbshard"}));

  // A kill between the shards' write and the main file's leaves shards no main file names; a resume on three
  // ranks that reached step 3 again left a third; the next save removes them.
  writeCheckpointShard(store.folder(), 4, 0, 2, {"layer0"}, "orphan");
  writeCheckpointShard(store.folder(), 4, 1, 2, {"layer1"}, "orphan");
  writeCheckpointShard(store.folder(), 3, 2, 3, {"layer1"}, "orphan");
  store.save(5, nlohmann::json::object(), "unsharded");  // e.g. resumed on one rank
  EXPECT_EQ(filesIn(store.folder()),
            (std::set<std::string>{"step-000000000003.wbckpt", "step-000000000003.shard-0-of-2.wbshard",
                                   "step-000000000003.shard-1-of-2.wbshard", "step-000000000005.wbckpt"}));
  EXPECT_EQ(store.filesOf(store.list()[0]), std::vector<std::string>{store.list()[0]});
}

TEST_F(ShardedCheckpointFiles, ADamagedOrMissingShardFallsBackToThePreviousCheckpointNamingTheFile) {
  CheckpointStore store(dir, /*keep=*/5, /*minimize=*/true);
  saveSharded(store, 1);
  saveSharded(store, 2);
  const std::string shard = store.folder() + "/step-000000000002.shard-1-of-2.wbshard";
  auto expectFallback = [&](const std::string& why) {
    SCOPED_TRACE(why);
    std::vector<std::string> warnings;
    const auto loaded = store.loadLatestGood([&](const std::string& w) { warnings.push_back(w); });
    ASSERT_TRUE(loaded.has_value());
    EXPECT_EQ(fs::path(loaded->path).filename(), "step-000000000001.wbckpt");
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find(shard), std::string::npos) << warnings[0];
    EXPECT_NE(warnings[0].find(why), std::string::npos) << warnings[0];
    EXPECT_NE(warnings[0].find("a shard of step-000000000002.wbckpt"), std::string::npos) << warnings[0];
    EXPECT_NE(warnings[0].find("using the previous one, step-000000000001.wbckpt"), std::string::npos)
        << warnings[0];
  };
  std::string bytes;
  {
    std::ifstream in(shard, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  ASSERT_TRUE(store.loadLatestGood({}).has_value());
  EXPECT_EQ(fs::path(store.loadLatestGood({})->path).filename(), "step-000000000002.wbckpt");

  std::string flipped = bytes;
  flipped[flipped.size() - 100] ^= 0x04;  // one bit in its optimizer state
  std::ofstream(shard, std::ios::binary | std::ios::trunc) << flipped;
  expectFallback("checksum mismatch");
  // Another shard file, whole in itself, in its place: not the one the main file names.
  writeCheckpointShard(store.folder(), 2, 1, 2, {"layer1"}, "something else of another length");
  expectFallback("its checkpoint names");
  fs::remove(shard);
  expectFallback("missing");
  std::ofstream(shard, std::ios::binary) << bytes;
  EXPECT_EQ(fs::path(store.loadLatestGood({})->path).filename(), "step-000000000002.wbckpt");
}

// The small MLP, its parameters, and AdamW state for every one of them after two steps.
struct TrainedMlp {
  std::unique_ptr<Model> model;
  std::unique_ptr<torch::optim::Optimizer> optimizer;
};

OptimizerConfig mlpOptimizer() {
  OptimizerConfig config;
  config.name = OptimizerName::AdamW;
  return config;
}

TrainedMlp buildMlp(bool step) {
  torch::manual_seed(5);
  TrainedMlp m;
  m.model = buildModel(test::smallMlpExperiment("").model, {1, 28, 28}, 10);
  m.optimizer = makeOptimizer(mlpOptimizer(), m.model->namedParameters());
  for (int k = 0; step && k < 2; ++k) {
    m.optimizer->zero_grad();
    m.model->forward(torch::randn({4, 1, 28, 28})).square().mean().backward();
    m.optimizer->step();
  }
  return m;
}

// The owner of each parameter when the model's trainable parameters are partitioned over `world` ranks, as
// ShardedTrainingState partitions them.
ParameterOwner partitionOwner(Model& model, int world) {
  std::vector<torch::Tensor> params;
  std::vector<int64_t> numels;
  for (const auto& p : model.parameters()) {
    if (!p.requires_grad()) continue;
    params.push_back(p);
    numels.push_back(p.numel());
  }
  const ShardPartition partition = partitionByNumel(numels, world);
  return [params, partition](const torch::Tensor& t) {
    for (size_t i = 0; i < params.size(); ++i) {
      if (params[i].unsafeGetTensorImpl() == t.unsafeGetTensorImpl()) return partition.owner[i];
    }
    return -1;
  };
}

using StateMap = std::remove_reference_t<decltype(std::declval<torch::optim::Optimizer&>().state())>;

const torch::optim::AdamWParamState* stateOf(torch::optim::Optimizer& optimizer, const torch::Tensor& p) {
  const auto it = optimizer.state().find(compat::optimizerStateKey<StateMap>(p));
  return it == optimizer.state().end() ? nullptr
                                       : static_cast<const torch::optim::AdamWParamState*>(it->second.get());
}

// Rank `rank` of `world` restoring `checkpoint`: the state it keeps, by parameter name, equals `saved`'s
// for every parameter it owns and is absent for the others. Returns how many it holds.
int expectRestoredShard(const LoadedCheckpoint& checkpoint, TrainedMlp& saved, int rank, int world) {
  SCOPED_TRACE("rank " + std::to_string(rank) + " of " + std::to_string(world));
  TrainedMlp resumed = buildMlp(false);
  restoreTrainingState(checkpoint.contents.payload, checkpoint.path, *resumed.model, *resumed.optimizer);
  const ParameterOwner owner = partitionOwner(*resumed.model, world);
  restoreOptimizerShards(checkpoint, *resumed.model, *resumed.optimizer, rank, owner);
  std::map<std::string, torch::Tensor> before;
  for (const auto& [name, p] : saved.model->namedParameters()) before[name] = p;
  int held = 0;
  for (const auto& [name, p] : resumed.model->namedParameters()) {
    const auto* got = stateOf(*resumed.optimizer, p);
    if (owner(p) != rank) {
      EXPECT_EQ(got, nullptr) << name << " is another rank's";
      continue;
    }
    const auto* want = stateOf(*saved.optimizer, before.at(name));
    if (!want || !got) {
      ADD_FAILURE() << name << (want ? " lost its state" : " had no state when saved");
      continue;
    }
    EXPECT_EQ(got->step(), want->step()) << name;
    EXPECT_TRUE(torch::equal(got->exp_avg(), want->exp_avg())) << name;
    EXPECT_TRUE(torch::equal(got->exp_avg_sq(), want->exp_avg_sq())) << name;
    ++held;
  }
  return held;
}

TEST_F(ShardedCheckpointFiles, OptimizerStateReshardsByNameOntoEveryRankCount) {
  TrainedMlp saved = buildMlp(true);
  const size_t parameters = saved.model->parameters().size();
  ASSERT_EQ(saved.optimizer->state().size(), parameters);
  CheckpointStore store(dir, 5, true);
  std::string buffer;

  // Written by two ranks, each holding its own shard's state only (as ShardedTrainingState leaves it).
  const ParameterOwner owner2 = partitionOwner(*saved.model, 2);
  std::vector<CheckpointShard> shards;
  for (int r = 0; r < 2; ++r) {
    auto optimizer = makeOptimizer(mlpOptimizer(), saved.model->namedParameters());
    torch::serialize::OutputArchive whole;
    saved.optimizer->save(whole);
    std::stringstream bytes;
    whole.save_to(bytes);
    torch::serialize::InputArchive in;
    in.load_from(bytes);
    loadOptimizerState(*optimizer, in);
    for (const auto& p : saved.model->parameters()) {
      if (owner2(p) != r) optimizer->state().erase(compat::optimizerStateKey<StateMap>(p));
    }
    shards.push_back(writeOptimizerShard(store.folder(), 8, r, 2, *saved.model, *optimizer, owner2, buffer));
  }
  EXPECT_EQ(shards[0].parameters.size() + shards[1].parameters.size(), parameters);
  {
    const OptimizerStateAside aside(*saved.optimizer);  // the main file: the model, no optimizer state
    serializeTrainingState(*saved.model, *saved.optimizer, buffer);
  }
  ASSERT_EQ(saved.optimizer->state().size(), parameters);  // put back
  store.save(8, {{"shards", shardsToJson(shards)}}, buffer);
  const auto checkpoint = store.loadLatestGood({});
  ASSERT_TRUE(checkpoint.has_value());

  for (int world : {1, 2, 3}) {
    int held = 0;
    for (int r = 0; r < world; ++r) held += expectRestoredShard(*checkpoint, saved, r, world);
    EXPECT_EQ(held, static_cast<int>(parameters)) << world << " ranks hold every parameter's state once";
  }
  // On two ranks again, rank 0 reads its own shard file alone: it restores without rank 1's.
  const std::string other = store.folder() + "/" + shards[1].file;
  fs::rename(other, other + ".away");
  expectRestoredShard(*checkpoint, saved, 0, 2);
  EXPECT_THROW(expectRestoredShard(*checkpoint, saved, 1, 2), CorruptCheckpoint);
  fs::rename(other + ".away", other);

  // An unsharded run's (or an older build's) checkpoint holds the whole state in its main file: two or three
  // ranks each keep theirs.
  serializeTrainingState(*saved.model, *saved.optimizer, buffer);
  store.save(9, nlohmann::json::object(), buffer);
  const auto whole = store.loadLatestGood({});
  ASSERT_EQ(fs::path(whole->path).filename(), "step-000000000009.wbckpt");
  for (int world : {2, 3}) {
    int held = 0;
    for (int r = 0; r < world; ++r) held += expectRestoredShard(*whole, saved, r, world);
    EXPECT_EQ(held, static_cast<int>(parameters));
  }
}

}  // namespace sharded_checkpoint_test
}  // namespace wb
