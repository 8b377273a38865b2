#include "train/checkpoint_writer.h"

#include <chrono>
#include <filesystem>
#include <sstream>

#include "run_folder/training_state.h"
#include "torch_compat.h"

namespace wb {

CheckpointWriter::CheckpointWriter(CheckpointStore& store, EventStream& events, RunFolder& folder,
                                   nlohmann::json experiment_json)
    : m_store(store), m_events(events), m_folder(folder), m_experiment(std::move(experiment_json)) {}

std::string CheckpointWriter::write(const RankProgress& progress, Model& model,
                                    torch::optim::Optimizer& optimizer, const LrSchedule& schedule,
                                    const GradScaler& scaler, const nlohmann::json& extra_meta,
                                    const PartState& parts_state) {
  const auto t0 = std::chrono::steady_clock::now();
  m_events.flush();
  nlohmann::json meta = {{"format", 1},
                         {"experiment", m_experiment},
                         {"progress", progress.toJson()},
                         {"schedule", schedule.state()},
                         {"scaler", scaler.state().toJson()},
                         {"log_lengths", m_folder.logLengths()},
                         {"torch_version", compat::torchVersion()}};
  if (extra_meta.is_object()) {
    for (auto it = extra_meta.begin(); it != extra_meta.end(); ++it) meta[it.key()] = it.value();
  }
  // A sharded run's main file names the shard files every rank has written (the optimizer's state is theirs).
  uint64_t shard_bytes = 0;
  if (!progress.shards.empty()) {
    meta["shards"] = shardsToJson(progress.shards);
    for (const CheckpointShard& shard : progress.shards) shard_bytes += shard.check.bytes;
  }
  serializeTrainingState(model, optimizer, m_payload, parts_state);
  const std::string path = m_store.save(progress.step, std::move(meta), m_payload);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::ostringstream line;
  line.setf(std::ios::fixed);
  line << "Checkpoint (" << progress.reason << ") at step " << progress.step << ": "
       << std::filesystem::path(path).filename().string() << ", ";
  line.precision(1);
  line << static_cast<double>(m_payload.size()) / (1024.0 * 1024.0) << " MiB";
  if (!progress.shards.empty()) {
    line << " + " << progress.shards.size() << " optimizer shard files of "
         << static_cast<double>(shard_bytes) / (1024.0 * 1024.0) << " MiB";
  }
  line << " in " << static_cast<int64_t>(ms) << " ms";
  m_events.log(LogLevel::Info, line.str());
  return path;
}

}  // namespace wb
