// Exact resume: a run stopped (or with a damaged latest checkpoint) and resumed ends with the same weights,
// bit for bit, as the run left alone; its logs hold every step once; a changed experiment is refused. Each
// resume is checked to have continued at its checkpoint's step (> 0) and trained only the remaining steps: a
// resume that started over would also end bit-identical (same folder, same seed).

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "run_folder/checkpoint_store.h"
#include "support/image_folder.h"
#include "support/model_weights.h"
#include "support/resumed_session.h"
#include "support/test_experiments.h"
#include "workbench/event_json.h"
#include "workbench/run_history.h"
#include "workbench/run_index.h"
#include "workbench/training_run.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

// The CNN (batch norm buffers; ~30 ms a step, so a stop lands near the step asked for), augmentation on, a
// step-interval and a per-epoch checkpoint, an epoch count that crosses epoch ends.
Experiment resumableExperiment(const std::string& runs) {
  Experiment e = test::smallMlpExperiment(runs);
  e.model.preset = "cnn";
  e.data.limit = 1200;
  e.data.augment_enabled = true;
  e.train.epochs = 3;
  e.train.batch_size = 50;
  e.train.log_every_steps = 1;
  e.train.checkpoint_every_steps = 7;
  e.train.checkpoint_every_minutes = 0;
  e.train.keep_checkpoints = 2;
  e.train.threads = 2;
  return e;
}

// Starts a run and stops it after step `stop_after` is reported. The request is made from the event sink,
// which the run calls on its own thread: deterministic however fast the steps are.
RunSummary runAndStop(const Experiment& e, int64_t stop_after) {
  TrainingRun* self = nullptr;
  TrainingRun run(e, [&](EventBatch&& batch) {
    for (const Event& ev : batch) {
      if (const auto* m = std::get_if<StepMetrics>(&ev)) {
        if (m->step >= stop_after) self->requestStop();
      }
    }
  });
  self = &run;
  run.start();
  run.wait();
  return run.summary();
}

std::vector<std::string> logWarnings;
std::vector<ErrorKind> errorKinds;

RunSummary resume(const std::string& dir, bool force = false) {
  logWarnings.clear();
  errorKinds.clear();
  return resumeBlocking(ResumeRequest{dir, force}, [](EventBatch&& batch) {
    for (const Event& ev : batch) {
      if (const auto* l = std::get_if<LogLine>(&ev)) {
        if (l->level == LogLevel::Warning) logWarnings.push_back(l->text);
      }
      if (const auto* err = std::get_if<RunError>(&ev)) {
        logWarnings.push_back("error: " + err->message);
        errorKinds.push_back(err->kind);
      }
    }
  });
}

class Resume : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    runs = test::freshDir("resume");
    const RunSummary s = trainBlocking(resumableExperiment(runs), nullptr);
    ASSERT_EQ(s.status, RunStatus::Completed);
    reference = s;
  }
  static void TearDownTestSuite() { fs::remove_all(runs); }
  static std::string runs;
  static RunSummary reference;
};
std::string Resume::runs;
RunSummary Resume::reference;

TEST_F(Resume, StoppedMidEpochThenResumedGivesBitIdenticalWeightsAndNoRepeatedSteps) {
  const RunSummary stopped = runAndStop(resumableExperiment(runs), 17);  // 22 steps an epoch: mid-epoch 1
  ASSERT_EQ(stopped.status, RunStatus::Interrupted);
  ASSERT_LT(stopped.steps, reference.steps);
  const RunSummary resumed = resume(stopped.run_dir);
  ASSERT_EQ(resumed.status, RunStatus::Completed) << (logWarnings.empty() ? "" : logWarnings[0]);
  EXPECT_EQ(resumed.run_dir, stopped.run_dir);
  EXPECT_EQ(resumed.steps, reference.steps);
  EXPECT_EQ(resumed.test_accuracy, reference.test_accuracy);
  test::expectBitIdentical(reference.run_dir + "/model.pt", resumed.run_dir + "/model.pt");
  // Continued at the stop's checkpoint, not from step 0: only the remaining steps were trained.
  const test::ResumedSession session = test::lastResumedSession(resumed.run_dir + "/metrics.jsonl");
  EXPECT_GT(session.continued_at, 0);
  EXPECT_EQ(session.continued_at, stopped.steps);
  EXPECT_EQ(session.first_step, session.continued_at + 1);
  EXPECT_EQ(session.step_events, reference.steps - session.continued_at);

  const RunHistory history = loadRunHistory(resumed.run_dir);
  std::set<int64_t> seen;
  for (const StepMetrics& m : history.steps)
    EXPECT_TRUE(seen.insert(m.step).second) << "step " << m.step << " twice";
  EXPECT_EQ(*seen.rbegin(), reference.steps);
  EXPECT_EQ(history.epochs.size(), 3u);
  const RunHistory ref_history = loadRunHistory(reference.run_dir);
  ASSERT_EQ(ref_history.epochs.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(history.epochs[i].val_loss, ref_history.epochs[i].val_loss) << "epoch " << i + 1;
    EXPECT_EQ(history.epochs[i].train_loss, ref_history.epochs[i].train_loss) << "epoch " << i + 1;
  }
  // metrics.csv: its header once, one row per step window and epoch.
  std::ifstream csv(resumed.run_dir + "/metrics.csv");
  std::string line;
  int headers = 0, rows = 0;
  while (std::getline(csv, line)) (line.rfind("event,", 0) == 0 ? headers : rows)++;
  EXPECT_EQ(headers, 1);
  EXPECT_EQ(rows, static_cast<int>(history.steps.size() + history.epochs.size()));

  const auto record = findRun(runs, fs::path(resumed.run_dir).filename().string());
  ASSERT_TRUE(record);
  EXPECT_EQ(record->status, RunIndexStatus::Finished);
  EXPECT_EQ(record->steps, reference.steps);
}

// An image folder read by two loader workers, with RandomResizedCrop and the flip: the batches after the
// checkpoint are the ones the uninterrupted run saw, so the resumed run ends bit for bit where it did.
TEST(ResumeImageFolder, StoppedMidEpochWithWorkersThenResumedGivesBitIdenticalWeights) {
  const std::string dir = test::freshDir("resume-images");
  test::makeGarmentFolder(dir + "/garments", 16);
  Experiment e = resumableExperiment(dir + "/runs");
  e.data.dataset = DatasetName::ImageFolder;
  e.data.path = dir + "/garments";
  e.data.limit = 0;
  e.data.images.resize = 36;
  e.data.images.crop = 32;
  e.data.workers = 2;
  e.train.epochs = 2;
  e.train.batch_size = 16;  // 160 files: 32 test, 13 val, 115 train: 8 steps an epoch
  e.train.checkpoint_every_steps = 3;
  const RunSummary whole = trainBlocking(e, nullptr);
  ASSERT_EQ(whole.status, RunStatus::Completed);
  const RunSummary stopped = runAndStop(e, 5);  // mid-epoch 1
  ASSERT_EQ(stopped.status, RunStatus::Interrupted);
  ASSERT_LT(stopped.steps, 8);
  const RunSummary resumed = resume(stopped.run_dir);
  ASSERT_EQ(resumed.status, RunStatus::Completed) << (logWarnings.empty() ? "" : logWarnings[0]);
  EXPECT_EQ(resumed.steps, whole.steps);
  EXPECT_EQ(test::lastResumedSession(resumed.run_dir + "/metrics.jsonl").continued_at, stopped.steps);
  EXPECT_EQ(resumed.test_accuracy, whole.test_accuracy);
  test::expectBitIdentical(whole.run_dir + "/model.pt", resumed.run_dir + "/model.pt");
  fs::remove_all(dir);
}

TEST_F(Resume, ADamagedLatestCheckpointFallsBackToThePreviousOne) {
  const RunSummary stopped = runAndStop(resumableExperiment(runs), 30);
  ASSERT_EQ(stopped.status, RunStatus::Interrupted);
  const std::vector<std::string> files = CheckpointStore(stopped.run_dir, 2, true).list();
  ASSERT_GE(files.size(), 2u);
  {
    std::fstream f(files[0], std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(fs::file_size(files[0]) / 2));
    f.put('\x7f');
  }
  const RunSummary resumed = resume(stopped.run_dir);
  ASSERT_EQ(resumed.status, RunStatus::Completed);
  ASSERT_FALSE(logWarnings.empty());
  EXPECT_NE(logWarnings[0].find(fs::path(files[0]).filename().string()), std::string::npos) << logWarnings[0];
  EXPECT_NE(logWarnings[0].find("previous"), std::string::npos) << logWarnings[0];
  // Continued at the previous checkpoint's step (its file name holds it), before the stop's.
  const std::string previous = fs::path(files[1]).stem().string();  // step-000000000028
  const int64_t previous_step = std::stoll(previous.substr(previous.find('-') + 1));
  const test::ResumedSession session = test::lastResumedSession(resumed.run_dir + "/metrics.jsonl");
  EXPECT_GT(previous_step, 0);
  EXPECT_LT(previous_step, stopped.steps);
  EXPECT_EQ(session.continued_at, previous_step);
  EXPECT_EQ(session.first_step, previous_step + 1);
  EXPECT_EQ(session.step_events, reference.steps - previous_step);
  test::expectBitIdentical(reference.run_dir + "/model.pt", resumed.run_dir + "/model.pt");
}

TEST_F(Resume, AChangedExperimentIsRefusedNamingTheChangeUnlessForced) {
  const RunSummary stopped = runAndStop(resumableExperiment(runs), 5);
  ASSERT_EQ(stopped.status, RunStatus::Interrupted);
  const std::string file = stopped.run_dir + "/experiment.json";
  nlohmann::json doc;
  {
    std::ifstream in(file);
    doc = nlohmann::json::parse(in);
  }
  doc["train"]["epochs"] = 1;
  std::ofstream(file) << doc.dump(2);
  RunSummary refused = resume(stopped.run_dir);
  EXPECT_EQ(refused.status, RunStatus::Failed);
  ASSERT_FALSE(logWarnings.empty());
  EXPECT_NE(logWarnings.back().find("train.epochs: 3 -> 1"), std::string::npos) << logWarnings.back();
  // Typed, so a front end can offer to force it (the window's Resume Anyway).
  EXPECT_EQ(errorKinds, std::vector<ErrorKind>{ErrorKind::ExperimentChanged});

  const RunSummary forced = resume(stopped.run_dir, /*force=*/true);
  EXPECT_EQ(forced.status, RunStatus::Completed);
  EXPECT_EQ(forced.epochs, 1);
  EXPECT_EQ(test::lastResumedSession(forced.run_dir + "/metrics.jsonl").continued_at, stopped.steps);

  const RunSummary again = resume(stopped.run_dir);  // finished now
  EXPECT_EQ(again.status, RunStatus::Failed);
  ASSERT_FALSE(logWarnings.empty());
  EXPECT_NE(logWarnings.back().find("already finished"), std::string::npos) << logWarnings.back();
  EXPECT_EQ(errorKinds, std::vector<ErrorKind>{ErrorKind::BadInput});
}

TEST_F(Resume, NotARunFolderIsAClearError) {
  const RunSummary s = resume(runs + "/no-such-run");
  EXPECT_EQ(s.status, RunStatus::Failed);
  ASSERT_FALSE(logWarnings.empty());
  EXPECT_NE(logWarnings.back().find("not a run folder"), std::string::npos) << logWarnings.back();
}

}  // namespace
}  // namespace wb
