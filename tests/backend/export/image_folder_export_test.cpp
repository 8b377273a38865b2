// A run on the user's own images exported to ONNX carries its preprocessing (convert, Resize, CenterCrop) and
// its normalization in the file's metadata, so that ONNX Runtime and Pillow, reading nothing but the file,
// reproduce the run's test accuracy on the same folder's test files.

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "data/dataset.h"
#include "support/image_folder.h"
#include "support/pypi_tools.h"
#include "support/temporary_folder.h"
#include "support/test_experiments.h"
#include "workbench/export.h"
#include "workbench/training_run.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

std::string output(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  std::string text;
  char buffer[4096];
  size_t got = 0;
  while (pipe != nullptr && (got = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) text.append(buffer, got);
  if (pipe == nullptr || pclose(pipe) != 0) ADD_FAILURE() << command << " failed: " << text;
  return text;
}

TEST(OnnxExport, ImageFolderRunCarriesItsPreprocessingAndOnnxRuntimeReproducesItsAccuracy) {
  // pip's LibTorch builds have no ONNX export (the case then skips, in its own ctest entry test_export_onnx).
  if (const std::string why = exportUnavailable(ExportFormat::Onnx); !why.empty()) GTEST_SKIP() << why;
  ASSERT_PYPI_TOOLS();
  const test::TemporaryFolder temporary("test-image-export");
  const fs::path root = temporary.path();
  const std::string folder = (root / "garments").string();
  test::makeGarmentFolder(folder, 20);

  Experiment e = test::smallMlpExperiment((root / "runs").string());
  e.data.dataset = DatasetName::ImageFolder;
  e.data.path = folder;
  e.data.limit = 0;
  e.data.images.resize = 36;
  e.data.images.crop = 32;
  e.data.workers = 2;
  e.model.preset = "cnn";
  e.train.epochs = 6;
  e.train.batch_size = 16;
  const RunSummary run = trainBlocking(e, [](EventBatch&&) {});
  ASSERT_EQ(run.status, RunStatus::Completed);
  // Learned something (10 classes): a model that predicts one class would agree with any runtime trivially.
  EXPECT_GT(run.test_accuracy, 0.3);

  ExportRequest request;
  request.run_dir = run.run_dir;
  request.format = ExportFormat::Onnx;
  request.out = (root / "model.onnx").string();
  exportModel(request);

  const Dataset data = loadDataset(e.data, e.seed);
  std::ofstream listing(root / "test.txt");
  for (int64_t i = 0; i < data.test.size(); ++i) {
    listing << data.test.y[i].item<int64_t>() << "\t" << data.test.source->sampleName(i) << "\n";
  }
  listing.close();
  const auto result = nlohmann::json::parse(output(test::pypiToolCommand("onnx_image_folder.py") + " " +
                                                   request.out + " " + (root / "test.txt").string()));
  EXPECT_EQ(result["samples"], data.test.size());
  EXPECT_EQ(result["preprocessing"]["resize"], 36);
  EXPECT_EQ(result["preprocessing"]["center_crop"], 32);
  EXPECT_EQ(result["preprocessing"]["convert"], "RGB");
  // The same pixels and weights: the same predictions, up to a float tie between two classes.
  EXPECT_NEAR(result["accuracy"].get<double>(), run.test_accuracy,
              1.0 / static_cast<double>(data.test.size()) + 1e-9)
      << result.dump();
}

}  // namespace
}  // namespace wb
