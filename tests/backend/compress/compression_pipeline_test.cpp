// The compression pipeline end to end on a small real run: artifacts written, reloaded and measured against
// the original; masks kept through fine-tuning; a pipeline stopped mid fine-tune continues from its
// checkpoint (not from the start) and ends bit-identical to one left alone; a pass's fine-tuning trains data
// parallel on the run's devices as the run did.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "compress/model_artifact.h"
#include "support/test_experiments.h"
#include "support/test_helpers.h"
#include "workbench/compression.h"
#include "workbench/errors.h"
#include "workbench/event_json.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

CompressPassConfig pass(const std::string& json) {
  const ParseResult r = parseExperiment(
      nlohmann::json{{"compress", {{"passes", nlohmann::json::array({nlohmann::json::parse(json)})}}}});
  EXPECT_TRUE(r.ok()) << formatIssues(r.issues);
  return r.experiment.compress.passes.at(0);
}

CompressConfig config(std::vector<CompressPassConfig> passes) {
  CompressConfig c;
  c.passes = std::move(passes);
  c.latency_runs = 3;
  return c;
}

struct Collected {
  std::vector<ArtifactFigures> figures;
  std::vector<CompressionStage> stages;
  std::vector<std::string> logs;
  std::vector<RunError> errors;
  std::vector<int64_t> steps;
};

CompressionReport compress(const std::string& run_dir, const CompressConfig& c, Collected& out,
                           int64_t stop_after_step = 0) {
  CompressionRun* self = nullptr;
  CompressionRun run(CompressRequest{run_dir, c}, [&](EventBatch&& batch) {
    for (const Event& e : batch) {
      if (const auto* f = std::get_if<ArtifactFigures>(&e)) out.figures.push_back(*f);
      if (const auto* s = std::get_if<CompressionStage>(&e)) out.stages.push_back(*s);
      if (const auto* l = std::get_if<LogLine>(&e)) out.logs.push_back(l->text);
      if (const auto* r = std::get_if<RunError>(&e)) out.errors.push_back(*r);
      if (const auto* m = std::get_if<StepMetrics>(&e)) {
        out.steps.push_back(m->step);
        if (stop_after_step > 0 && m->step >= stop_after_step) self->requestStop();
      }
    }
  });
  self = &run;
  run.start();
  run.wait();
  return run.report();
}

class CompressionPipeline : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_runs = test::freshDir("compress");
    Experiment e = test::smallMlpExperiment(s_runs);
    e.train.epochs = 1;
    e.train.checkpoint_every_steps = 4;
    e.train.checkpoint_every_minutes = 0;
    const RunSummary s = trainBlocking(e, [](EventBatch&&) {});
    ASSERT_EQ(s.status, RunStatus::Completed);
    s_run = s.run_dir;
  }
  static void TearDownTestSuite() { fs::remove_all(s_runs); }

  // A copy of the trained run, so each test compresses a folder of its own.
  static std::string freshRun(const std::string& name) {
    const std::string dir = s_runs + "/" + name;
    fs::remove_all(dir);
    fs::copy(s_run, dir, fs::copy_options::recursive);
    return dir;
  }

  static std::string s_runs;
  static std::string s_run;
};

std::string CompressionPipeline::s_runs;
std::string CompressionPipeline::s_run;

TEST_F(CompressionPipeline, PruneFineTuneAndMeasureAgainstTheOriginal) {
  const std::string run = freshRun("prune");
  Collected got;
  const CompressionReport report =
      compress(run, config({pass(R"({"type": "prune", "amount": 0.8, "epochs": 1})")}), got);
  ASSERT_EQ(report.status, RunStatus::Completed) << (got.errors.empty() ? "" : got.errors[0].message);
  ASSERT_EQ(report.artifacts.size(), 2u);
  const ArtifactFigures& original = report.artifacts[0];
  const ArtifactFigures& pruned = report.artifacts[1];
  EXPECT_EQ(original.name, "00-original");
  EXPECT_EQ(pruned.name, "01-prune");
  EXPECT_EQ(pruned.path, "compressed/01-prune");
  EXPECT_EQ(pruned.source, "00-original");
  EXPECT_EQ(original.parameters, pruned.parameters);
  // 80% of the two hidden layers' weights (784*256 + 256*128) are zero; the output layer and biases are not.
  const int64_t selected = 784 * 256 + 256 * 128;
  EXPECT_NEAR(static_cast<double>(original.nonzero_parameters - pruned.nonzero_parameters), 0.8 * selected,
              2.0);
  EXPECT_GT(pruned.test_accuracy, 0.5);
  EXPECT_GT(original.latency_ms_batch64, 0);
  EXPECT_GT(pruned.size_bytes, 0);
  // Unstructured pruning keeps the dense layout: the file is the original's size, masks are not stored.
  EXPECT_LT(pruned.size_bytes, original.size_bytes * 1.05);

  // The artifact reloads on its own, holds its masks, and its pruned weights stayed zero through fine-tuning.
  const ModelArtifact a = loadArtifact(run + "/compressed/01-prune");
  ASSERT_EQ(a.masks.size(), 2u);
  for (const auto& [name, mask] : a.masks) {
    const torch::Tensor w = a.tensor(name);
    EXPECT_EQ(w.masked_select(mask == 0).abs().max().item<double>(), 0.0) << name;
  }
  ASSERT_EQ(a.history.size(), 1u);
  EXPECT_GT(a.history[0]["fine_tuning"]["steps"].get<int64_t>(), 0);
  // Its fine-tuning is a normal training phase: logs in the pass's folder, checkpoints removed once done.
  EXPECT_TRUE(fs::exists(run + "/compressed/01-prune/metrics.jsonl"));
  EXPECT_FALSE(fs::exists(run + "/compressed/01-prune/checkpoints"));

  const EvalResult eval = evaluateArtifact(run, "compressed/01-prune");
  EXPECT_NEAR(eval.accuracy, pruned.test_accuracy, 1e-9);
  EXPECT_THROW(evaluateArtifact(run, "compressed/07-nothing"), UserError);

  // compress.json holds the same figures, and the stages went started -> finished.
  const auto stored = readCompressionReport(run);
  ASSERT_EQ(stored.size(), 2u);
  EXPECT_EQ(stored[1].nonzero_parameters, pruned.nonzero_parameters);
  ASSERT_FALSE(got.stages.empty());
  EXPECT_EQ(got.stages.front().state, StageState::Started);
  EXPECT_EQ(got.stages.back().state, StageState::Finished);

  // A second pipeline on the same run numbers its artifacts after the first's.
  Collected again;
  const CompressionReport second =
      compress(run, config({pass(R"({"type": "prune", "amount": 0.5, "scope": "layer"})")}), again);
  ASSERT_EQ(second.status, RunStatus::Completed);
  ASSERT_EQ(second.artifacts.size(), 3u);
  EXPECT_EQ(second.artifacts[2].name, "02-prune");
}

// Structured pruning, then distillation of a new student from the original, then int8: each artifact made
// from the one before, the smaller shapes and the student's architecture carried, the last one int8.
TEST_F(CompressionPipeline, StructuredDistilledAndQuantizedInOnePipeline) {
  const std::string run = freshRun("chain");
  Collected got;
  const CompressionReport report = compress(
      run,
      config(
          {pass(R"({"type": "prune", "method": "structured", "amount": 0.5})"),
           pass(
               R"({"type": "distill", "teacher": "original", "max_steps": 15, "temperature": 2, "alpha": 0.5})"),
           pass(R"({"type": "quantize", "mode": "static", "calibration_batches": 4})")}),
      got);
  ASSERT_EQ(report.status, RunStatus::Completed) << (got.errors.empty() ? "" : got.errors[0].message);
  ASSERT_EQ(report.artifacts.size(), 4u);
  const ArtifactFigures& original = report.artifacts[0];
  const ArtifactFigures& structured = report.artifacts[1];
  const ArtifactFigures& distilled = report.artifacts[2];
  const ArtifactFigures& int8 = report.artifacts[3];
  // The MLP's hidden layers lose half their neurons: 784*128+128 + 128*64+64 + 64*10+10 parameters.
  EXPECT_EQ(structured.parameters, 784 * 128 + 128 + 128 * 64 + 64 + 64 * 10 + 10);
  EXPECT_LT(structured.flops_per_sample, original.flops_per_sample / 2);
  EXPECT_EQ(distilled.source, "01-prune");
  EXPECT_EQ(distilled.parameters, structured.parameters);  // the student is the pruned model
  EXPECT_GT(distilled.test_accuracy, 0.5);
  EXPECT_EQ(int8.weights_dtype, "int8");
  EXPECT_LT(int8.size_bytes, structured.size_bytes * 0.35);
  EXPECT_GT(int8.test_accuracy, distilled.test_accuracy - 0.03);
  const ModelArtifact a = loadArtifact(run + "/compressed/02-distill");
  ASSERT_EQ(a.history.size(), 2u);
  EXPECT_EQ(a.history[1]["teacher"], "the run's trained model");
  EXPECT_EQ(a.layers[1]["out_features"], 128);  // the pruned architecture travelled
  const ModelArtifact q = loadArtifact(run + "/compressed/03-quantize");
  EXPECT_TRUE(q.isQuantized());
  EXPECT_EQ(q.history.size(), 3u);
  EXPECT_NEAR(evaluateArtifact(run, "compressed/03-quantize").accuracy, int8.test_accuracy, 1e-9);
}

// Gradual pruning: the sparsity rises on the cubic schedule during the pass's fine-tuning and ends at the
// target, the pruned weights zero in the artifact.
TEST_F(CompressionPipeline, GradualPruningReachesTheTargetDuringFineTuning) {
  const std::string run = freshRun("gradual");
  Collected got;
  const CompressionReport report = compress(
      run,
      config({pass(
          R"({"type": "prune", "amount": 0.6, "schedule": "gradual", "scope": "layer", "max_steps": 20})")}),
      got);
  ASSERT_EQ(report.status, RunStatus::Completed) << (got.errors.empty() ? "" : got.errors[0].message);
  const ModelArtifact a = loadArtifact(run + "/compressed/01-prune");
  const nlohmann::json& record = a.history.at(0);
  EXPECT_EQ(record["schedule"]["kind"], "cubic");
  EXPECT_EQ(record["schedule"]["steps"], 20);
  EXPECT_EQ(record["fine_tuning"]["steps"], 20);
  for (const auto& layer : record["masks"]["layers"]) {
    EXPECT_NEAR(layer["pruned"].get<double>(), 0.6 * layer["size"].get<double>(), 1.0) << layer["name"];
  }
  ASSERT_EQ(a.masks.size(), 2u);
  for (const auto& [name, mask] : a.masks) {
    EXPECT_NEAR(1.0 - mask.mean().item<double>(), 0.6, 1e-3) << name;
  }
}

// Quantization-aware training as a pipeline pass: a fine-tuning phase (its steps in the pass's log), then an
// int8 artifact whose record says qat.
TEST_F(CompressionPipeline, QuantizationAwareTrainingEndsInt8) {
  const std::string run = freshRun("qat");
  Collected got;
  const CompressionReport report = compress(
      run, config({pass(R"({"type": "quantize", "mode": "qat", "max_steps": 12, "lr": 0.0001})")}), got);
  ASSERT_EQ(report.status, RunStatus::Completed) << (got.errors.empty() ? "" : got.errors[0].message);
  ASSERT_EQ(report.artifacts.size(), 2u);
  EXPECT_EQ(report.artifacts[1].weights_dtype, "int8");
  EXPECT_GT(report.artifacts[1].test_accuracy, report.artifacts[0].test_accuracy - 0.05);
  ASSERT_FALSE(got.steps.empty());
  EXPECT_EQ(got.steps.back(), 12);
  const ModelArtifact a = loadArtifact(run + "/compressed/01-quantize");
  EXPECT_EQ(a.quantization["mode"], "qat");
  EXPECT_EQ(a.history[0]["fine_tuning"]["steps"], 12);
}

// Stopped during the fine-tuning, then run again: the pass continues from its checkpoint (step > 0, only the
// remaining steps) and ends with the same weights as a pipeline left alone.
TEST_F(CompressionPipeline, StoppedFineTuneContinuesFromItsCheckpoint) {
  const CompressConfig c = config({pass(R"({"type": "finetune", "epochs": 2})")});
  const std::string alone = freshRun("alone");
  Collected a;
  ASSERT_EQ(compress(alone, c, a).status, RunStatus::Completed);

  const std::string stopped = freshRun("stopped");
  Collected first;
  const CompressionReport interrupted = compress(stopped, c, first, /*stop_after_step=*/10);
  ASSERT_EQ(interrupted.status, RunStatus::Interrupted);
  EXPECT_FALSE(isCompleteArtifact(stopped + "/compressed/01-finetune"));
  ASSERT_TRUE(fs::exists(stopped + "/compressed/01-finetune/checkpoints"));

  Collected second;
  ASSERT_EQ(compress(stopped, c, second).status, RunStatus::Completed);
  bool resumed = false;
  for (const auto& s : second.stages) resumed = resumed || s.state == StageState::Resumed;
  EXPECT_TRUE(resumed);
  int64_t continued_at = -1;
  for (const std::string& line : second.logs) {
    const auto at = line.find("continuing at step ");
    if (at != std::string::npos) continued_at = std::stoll(line.substr(at + 19));
  }
  ASSERT_GE(continued_at, 8) << "the second session must continue from the checkpoint, not start over";
  ASSERT_FALSE(second.steps.empty());
  EXPECT_GT(second.steps.front(), continued_at);  // only the remaining steps were trained
  const ModelArtifact left_alone = loadArtifact(alone + "/compressed/01-finetune");
  const ModelArtifact continued = loadArtifact(stopped + "/compressed/01-finetune");
  ASSERT_EQ(left_alone.weights.size(), continued.weights.size());
  ASSERT_FALSE(left_alone.weights.empty());
  for (size_t i = 0; i < left_alone.weights.size(); ++i) {
    EXPECT_TRUE(torch::equal(left_alone.weights[i].second, continued.weights[i].second))
        << left_alone.weights[i].first;
  }
}

// The run's experiment with other devices and batch (and SGD, whose steps DDP's promise is exact for).
void trainOn(const std::string& run, int ranks, int64_t batch) {
  ParseResult parsed = loadExperimentFile(run + "/experiment.json");
  ASSERT_TRUE(parsed.ok()) << formatIssues(parsed.issues);
  Experiment& e = parsed.experiment;
  e.train.devices = std::vector<std::string>(ranks, "cpu");
  e.train.batch_size = batch;
  e.train.collective_timeout = 30;
  e.optimizer.name = OptimizerName::Sgd;
  e.optimizer.lr = 0.05;
  e.optimizer.momentum = 0.9;
  e.optimizer.weight_decay = 0;
  std::ofstream(run + "/experiment.json") << experimentToJson(e).dump(2) << "\n";
}

double maxArtifactDifference(const ModelArtifact& a, const ModelArtifact& b) {
  EXPECT_EQ(a.weights.size(), b.weights.size());
  double most = 0;
  for (size_t i = 0; i < std::min(a.weights.size(), b.weights.size()); ++i) {
    most = std::max(most, (a.weights[i].second - b.weights[i].second).abs().max().item<double>());
  }
  return most;
}

// A pruning pass's fine-tuning on the run's two CPU ranks of batch 16 trains the weights one rank of batch 32
// trains (the shards, the averaged gradients), the masks hold on every rank, and rank 1 logs to its own file.
TEST_F(CompressionPipeline, FineTuningTrainsDataParallelOnTheRunsDevices) {
#ifndef WB_WITH_GLOO
  GTEST_SKIP() << WB_NO_GLOO_REASON;
#endif
  // A run of a model without dropout (each rank draws its own dropout masks, one rank of the whole batch
  // others).
  Experiment e = test::smallMlpExperiment(s_runs + "/dp-runs");
  e.model.preset = "";
  e.model.layers = nlohmann::json::array({{{"type", "flatten"}},
                                          {{"type", "linear"}, {"out_features", 64}},
                                          {{"type", "relu"}},
                                          {{"type", "linear"}, {"out_features", 10}}});
  e.train.epochs = 1;
  const RunSummary trained = trainBlocking(e, [](EventBatch&&) {});
  ASSERT_EQ(trained.status, RunStatus::Completed);
  const CompressConfig c = config({pass(R"({"type": "prune", "amount": 0.5, "max_steps": 12})")});
  auto compressOn = [&](const std::string& name, int ranks, int64_t batch, Collected& got) {
    const std::string run = s_runs + "/" + name;
    fs::remove_all(run);
    fs::copy(trained.run_dir, run, fs::copy_options::recursive);
    trainOn(run, ranks, batch);
    const CompressionReport report = compress(run, c, got);
    EXPECT_EQ(report.status, RunStatus::Completed) << (got.errors.empty() ? "" : got.errors[0].message);
    return run;
  };
  Collected one_got, two_got, half_got;
  const std::string one = compressOn("dp-one", 1, 32, one_got);
  const std::string two = compressOn("dp-two", 2, 16, two_got);
  const ModelArtifact a = loadArtifact(one + "/compressed/01-prune");
  const ModelArtifact b = loadArtifact(two + "/compressed/01-prune");
  EXPECT_EQ(b.history.at(0)["fine_tuning"]["steps"], 12);
  // fp32: only the order of additions differs (two half-batch means averaged vs one mean).
  EXPECT_LT(maxArtifactDifference(a, b), 2e-5);
  ASSERT_EQ(b.masks.size(), 1u);  // the hidden layer's (the output layer is not pruned)
  for (const auto& [name, mask] : b.masks) {
    EXPECT_EQ(b.tensor(name).masked_select(mask == 0).abs().max().item<double>(), 0.0) << name;
  }
  bool said = false;
  for (const std::string& line : two_got.logs)
    said = said || line.find("data parallel on 2 ranks") != std::string::npos;
  EXPECT_TRUE(said);
  EXPECT_TRUE(fs::exists(two + "/compressed/01-prune/rank-1.log"));
  // And not by accident: one rank of batch 16 (half the data per step) trains other weights.
  const std::string half = compressOn("dp-half", 1, 16, half_got);
  EXPECT_GT(maxArtifactDifference(a, loadArtifact(half + "/compressed/01-prune")), 1e-3);
}

// Every kind of training pass on two ranks: gradual pruning (each rank raises its own copy of the masks,
// alike: the weights are the same on every rank), distillation (a teacher per rank) and quantization-aware
// training (rank 0's observer ranges broadcast with the buffers).
TEST_F(CompressionPipeline, EveryTrainingPassRunsDataParallelOnTwoRanks) {
#ifndef WB_WITH_GLOO
  GTEST_SKIP() << WB_NO_GLOO_REASON;
#endif
  const std::string run = freshRun("dp-passes");
  trainOn(run, 2, 32);
  Collected got;
  const CompressionReport report = compress(
      run,
      config(
          {pass(
               R"({"type": "prune", "amount": 0.5, "schedule": "gradual", "scope": "layer", "max_steps": 8})"),
           pass(R"({"type": "distill", "max_steps": 4})"),
           pass(R"({"type": "quantize", "mode": "qat", "max_steps": 4, "lr": 0.0001})")}),
      got);
  ASSERT_EQ(report.status, RunStatus::Completed) << (got.errors.empty() ? "" : got.errors[0].message);
  ASSERT_EQ(report.artifacts.size(), 4u);
  const ModelArtifact pruned = loadArtifact(run + "/compressed/01-prune");
  EXPECT_EQ(pruned.history.at(0)["fine_tuning"]["steps"], 8);
  for (const auto& [name, mask] : pruned.masks)
    EXPECT_NEAR(1.0 - mask.mean().item<double>(), 0.5, 1e-3) << name;
  EXPECT_EQ(report.artifacts[3].weights_dtype, "int8");
  EXPECT_GT(report.artifacts[3].test_accuracy, 0.5);
  for (const char* folder : {"01-prune", "02-distill", "03-quantize"}) {
    EXPECT_TRUE(fs::exists(run + "/compressed/" + folder + "/rank-1.log")) << folder;
  }
}

TEST_F(CompressionPipeline, RefusesWhatCannotRun) {
  const std::string run = freshRun("refuse");
  auto issues = checkCompression(run, config({pass(R"({"type": "distill", "teacher": "no/such/run"})")}));
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].path, "compress.passes[0].teacher");
  EXPECT_NE(issues[0].message.find("no/such/run"), std::string::npos);

  Collected got;
  const CompressionReport r = compress(run, config({}), got);
  EXPECT_EQ(r.status, RunStatus::Failed);
  ASSERT_FALSE(got.errors.empty());
  EXPECT_EQ(got.errors[0].kind, ErrorKind::BadInput);

  // An unfinished run is refused, naming what to do.
  const std::string unfinished = freshRun("unfinished");
  fs::remove(unfinished + "/summary.json");
  Collected refused;
  EXPECT_EQ(compress(unfinished, config({pass(R"({"type": "finetune"})")}), refused).status,
            RunStatus::Failed);
  ASSERT_FALSE(refused.errors.empty());
  EXPECT_NE(refused.errors[0].message.find("has not finished"), std::string::npos);
}

}  // namespace
}  // namespace wb
