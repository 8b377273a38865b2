// proposePipelineCut: known optimal cuts on small cases, and every cut of random small cases tried by brute
// force.
#include "pipeline/pipeline_cut.h"

#include <gtest/gtest.h>

#include <functional>
#include <random>

namespace wb {
namespace {

PipelineCutRequest cutRequest(const std::vector<int64_t>& flops, int devices) {
  PipelineCutRequest request;
  request.devices = devices;
  request.bytes_per_parameter = 1;
  request.bytes_per_activation = 1;
  for (size_t i = 0; i < flops.size(); ++i)
    request.layers.push_back({"l" + std::to_string(i), 0, flops[i], 0});
  return request;
}

std::vector<std::pair<size_t, size_t>> stageRanges(const PipelineCut& cut) {
  std::vector<std::pair<size_t, size_t>> ranges;
  for (const PipelineStage& stage : cut.stages) ranges.emplace_back(stage.first, stage.last);
  return ranges;
}

using Ranges = std::vector<std::pair<size_t, size_t>>;

TEST(PipelineCut, BalancesTheSlowestStage) {
  // {1}|{2,3,4} = 9, {1,2}|{3,4} = 7, {1,2,3}|{4} = 6.
  const PipelineCut cut = proposePipelineCut(cutRequest({1, 2, 3, 4}, 2));
  ASSERT_TRUE(cut.ok()) << cut.problem;
  EXPECT_EQ(stageRanges(cut), (Ranges{{0, 2}, {3, 3}}));
  EXPECT_EQ(cut.slowest_stage, 6);
  EXPECT_TRUE(cut.balanced_by_flops);
  EXPECT_EQ(cut.stages[0].flops, 6);
  EXPECT_EQ(cut.stages[0].first_name, "l0");
  EXPECT_EQ(cut.stages[0].last_name, "l2");
}

TEST(PipelineCut, AmongEquallyFastCutsTakesTheMostEven) {
  // The last layer sets the pace (10) whatever the cut: the six before it are split 3|3, not 1|5.
  const PipelineCut cut = proposePipelineCut(cutRequest({1, 1, 1, 1, 1, 1, 10}, 3));
  ASSERT_TRUE(cut.ok()) << cut.problem;
  EXPECT_EQ(stageRanges(cut), (Ranges{{0, 2}, {3, 5}, {6, 6}}));
  EXPECT_EQ(cut.slowest_stage, 10);
}

TEST(PipelineCut, MemoryLimitsMoveTheCut) {
  PipelineCutRequest request = cutRequest({1, 2, 3, 4}, 2);
  request.layers[2].parameters = 60;  // 60 bytes: too much for the first device
  request.device_memory = {50, 1000};
  const PipelineCut cut = proposePipelineCut(request);
  ASSERT_TRUE(cut.ok()) << cut.problem;
  EXPECT_EQ(stageRanges(cut), (Ranges{{0, 1}, {2, 3}}));
  EXPECT_EQ(cut.slowest_stage, 7);
  EXPECT_EQ(cut.stages[1].memory_bytes, 60);
  EXPECT_EQ(cut.stages[1].parameters, 60);
}

TEST(PipelineCut, ActivationsCountPerSampleOfTheBatch) {
  PipelineCutRequest request = cutRequest({1, 1}, 2);
  request.layers[0].output_elements = 10;
  request.layers[1].parameters = 3;
  request.batch = 8;
  request.bytes_per_activation = 4;
  request.bytes_per_parameter = 16;
  const PipelineCut cut = proposePipelineCut(request);
  ASSERT_TRUE(cut.ok()) << cut.problem;
  EXPECT_EQ(cut.stages[0].memory_bytes, 10 * 8 * 4);
  EXPECT_EQ(cut.stages[1].memory_bytes, 3 * 16);

  // 1F1B's first stage keeps more samples than its last: the stages' own counts.
  request.stage_samples = {2, 1};
  const PipelineCut per_stage = proposePipelineCut(request);
  ASSERT_TRUE(per_stage.ok()) << per_stage.problem;
  EXPECT_EQ(per_stage.stages[0].memory_bytes, 10 * 2 * 4);
  request.stage_samples = {2};
  EXPECT_FALSE(proposePipelineCut(request).ok());
}

TEST(PipelineCut, UnknownFlopsBalanceByParameters) {
  PipelineCutRequest request = cutRequest({-1, 5, 5}, 2);
  request.layers[0].parameters = 100;
  request.layers[1].parameters = 1;
  request.layers[2].parameters = 1;
  const PipelineCut cut = proposePipelineCut(request);
  ASSERT_TRUE(cut.ok()) << cut.problem;
  EXPECT_FALSE(cut.balanced_by_flops);
  EXPECT_EQ(stageRanges(cut), (Ranges{{0, 0}, {1, 2}}));
  EXPECT_EQ(cut.slowest_stage, 100);
}

TEST(PipelineCut, SaysWhyNoCutExists) {
  const PipelineCut too_few = proposePipelineCut(cutRequest({1, 2}, 3));
  EXPECT_FALSE(too_few.ok());
  EXPECT_NE(too_few.problem.find("2 top-level layers"), std::string::npos) << too_few.problem;
  EXPECT_TRUE(too_few.stages.empty());

  PipelineCutRequest huge = cutRequest({1, 2, 3}, 2);
  huge.layers[1].parameters = 5 << 20;
  huge.device_memory = {1 << 20, 2 << 20};
  const PipelineCut one_layer = proposePipelineCut(huge);
  EXPECT_FALSE(one_layer.ok());
  EXPECT_NE(one_layer.problem.find("layer 'l1' alone needs 5.0 MiB"), std::string::npos) << one_layer.problem;

  PipelineCutRequest whole = cutRequest({1, 2, 3}, 2);
  for (PipelineLayerCost& layer : whole.layers) layer.parameters = 1 << 20;
  whole.device_memory = {1 << 20, 1 << 20};
  const PipelineCut together = proposePipelineCut(whole);
  EXPECT_FALSE(together.ok());
  EXPECT_NE(together.problem.find("the model needs 3.0 MiB, the devices hold 2.0 MiB"), std::string::npos)
      << together.problem;

  PipelineCutRequest wrong_list = cutRequest({1, 2, 3}, 2);
  wrong_list.device_memory = {1};
  EXPECT_FALSE(proposePipelineCut(wrong_list).ok());
}

// Every cut of `count` layers into `stages` contiguous non-empty stages, as the starts of stages 1.. .
void everyCut(size_t count, size_t stages, std::vector<size_t>& starts,
              const std::function<void(const std::vector<size_t>&)>& visit) {
  if (starts.size() == stages) {
    visit(starts);
    return;
  }
  const size_t from = starts.empty() ? 0 : starts.back() + 1;
  const size_t left = stages - starts.size();
  if (starts.empty()) {
    starts.push_back(0);
    everyCut(count, stages, starts, visit);
    starts.pop_back();
    return;
  }
  for (size_t start = from; start + left <= count; ++start) {
    starts.push_back(start);
    everyCut(count, stages, starts, visit);
    starts.pop_back();
  }
}

struct BruteBest {
  bool found = false;
  int64_t slowest = 0;
  double squares = 0;
};

BruteBest bruteForce(const PipelineCutRequest& request) {
  BruteBest best;
  std::vector<size_t> starts;
  const size_t count = request.layers.size();
  everyCut(count, static_cast<size_t>(request.devices), starts, [&](const std::vector<size_t>& cut) {
    int64_t slowest = 0;
    double squares = 0;
    for (size_t k = 0; k < cut.size(); ++k) {
      const size_t end = k + 1 < cut.size() ? cut[k + 1] : count;
      int64_t time = 0;
      int64_t memory = 0;
      for (size_t i = cut[k]; i < end; ++i) {
        time += request.layers[i].flops;
        const int64_t samples = request.stage_samples.empty() ? request.batch : request.stage_samples[k];
        memory += request.layers[i].parameters * request.bytes_per_parameter +
                  request.layers[i].output_elements * samples * request.bytes_per_activation;
      }
      if (!request.device_memory.empty() && memory > request.device_memory[k]) return;
      slowest = std::max(slowest, time);
      squares += static_cast<double>(time) * static_cast<double>(time);
    }
    if (!best.found || slowest < best.slowest || (slowest == best.slowest && squares < best.squares))
      best = {true, slowest, squares};
  });
  return best;
}

TEST(PipelineCut, MatchesBruteForceOnRandomSmallModels) {
  std::mt19937 random(42);
  for (int trial = 0; trial < 400; ++trial) {
    const int count = 1 + static_cast<int>(random() % 9);
    const int devices = 1 + static_cast<int>(random() % std::min(count, 4));
    PipelineCutRequest request = cutRequest({}, devices);
    for (int i = 0; i < count; ++i) {
      request.layers.push_back({"l" + std::to_string(i), static_cast<int64_t>(random() % 50),
                                static_cast<int64_t>(random() % 20), static_cast<int64_t>(random() % 5)});
    }
    request.batch = 1 + random() % 3;
    if (trial % 3 == 0) {
      for (int k = 0; k < devices; ++k)
        request.stage_samples.push_back(1 + static_cast<int64_t>(random() % 4));
    }
    if (trial % 2 == 0) {
      for (int k = 0; k < devices; ++k)
        request.device_memory.push_back(40 + static_cast<int64_t>(random() % 120));
    }
    const BruteBest best = bruteForce(request);
    const PipelineCut cut = proposePipelineCut(request);
    ASSERT_EQ(cut.ok(), best.found) << "trial " << trial << ": " << cut.problem;
    if (!best.found) continue;
    EXPECT_EQ(cut.slowest_stage, best.slowest) << "trial " << trial;
    ASSERT_EQ(cut.stages.size(), static_cast<size_t>(devices));
    double squares = 0;
    size_t next = 0;
    for (size_t k = 0; k < cut.stages.size(); ++k) {
      const PipelineStage& stage = cut.stages[k];
      EXPECT_EQ(stage.first, next) << "trial " << trial << ": stages contiguous from the first layer";
      EXPECT_LE(stage.first, stage.last);
      next = stage.last + 1;
      EXPECT_LE(stage.flops, cut.slowest_stage);
      if (!request.device_memory.empty()) {
        EXPECT_LE(stage.memory_bytes, request.device_memory[k]);
      }
      squares += static_cast<double>(stage.flops) * static_cast<double>(stage.flops);
    }
    EXPECT_EQ(next, request.layers.size());
    EXPECT_DOUBLE_EQ(squares, best.squares) << "trial " << trial;
    EXPECT_EQ(stageRanges(proposePipelineCut(request)), stageRanges(cut)) << "deterministic";
  }
}

TEST(PipelineCut, TakesTheSummarysTopLevelLayers) {
  ModelSummary summary;
  summary.rows.push_back({"0", "conv2d", "", 0, {8, 4, 4}, 80, 0, true, 0, 1000});
  summary.rows.push_back({"1", "residual", "", 0, {8, 4, 4}, 20, 0, true, 0, 500});
  summary.rows.push_back({"1.layers.0", "conv2d", "", 1, {8, 4, 4}, 20, 0, true, 0, 500});
  summary.rows.push_back({"2", "linear", "", 0, {10}, 1290, 0, true, 0, 2560});
  const std::vector<PipelineLayerCost> layers = pipelineLayers(summary);
  ASSERT_EQ(layers.size(), 3u);
  EXPECT_EQ(layers[1].name, "1");
  EXPECT_EQ(layers[1].output_elements, 128);
  EXPECT_EQ(layers[2].parameters, 1290);
  EXPECT_EQ(layers[2].flops, 2560);
  summary.torchscript = true;
  EXPECT_TRUE(pipelineLayers(summary).empty());
}

}  // namespace
}  // namespace wb
