// loadExperimentFile: problems with the file itself come back as one issue with an empty path that names the
// file, and for broken JSON the line and column, so the user can go straight there.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "backend/experiment/experiment_test_support.h"
#include "support/temporary_folder.h"
#include "workbench/experiment.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

// A folder of its own per test, removed afterwards, so parallel ctest runs do not meet.
class ExperimentFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    m_dir = test::folderForThisTest("experiment-" + test);
  }

  std::string write(const std::string& name, const std::string& content) {
    const fs::path file = m_dir / name;
    std::ofstream(file) << content;
    return file.string();
  }

  fs::path m_dir;
};

TEST_F(ExperimentFileTest, MissingFileIsOneIssueNamingIt) {
  const std::string file = (m_dir / "nope.json").string();
  const ParseResult result = loadExperimentFile(file);
  ASSERT_EQ(result.issues.size(), 1u);
  EXPECT_EQ(result.issues[0].path, "");
  EXPECT_CONTAINS(result.issues[0].message, "\"" + file + "\" does not exist");
}

TEST_F(ExperimentFileTest, FolderInsteadOfFile) {
  const ParseResult result = loadExperimentFile(m_dir.string());
  ASSERT_EQ(result.issues.size(), 1u);
  EXPECT_CONTAINS(result.issues[0].message, "is a folder");
}

TEST_F(ExperimentFileTest, MalformedJsonNamesFileLineAndColumn) {
  // The trailing comma after 5 makes the '}' on line 4, column 3 the unexpected character.
  const std::string file = write("broken.json", "{\n  \"train\": {\n    \"epochs\": 5,\n  }\n}\n");
  const ParseResult result = loadExperimentFile(file);
  ASSERT_EQ(result.issues.size(), 1u);
  EXPECT_EQ(result.issues[0].path, "");
  EXPECT_CONTAINS(result.issues[0].message, file + ":4:3: not valid JSON: ");
  EXPECT_CONTAINS(result.issues[0].message, "unexpected '}'");
  EXPECT_CONTAINS(result.issues[0].message, "Fix the file at that place");
}

TEST_F(ExperimentFileTest, EmptyFileIsMalformed) {
  const std::string file = write("empty.json", "");
  const ParseResult result = loadExperimentFile(file);
  ASSERT_EQ(result.issues.size(), 1u);
  EXPECT_CONTAINS(result.issues[0].message, file + ":1:1: not valid JSON");
}

TEST_F(ExperimentFileTest, ValidFileIsRead) {
  const std::string file = write("ok.json", R"({
  "model": {"preset": "mlp"},
  "train": {"epochs": 2, "batch_size": 64}
})");
  const ParseResult result = loadExperimentFile(file);
  ASSERT_TRUE(result.ok()) << formatIssues(result.issues);
  EXPECT_EQ(result.experiment.model.preset, "mlp");
  EXPECT_EQ(result.experiment.train.epochs, 2);
  EXPECT_EQ(result.experiment.train.batch_size, 64);
}

TEST_F(ExperimentFileTest, IssuesInsideTheFileKeepTheirPaths) {
  const std::string file = write("bad.json", R"({"train": {"batch_size": 0}, "optimzer": {}})");
  const ParseResult result = loadExperimentFile(file);
  EXPECT_EQ(test::messageAt(result.issues, "train.batch_size"), "expected a positive integer, got 0");
  EXPECT_CONTAINS(test::messageAt(result.issues, "optimzer"), "did you mean \"optimizer\"?");
}

}  // namespace
}  // namespace wb
