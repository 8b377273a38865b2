// The checkpoint file format, the checkpoint folder's keep-K-plus-best rule and its fallback past damaged
// files; metrics.csv's shape. (The TensorBoard file: tensorboard_test.cpp.)

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "run_folder/checkpoint_file.h"
#include "run_folder/checkpoint_store.h"
#include "run_folder/metrics_csv.h"
#include "support/test_experiments.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void writeAll(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

TEST(CheckpointFile, RoundTripsAndDetectsEveryKindOfDamage) {
  const std::string dir = test::freshDir("ckpt-file");
  const std::string path = dir + "/a.wbckpt";
  std::string payload(100000, '\0');
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>(i * 31 % 251);
  writeCheckpointFile(path, {{"step", 12}, {"note", "x"}}, payload);
  EXPECT_EQ(readCheckpointMeta(path)["step"], 12);
  CheckpointContents c = readCheckpointFile(path);
  EXPECT_EQ(c.meta["note"], "x");
  EXPECT_EQ(c.payload, payload);

  const std::string good = readAll(path);
  std::string flipped = good;
  flipped[good.size() / 2] ^= 0x01;  // one bit in the tensors
  writeAll(path, flipped);
  EXPECT_NO_THROW(readCheckpointMeta(path));  // the header alone is intact
  EXPECT_THROW(readCheckpointFile(path), CorruptCheckpoint);
  writeAll(path, good.substr(0, good.size() - 100));  // cut short, as by a full disk
  EXPECT_THROW(readCheckpointFile(path), CorruptCheckpoint);
  writeAll(path, "not a checkpoint");
  EXPECT_THROW(readCheckpointMeta(path), CorruptCheckpoint);
  EXPECT_THROW(readCheckpointFile(dir + "/missing.wbckpt"), CorruptCheckpoint);
  // No temporary file is left behind by the atomic writes.
  for (const auto& entry : fs::directory_iterator(dir)) {
    EXPECT_EQ(entry.path().string().find(".tmp."), std::string::npos) << entry.path();
  }
  fs::remove_all(dir);
}

TEST(CheckpointStore, KeepsTheNewestKAndTheBestAndFallsBackPastDamage) {
  const std::string dir = test::freshDir("ckpt-store");
  CheckpointStore store(dir, /*keep=*/2, /*minimize=*/true);
  // val_metric (a loss): best at step 20.
  const double losses[] = {0.9, 0.3, 0.5, 0.6, 0.7};
  for (int i = 0; i < 5; ++i) {
    store.save((i + 1) * 10, {{"val_metric", losses[i]}}, "payload-" + std::to_string(i));
  }
  std::vector<std::string> files = store.list();
  ASSERT_EQ(files.size(), 3u);  // steps 50, 40 (newest two) and 20 (best)
  EXPECT_NE(files[0].find("step-000000000050"), std::string::npos);
  EXPECT_NE(files[1].find("step-000000000040"), std::string::npos);
  EXPECT_NE(files[2].find("step-000000000020"), std::string::npos);

  std::vector<std::string> warnings;
  auto warn = [&](const std::string& w) { warnings.push_back(w); };
  auto loaded = store.loadLatestGood(warn);
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->contents.meta["step"], 50);
  EXPECT_TRUE(warnings.empty());

  std::string damaged = readAll(files[0]);
  damaged[damaged.size() - 10] ^= 0x40;
  writeAll(files[0], damaged);
  loaded = store.loadLatestGood(warn);
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->contents.meta["step"], 40);
  EXPECT_EQ(loaded->contents.payload, "payload-3");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("step-000000000050.wbckpt"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("checksum"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("step-000000000040.wbckpt"), std::string::npos) << warnings[0];
  fs::remove_all(dir);
}

size_t columns(const std::string& line) {
  return static_cast<size_t>(std::count(line.begin(), line.end(), ',')) + 1;
}

TEST(MetricsCsv, EveryRowHasTheHeadersColumns) {
  const std::vector<std::string> figures = metricsCsvFigures(TaskKind::Classification);
  const std::string header = metricsCsvHeader(figures);
  // Classification's file, as it has always been.
  EXPECT_NE(header.find(",train_loss,train_accuracy,val_loss,val_accuracy,epoch_s\n"), std::string::npos)
      << header;
  const size_t n = columns(header);
  StepMetrics step;
  step.step = 3;
  step.loss = 1.25;
  EpochMetrics epoch;
  epoch.train_figures = {{"accuracy", 0.75}};
  epoch.val_loss = 0.5;
  epoch.val_figures = {{"accuracy", 0.8}};
  EXPECT_EQ(columns(metricsCsvRow(step, figures)), n);
  EXPECT_EQ(columns(metricsCsvRow(epoch, figures)), n);
  EXPECT_NE(metricsCsvRow(epoch, figures).find(",0.75,0.5,0.8,"), std::string::npos)
      << metricsCsvRow(epoch, figures);
  // Another task's two figures: two columns each side, every row as wide as the header.
  const std::vector<std::string> two = {"iou", "dice"};
  EXPECT_NE(metricsCsvHeader(two).find(",train_loss,train_iou,train_dice,val_loss,val_iou,val_dice,epoch_s"),
            std::string::npos);
  EXPECT_EQ(columns(metricsCsvRow(step, two)), columns(metricsCsvHeader(two)));
  EXPECT_EQ(columns(metricsCsvRow(epoch, two)), columns(metricsCsvHeader(two)));
  step.loss_scale = 65536;
  step.grad_norm = 2;
  step.cuda_allocated_bytes = step.cuda_reserved_bytes = step.cuda_peak_bytes = 1;
  EXPECT_EQ(columns(metricsCsvRow(step, figures)), n);
  EXPECT_TRUE(metricsCsvRow(LogLine{}, figures).empty());
  EXPECT_EQ(metricsCsvRow(step, figures).rfind("step,3,", 0), 0u);
}

}  // namespace
}  // namespace wb
