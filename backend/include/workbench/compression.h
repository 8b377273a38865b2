#pragma once
// Compressing a finished run's model: the passes of the experiment's `compress` section (prune, fine-tune,
// distill, quantize) run in order on a worker thread, each writing a model artifact into the run folder
// (compressed/NN-<pass>/) and its figures (accuracy, size, FLOPs, latency) against the original into
// compress.json. Plain C++: the window and the CLI include this without Torch.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "workbench/events.h"
#include "workbench/experiment.h"
#include "workbench/training_run.h"

namespace wb {

struct CompressRequest {
  std::string run_dir;  // a finished run
  // The passes to run; empty = the `compress` section of the run's experiment.json.
  std::optional<CompressConfig> config;
  // Run no pass: measure the original and every finished artifact again, one after the other in this session,
  // so that all figures in compress.json come from the same conditions.
  bool measure_only = false;
};

struct CompressionReport {
  std::string run_dir;
  std::vector<ArtifactFigures> artifacts;  // the original first, then every artifact of the run, oldest first
  RunStatus status = RunStatus::Failed;  // Completed, Interrupted (stopped; run again to continue) or Failed
};

class CompressionRun {
 public:
  // Called on the worker thread with each batch of events (fine-tuning metrics, logs, CompressionStage and
  // ArtifactFigures). Keep it short: copy or enqueue, then return.
  using EventSink = std::function<void(EventBatch&& batch)>;

  CompressionRun(CompressRequest request, EventSink sink);
  ~CompressionRun();  // requests a stop and joins the worker
  CompressionRun(const CompressionRun&) = delete;
  CompressionRun& operator=(const CompressionRun&) = delete;

  // Returns at once. A pipeline left unfinished in the folder with the same passes continues where it was:
  // finished passes are reused, the pass in flight restarts from its last checkpoint.
  void start();
  void requestStop();  // the pass in flight writes a checkpoint after its current step, then the run ends
  bool isRunning() const;
  void wait();                       // never from a UI thread
  CompressionReport report() const;  // valid after the worker ended

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

CompressionReport compressBlocking(const CompressRequest& request, const CompressionRun::EventSink& sink);

// compress.json of a run folder read back (the window's Compression view); empty when there is none. No
// Torch.
std::vector<ArtifactFigures> readCompressionReport(const std::string& run_dir);

// The test split's loss and accuracy of one artifact ("compressed/02-quantize") of a run. Throws
// wb::UserError for a missing or damaged artifact.
EvalResult evaluateArtifact(const std::string& run_dir, const std::string& artifact);

// Checks the compress section against the run it would compress, without running it: a teacher that does
// not exist, a student that does not fit the data, a TorchScript model with passes it cannot take. Paths are
// "compress.passes[i].key". Empty when it can run.
std::vector<ValidationIssue> checkCompression(const std::string& run_dir, const CompressConfig& config);

}  // namespace wb
