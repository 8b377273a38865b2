// `workbench-cli export` as a user runs it: each format of a trained and an int8 model exits 0 and writes its
// file; a bad format, a missing artifact or a missing --out exit 2 naming what is wrong; an existing --out
// file is left as it was when the export is refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/cli_runner.h"

namespace {

namespace fs = std::filesystem;

using wb::test::readFile;
using wb::test::runCli;
using wb::test::tempDir;
using Result = wb::test::CliResult;

TEST(CliExport, EveryFormatOfATrainedAndAnInt8Model) {
  const std::string runs = tempDir("export");
  const Result trained = runCli(
      "compress --set data.limit=1000 --set model.preset=mlp --set train.epochs=1"
      " --set data.augment=false --set compress.latency_runs=1 --set output.runs_dir=" +
      runs + " --set 'compress.passes=[{\"type\":\"quantize\",\"mode\":\"dynamic\"}]' --json --quiet");
  ASSERT_EQ(trained.status, 0) << trained.err;
  const std::string run_dir = nlohmann::json::parse(trained.out)["run_dir"];

  for (const std::string format : {"torchscript", "onnx", "safetensors"}) {
    for (const std::string model : {"", "compressed/01-quantize"}) {
      SCOPED_TRACE(format + " " + model);
      const std::string out = runs + "/out/" + format + (model.empty() ? "-model" : "-int8");
      const Result r = runCli("export " + run_dir + (model.empty() ? "" : " --model " + model) +
                              " --format " + format + " --out " + out + " --json");
      if (format == "onnx" && r.status == 2 && r.err.find("without ONNX") != std::string::npos)
        continue;  // a build without it
      ASSERT_EQ(r.status, 0) << r.err;
      const auto j = nlohmann::json::parse(r.out);
      EXPECT_EQ(j["format"], format);
      EXPECT_EQ(j["file"], out);
      EXPECT_EQ(j["bytes"].get<int64_t>(), static_cast<int64_t>(fs::file_size(out)));
      EXPECT_FALSE(j["python"].get<std::string>().empty());
      EXPECT_FALSE(j["cpp"].get<std::string>().empty());
    }
  }
  // The plain form prints where the file went and how to load it.
  const Result plain =
      runCli("export " + run_dir + " --format safetensors --out " + runs + "/out/plain.safetensors");
  ASSERT_EQ(plain.status, 0) << plain.err;
  EXPECT_NE(plain.out.find("Python:"), std::string::npos) << plain.out;

  // Refusals: exit 2 naming what is wrong, and the file that is there stays whole.
  const std::string keep = runs + "/out/keep.pt";
  std::ofstream(keep) << "precious";
  const Result format = runCli("export " + run_dir + " --format pickle --out " + keep);
  EXPECT_EQ(format.status, 2);
  EXPECT_NE(format.err.find("pickle"), std::string::npos) << format.err;
  const Result missing =
      runCli("export " + run_dir + " --model compressed/07-prune --format torchscript --out " + keep);
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("compressed/07-prune"), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("compressed/01-quantize"), std::string::npos)
      << missing.err;  // the ones there are
  const Result no_run = runCli("export " + runs + "/nothing --format safetensors --out " + keep);
  EXPECT_EQ(no_run.status, 2);
  EXPECT_NE(no_run.err.find("nothing"), std::string::npos) << no_run.err;
  const Result no_out = runCli("export " + run_dir + " --format torchscript");
  EXPECT_EQ(no_out.status, 2);
  EXPECT_NE(no_out.err.find("--out"), std::string::npos) << no_out.err;
  EXPECT_EQ(readFile(keep), "precious");
  fs::remove_all(runs);
}

}  // namespace
