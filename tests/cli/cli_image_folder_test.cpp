// A user's own images: `check` summarizes the folder (classes and counts, preprocessing, workers), `train`
// trains a CNN on it with loader workers and augmentation, and `eval` names the files of the mistakes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/cli_runner.h"
#include "support/image_folder.h"

namespace {

using wb::test::runCli;
using wb::test::tempDir;

TEST(CliImageFolder, ChecksTrainsWithWorkersAndEvaluatesTheFolder) {
  const std::string dir = tempDir("image-folder");
  const std::string root = dir + "/garments";
  wb::test::makeGarmentFolder(root, 40);
  const std::string data =
      " --set data.dataset=image_folder --set data.path=" + root +
      " --set data.images.resize=36 --set data.images.crop=32 --set data.augment.enabled=true"
      " --set data.workers=2 --set data.val_fraction=0.2 --set data.test_fraction=0.25";

  const auto check = runCli("check" + data);
  ASSERT_EQ(check.status, 0) << check.err << check.out;
  for (const char* part : {"data: image_folder from", "10 classes", "classes: Ankle_boot 40, Bag 40, Coat 40",
                           "RandomResizedCrop(32), RandomHorizontalFlip()", "CenterCrop(32)",
                           "loader: 2 workers", "model input 3x32x32"}) {
    EXPECT_NE(check.out.find(part), std::string::npos) << "missing: " << part << "\n" << check.out;
  }

  const auto trained = runCli("train" + data +
                              " --set model.preset=cnn --set train.epochs=8 --set train.batch_size=32"
                              " --set optimizer.lr=0.001 --set output.runs_dir=" +
                              dir + "/runs --json");
  ASSERT_EQ(trained.status, 0) << trained.err;
  const auto j = nlohmann::json::parse(trained.out);
  EXPECT_EQ(j["status"], "completed");
  // 10 classes: chance is 0.1; the garments' shapes are learnable from 240 training pictures.
  EXPECT_GT(j["test_accuracy"].get<double>(), 0.3);
  const std::string run_dir = j["run_dir"];
  const std::string log = wb::test::readFile(run_dir + "/train.log");
  EXPECT_NE(
      log.find("Image folder " + root + ": 240 train, 60 val, 100 test, 3x32x32, 10 classes; 2 workers"),
      std::string::npos)
      << log.substr(0, 3000);

  const auto e = runCli("eval " + run_dir + " --json --misclassified 3");
  ASSERT_EQ(e.status, 0) << e.err;
  const auto report = nlohmann::json::parse(e.out);
  EXPECT_EQ(report["samples"], 100);
  EXPECT_EQ(report["class_names"][0], "Ankle_boot");
  ASSERT_FALSE(report["misclassified"].empty());
  for (const auto& m : report["misclassified"]) {
    EXPECT_EQ(m["file"].get<std::string>().rfind(root + "/", 0), 0u) << m.dump();
  }

  // A folder that is not one: named, before any run folder.
  const auto bad = runCli("train --set data.dataset=image_folder --set data.path=" + dir + "/nowhere");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find(dir + "/nowhere"), std::string::npos) << bad.err;
}

}  // namespace
