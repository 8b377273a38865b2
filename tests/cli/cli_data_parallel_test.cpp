// Data parallel from the command line: two CPU ranks in one process, and two processes started by PyTorch's
// own launcher (python3 -m torch.distributed.run, Debian's 1.13) — the same weights either way, also with
// train.shard gradients (each process writing its own shard file of every checkpoint); a 2-rank
// run killed with -9 and resumed ends where the uninterrupted one does, resuming at its checkpoint's step,
// and so does one with train.shard gradients (its checkpoints written shard by shard), whose export is the
// whole model; a bad launcher variable is a clear error naming it.

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "cli/cli_runner.h"
#include "run_folder/checkpoint_store.h"
#include "support/model_weights.h"
#include "support/test_helpers.h"
#include "weights/weights_reader.h"

namespace {

namespace fs = std::filesystem;
using wb::test::readFile;
using wb::test::runCli;
using wb::test::startCli;
using wb::test::tempDir;

// 2,048 samples, 10% held out: 1,843 to train, 15 steps of 2 x 64 an epoch (the last shard padded), MLP with
// dropout (each rank's own random stream), two epochs, a checkpoint every 4 steps.
// `train_extra`: more train keys, e.g. `, "shard": "gradients"`.
std::string writeExperiment(const std::string& dir, const std::string& devices,
                            const std::string& train_extra = "") {
  const std::string path = dir + "/exp.json";
  std::ofstream(path) << R"({"name": "dp", "data": {"dataset": "fashion-mnist", "path": ")"
                      << WB_FASHION_MNIST_DIR << R"(", "limit": 2048, "val_fraction": 0.1, "augment": false},
  "model": {"preset": "mlp"},
  "train": {"epochs": 2, "batch_size": 64, "devices": )"
                      << devices << R"(, "threads": 2, "log_every_steps": 1, "checkpoint_every_steps": 4,
            "checkpoint_every_minutes": 0, "collective_timeout": 60)"
                      << train_extra << R"(},
  "output": {"runs_dir": ")"
                      << dir << R"(/runs"}})";
  return path;
}

int freePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  const int port = ntohs(addr.sin_port);
  ::close(fd);
  return port;
}

// Two processes started by the launcher (with `train_extra`) train bit for bit the weights two ranks in one
// process train. Returns the launched run's folder.
std::string expectTorchrunTrainsAsThreads(const std::string& name, const std::string& train_extra) {
  const std::string dir = tempDir(name + "-torchrun");
  const std::string one_process_dir = tempDir(name + "-inprocess");
  const auto threads =
      runCli("train " + writeExperiment(one_process_dir, "\"cpu:2\"", train_extra) + " --json --quiet");
  EXPECT_EQ(threads.status, 0) << threads.err;
  if (threads.status != 0) return "";
  const auto threads_summary = nlohmann::json::parse(threads.out);

  const std::string exp = writeExperiment(dir, "[\"cpu\"]", train_extra);
  // Debian 12's launcher (torch 1.13 on Python 3.11) cannot parse its default --redirects/--tee of 0 (an enum
  // change in Python 3.11); 2 = stderr works and leaves stdout alone.
  const std::string cmd = "cd " + dir +
                          " && " WB_PYTHON
                          " -m torch.distributed.run --no_python --nproc_per_node=2 "
                          "--master_port=" +
                          std::to_string(freePort()) + " --redirects 2 --tee 2 " WB_CLI " train " + exp +
                          " --quiet > torchrun.out 2> torchrun.err";
  const int rc = std::system(cmd.c_str());
  EXPECT_EQ(rc, 0) << readFile(dir + "/torchrun.err");
  const std::string run_dir = wb::test::onlyRunFolder(dir + "/runs");
  EXPECT_FALSE(run_dir.empty());
  if (rc != 0 || run_dir.empty()) return "";
  // One run folder, written by rank 0; rank 1 logged to its own file in it.
  EXPECT_TRUE(fs::exists(run_dir + "/rank-1.log"));
  const std::string log = readFile(run_dir + "/train.log");
  EXPECT_NE(log.find("rank 0 of 2"), std::string::npos) << log;
  EXPECT_NE(log.find("Data parallel: 2 ranks"), std::string::npos) << log;
  const auto summary = nlohmann::json::parse(readFile(run_dir + "/summary.json"));
  EXPECT_EQ(summary["status"], "completed");
  EXPECT_EQ(summary["steps"], threads_summary["steps"]);
  // Threads and processes run the same collectives on the same shards: the same weights, bit for bit.
  wb::test::expectBitIdentical(threads_summary["run_dir"].get<std::string>() + "/model.pt",
                               run_dir + "/model.pt");
  fs::remove_all(one_process_dir);
  return run_dir;
}

TEST(CliDataParallel, TorchrunTwoProcessesTrainTheSameWeightsAsTwoRanksInOneProcess) {
#ifndef WB_WITH_GLOO
  GTEST_SKIP() << WB_NO_GLOO_REASON;
#endif
  const std::string run = expectTorchrunTrainsAsThreads("dp", "");
  ASSERT_FALSE(run.empty());
  fs::remove_all(fs::path(run).parent_path().parent_path());
}

// train.shard gradients across processes: each process writes its rank's shard file into the one folder.
TEST(CliDataParallel, TorchrunShardedProcessesEachWriteTheirShardFile) {
#ifndef WB_WITH_GLOO
  GTEST_SKIP() << WB_NO_GLOO_REASON;
#endif
  const std::string run = expectTorchrunTrainsAsThreads("dp-shard", R"(, "shard": "gradients")");
  ASSERT_FALSE(run.empty());
  const wb::CheckpointStore store(run, 2, true);
  ASSERT_FALSE(store.list().empty());
  const std::vector<std::string> files = store.filesOf(store.list().front());
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(fs::path(files[2]).filename().string().substr(18), "shard-1-of-2.wbshard");
  EXPECT_TRUE(store.loadLatestGood({}).has_value());
  fs::remove_all(fs::path(run).parent_path().parent_path());
}

// Two CPU ranks (with `train_extra`) killed with -9 after a checkpoint at a random multiple of 4 (seeded from
// the clock, printed), before the end, then resumed: it continues at or after that checkpoint and ends with
// the uninterrupted run's weights, bit for bit. Returns the resumed run's folder.
std::string expectKilledRunResumesExactly(const std::string& name, const std::string& train_extra) {
  const std::string ref_dir = tempDir(name + "-ref");
  const auto ref = runCli("train " + writeExperiment(ref_dir, "\"cpu:2\"", train_extra) + " --json --quiet");
  EXPECT_EQ(ref.status, 0) << ref.err;
  if (ref.status != 0) return "";
  const auto ref_summary = nlohmann::json::parse(ref.out);

  std::mt19937 rng(static_cast<unsigned>(std::chrono::system_clock::now().time_since_epoch().count()));
  const int64_t checkpoint_step = 4 * std::uniform_int_distribution<int64_t>(1, 6)(rng);
  SCOPED_TRACE("killed after the checkpoint of step " + std::to_string(checkpoint_step));
  const std::string dir = tempDir(name + "-kill");
  const pid_t pid = startCli("train " + writeExperiment(dir, "\"cpu:2\"", train_extra), dir + "/run.out");
  bool seen = false;
  for (int i = 0; i < 6000 && !seen; ++i) {
    const std::string run = wb::test::onlyRunFolder(dir + "/runs");
    seen = !run.empty() &&
           readFile(run + "/train.log").find("at step " + std::to_string(checkpoint_step) + ":") !=
               std::string::npos;
    if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(seen) << readFile(dir + "/run.out");
  EXPECT_EQ(::kill(pid, SIGKILL), 0);
  int status = 0;
  EXPECT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status)) << "the run ended before it was killed";
  const std::string run = wb::test::onlyRunFolder(dir + "/runs");
  if (!seen || !WIFSIGNALED(status)) return "";

  const auto resumed = runCli("resume " + run + " --json");
  EXPECT_EQ(resumed.status, 0) << resumed.err;
  // The resumed session started at a checkpoint at or after the kill's (not at step 0) and trained the rest.
  const std::string log = readFile(run + "/train.log");
  const auto at = log.find("Continuing at step ");
  EXPECT_NE(at, std::string::npos) << log;
  if (at == std::string::npos) return "";
  const int64_t continued = std::stoll(log.substr(at + 19));
  EXPECT_GE(continued, checkpoint_step);
  EXPECT_LT(continued, ref_summary["steps"].get<int64_t>());
  const auto summary = nlohmann::json::parse(resumed.out.substr(resumed.out.find('{')));
  EXPECT_EQ(summary["status"], "completed");
  EXPECT_EQ(summary["steps"], ref_summary["steps"]);
  wb::test::expectBitIdentical(ref_summary["run_dir"].get<std::string>() + "/model.pt", run + "/model.pt");
  fs::remove_all(ref_dir);
  return run;
}

TEST(CliDataParallel, KilledTwoRankRunResumesAtItsCheckpointAndEndsWithTheSameWeights) {
#ifndef WB_WITH_GLOO
  GTEST_SKIP() << WB_NO_GLOO_REASON;
#endif
  const std::string run = expectKilledRunResumesExactly("dp", "");
  ASSERT_FALSE(run.empty());
  fs::remove_all(fs::path(run).parent_path().parent_path());
}

// train.shard gradients: each rank's optimizer state is in its own shard file beside rank 0's main file. A
// kill -9 loses none of it; the finished run's model.pt is the whole model, and its export sees every tensor.
TEST(CliDataParallel, KilledShardedRunResumesExactlyAndExportsTheWholeModel) {
#ifndef WB_WITH_GLOO
  GTEST_SKIP() << WB_NO_GLOO_REASON;
#endif
  const std::string run = expectKilledRunResumesExactly("dp-shard", R"(, "shard": "gradients")");
  ASSERT_FALSE(run.empty());
  int shard_files = 0;
  for (const auto& f : fs::directory_iterator(run + "/checkpoints"))
    shard_files += f.path().extension() == ".wbshard" ? 1 : 0;
  EXPECT_GT(shard_files, 0);
  EXPECT_EQ(shard_files % 2, 0) << "two per checkpoint";
  EXPECT_NE(readFile(run + "/train.log").find("+ 2 optimizer shard files"), std::string::npos);

  // The export holds every tensor of the model, each as the unsharded data-parallel run trains it (the same
  // averaged gradients; only the last bits of the sums' order may differ): no rank's shard is left behind.
  const std::string plain_dir = tempDir("dp-shard-plain");
  const auto plain = runCli("train " + writeExperiment(plain_dir, "\"cpu:2\"") + " --json --quiet");
  ASSERT_EQ(plain.status, 0) << plain.err;
  const auto whole =
      wb::test::readWeights(nlohmann::json::parse(plain.out)["run_dir"].get<std::string>() + "/model.pt");
  const std::string exported = run + "/export.safetensors";
  const auto r = runCli("export " + run + " --format safetensors --out " + exported + " --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const wb::WeightsFileContents file = wb::readSafetensorsFile(exported);
  const std::map<std::string, torch::Tensor> tensors(file.tensors.begin(), file.tensors.end());
  EXPECT_EQ(tensors.size(), whole.size());
  for (const auto& [name, tensor] : whole) {
    ASSERT_TRUE(tensors.count(name)) << name << " is not in the export";
    EXPECT_LT((tensors.at(name) - tensor).abs().max().item<double>(), 1e-5) << name;
  }
  fs::remove_all(plain_dir);
  fs::remove_all(fs::path(run).parent_path().parent_path());
}

TEST(CliDataParallel, ABadLauncherVariableIsAClearErrorNamingIt) {
  const std::string dir = tempDir("dp-env");
  writeExperiment(dir, "\"cpu\"");
  const std::string cmd = "cd " + dir +
                          " && RANK=3 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 " WB_CLI
                          " train exp.json --quiet > env.out 2> env.err";
  const int raw = std::system(cmd.c_str());
  EXPECT_EQ(WEXITSTATUS(raw), 2);
  const std::string err = readFile(dir + "/env.err");
  EXPECT_NE(err.find("RANK"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(dir + "/runs") && !wb::test::onlyRunFolder(dir + "/runs").empty());
  fs::remove_all(dir);
}

}  // namespace
