#pragma once
// What the tests of whole runs on CPU ranks (threads of one process over Gloo) share: a fixture that skips,
// saying why, where the build has no Gloo (pip's LibTorch) and gives each test a fresh runs folder, and a
// blocking run that collects its errors and its log.

#include <gtest/gtest.h>

#include <filesystem>
#include <mutex>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "support/test_experiments.h"
#include "support/test_helpers.h"
#include "workbench/training_run.h"

namespace wb::test {

// Trains `e` to its end; `errors` and `log`, when given, receive the run's errors and log lines.
inline RunSummary trainCollecting(const Experiment& e, std::vector<RunError>* errors = nullptr,
                                  std::string* log = nullptr) {
  std::mutex mutex;
  return trainBlocking(e, [&](EventBatch&& batch) {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto& ev : batch) {
      if (auto* err = std::get_if<RunError>(&ev); err && errors) errors->push_back(*err);
      if (auto* line = std::get_if<LogLine>(&ev); line && log) *log += line->text + "\n";
    }
  });
}

// A fixture's base: `runs` is a fresh folder named after `prefix`, removed after the test.
class GlooRunsTest : public ::testing::Test {
 protected:
  explicit GlooRunsTest(std::string prefix) : m_prefix(std::move(prefix)) {}
  void SetUp() override {
#ifndef WB_WITH_GLOO
    GTEST_SKIP() << WB_NO_GLOO_REASON;
#endif
    runs = freshDir(m_prefix);
  }
  void TearDown() override {
    if (!runs.empty()) std::filesystem::remove_all(runs);
  }
  std::string runs;

 private:
  std::string m_prefix;
};

}  // namespace wb::test
