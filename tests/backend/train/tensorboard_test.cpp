// TensorBoard event files read back by TensorBoard's own reader (PyPI's tensorboard in .venv/,
// tests/python/read_tensorboard.py): the writer's records one by one, a damaged record noticed, and a real
// run's file with every tag the run writes at every step it reported, with the values it reported.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>

#include "support/pypi_tools.h"
#include "support/test_experiments.h"
#include "support/test_helpers.h"
#include "util/tensorboard_writer.h"
#include "workbench/training_run.h"

namespace wb {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json readWithTensorBoard(const std::string& file) {
  const std::string out = file + ".json";
  const std::string log = file + ".log";
  const std::string cmd =
      test::pypiToolCommand("read_tensorboard.py") + " " + file + " > " + out + " 2> " + log;
  if (std::system(cmd.c_str()) != 0) {
    ADD_FAILURE() << "TensorBoard's reader failed on " << file << ":\n" << test::readBytes(log);
    return json::object();
  }
  return json::parse(test::readBytes(out));
}

// [[step, value], ...] of one tag.
std::vector<std::pair<int64_t, double>> series(const json& read, const std::string& tag) {
  std::vector<std::pair<int64_t, double>> out;
  if (!read.contains("scalars") || !read["scalars"].contains(tag)) return out;
  for (const json& s : read["scalars"][tag]) out.emplace_back(s[0].get<int64_t>(), s[2].get<double>());
  return out;
}

TEST(TensorBoard, Crc32cMatchesTheStandardCheckValue) {
  EXPECT_EQ(crc32c("123456789", 9), 0xE3069283u);  // the CRC-32C catalogue's check value
}

TEST(TensorBoard, TensorBoardReadsEveryRecordAndNoticesADamagedOne) {
  ASSERT_PYPI_TOOLS();
  const std::string dir = test::freshDir("tensorboard");
  const std::string file = dir + "/events.out.tfevents.1.test";
  {
    TensorBoardWriter tb(file);
    tb.addScalars(5, 1700000000.5, {{"loss/train", 2.25}, {"learning_rate", 0.001}});
    tb.addScalars(300, 1700000001.0, {{"loss/train", 0.5}, {"accuracy/val", 0.875}});
  }
  const json read = readWithTensorBoard(file);
  EXPECT_EQ(read.value("file_version", ""), "brain.Event:2");
  EXPECT_EQ(read.value("events", 0), 3);
  EXPECT_EQ(read.value("bytes_read", 0), read.value("file_bytes", -1));
  const auto loss = series(read, "loss/train");
  ASSERT_EQ(loss.size(), 2u) << read.dump();
  EXPECT_EQ(loss[0].first, 5);
  EXPECT_FLOAT_EQ(static_cast<float>(loss[0].second), 2.25f);
  EXPECT_EQ(loss[1].first, 300);
  EXPECT_FLOAT_EQ(static_cast<float>(loss[1].second), 0.5f);
  EXPECT_DOUBLE_EQ(read["scalars"]["loss/train"][0][1].get<double>(), 1700000000.5);
  ASSERT_EQ(series(read, "learning_rate").size(), 1u);
  EXPECT_FLOAT_EQ(static_cast<float>(series(read, "learning_rate")[0].second), 0.001f);
  ASSERT_EQ(series(read, "accuracy/val").size(), 1u);
  EXPECT_FLOAT_EQ(static_cast<float>(series(read, "accuracy/val")[0].second), 0.875f);

  // One byte of the last record's payload changed: its CRC no longer matches, and the reader stops before it.
  std::string bytes = test::readBytes(file);
  bytes[bytes.size() - 8] = static_cast<char>(bytes[bytes.size() - 8] ^ 0x5a);
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
  const json damaged = readWithTensorBoard(file);
  EXPECT_EQ(damaged.value("events", 0), 2);
  EXPECT_LT(damaged.value("bytes_read", 0), damaged.value("file_bytes", 0));
  fs::remove_all(dir);
}

TEST(TensorBoard, ARunsEventFileHoldsEveryTagAtEveryReportedStep) {
  ASSERT_PYPI_TOOLS();
  const std::string runs = test::freshDir("tensorboard-run");
  Experiment e = test::smallMlpExperiment(runs);
  e.train.clip_grad_norm = 1.0;  // adds grad_norm
  std::vector<StepMetrics> steps;
  std::vector<EpochMetrics> epochs;
  std::mutex mutex;
  const RunSummary summary = trainBlocking(e, [&](EventBatch&& batch) {
    std::lock_guard<std::mutex> lock(mutex);
    for (const Event& ev : batch) {
      if (const auto* m = std::get_if<StepMetrics>(&ev)) steps.push_back(*m);
      if (const auto* m = std::get_if<EpochMetrics>(&ev)) epochs.push_back(*m);
    }
  });
  ASSERT_EQ(summary.status, RunStatus::Completed);
  ASSERT_GE(steps.size(), 5u);
  ASSERT_EQ(epochs.size(), 2u);
  std::string file;
  for (const auto& entry : fs::directory_iterator(summary.run_dir)) {
    if (entry.path().filename().string().rfind("events.out.tfevents.", 0) == 0) file = entry.path().string();
  }
  ASSERT_FALSE(file.empty()) << "no events.out.tfevents.* in " << summary.run_dir;
  const json read = readWithTensorBoard(file);
  EXPECT_EQ(read.value("bytes_read", 0), read.value("file_bytes", -1));
  EXPECT_EQ(read.value("events", 0), static_cast<int64_t>(1 + steps.size() + epochs.size()));

  // Every tag at every step the run reported, with the value it reported (stored as float32).
  auto expectTag = [&](const std::string& tag, const auto& events, auto value) {
    const auto got = series(read, tag);
    ASSERT_EQ(got.size(), events.size()) << tag;
    for (size_t i = 0; i < events.size(); ++i) {
      EXPECT_EQ(got[i].first, events[i].step) << tag;
      EXPECT_FLOAT_EQ(static_cast<float>(got[i].second), static_cast<float>(value(events[i])))
          << tag << " at " << events[i].step;
    }
  };
  expectTag("loss/train", steps, [](const StepMetrics& m) { return m.loss; });
  expectTag("learning_rate", steps, [](const StepMetrics& m) { return m.lr; });
  expectTag("throughput/samples_per_sec", steps, [](const StepMetrics& m) { return m.samples_per_sec; });
  expectTag("throughput/data_wait_fraction", steps,
            [](const StepMetrics& m) { return m.data_wait_fraction; });
  expectTag("memory/cpu_rss_mib", steps,
            [](const StepMetrics& m) { return static_cast<double>(m.cpu_rss_bytes) / (1024.0 * 1024.0); });
  expectTag("grad_norm", steps, [](const StepMetrics& m) { return m.grad_norm; });
  expectTag("loss/train_epoch", epochs, [](const EpochMetrics& m) { return m.train_loss; });
  expectTag("accuracy/train", epochs,
            [](const EpochMetrics& m) { return figureNamed(m.train_figures, "accuracy", -1); });
  expectTag("throughput/epoch_samples_per_sec", epochs,
            [](const EpochMetrics& m) { return m.samples_per_sec; });
  expectTag("loss/val", epochs, [](const EpochMetrics& m) { return m.val_loss; });
  expectTag("accuracy/val", epochs,
            [](const EpochMetrics& m) { return figureNamed(m.val_figures, "accuracy", -1); });
  // Nothing the run did not report: no CUDA memory or loss scale on a CPU run in fp32.
  EXPECT_EQ(read["scalars"].size(), 11u) << read["scalars"].dump().substr(0, 400);
  fs::remove_all(runs);
}

}  // namespace
}  // namespace wb
