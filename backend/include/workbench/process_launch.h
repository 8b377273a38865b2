#pragma once
// How this process was launched: alone, or as one rank of a data-parallel job started by torchrun
// (`python -m torch.distributed.run`), by Slurm's srun, or by hand through the same variables. Read from the
// environment once, at start-up, on the main thread; plain C++, no Torch.

#include <cstdlib>
#include <functional>
#include <optional>
#include <string>

#include "workbench/word_set.h"

namespace wb {

// What started this process as one rank of a job: torchrun (its agent's variables), Slurm's srun, or the
// variables set by hand (env).
enum class Launcher { Torchrun, Slurm, Env };
template <>
struct Words<Launcher> {
  static constexpr std::array<Word<Launcher>, 3> table{
      {{Launcher::Torchrun, "torchrun"}, {Launcher::Slurm, "slurm"}, {Launcher::Env, "env"}}};
};
static_assert(isWholeWordTable<Launcher>());

struct ProcessLaunch {
  int rank = 0;             // this process's rank, 0 to world_size - 1
  int world_size = 1;       // processes in the job
  int local_rank = 0;       // rank among the processes on this machine: the CUDA device it trains on
  std::string master_addr;  // where rank 0's store listens (rank 0 listens there; the others connect)
  int master_port = 0;
  Launcher launcher = Launcher::Env;
  // torchrun's agent already runs a TCPStore at master_addr:master_port (TORCHELASTIC_USE_AGENT_STORE=True):
  // every rank, rank 0 included, connects to it as a client, under store_prefix.
  bool agent_store = false;
  std::string store_prefix;  // "/worker/attempt_<TORCHELASTIC_RESTART_COUNT>" with agent_store, else ""
};

/// Reads the launch from the environment (`getVariable` returns a variable's value, or null when unset).
///
/// - torchrun or by hand: RANK and WORLD_SIZE (both or neither), LOCAL_RANK (RANK when unset), MASTER_ADDR
///   (required when WORLD_SIZE > 1, else 127.0.0.1), MASTER_PORT (required, 1 to 65535). The launcher is
///   Torchrun when TORCHELASTIC_RUN_ID or GROUP_RANK is set, else Env.
/// - Slurm (no WORLD_SIZE, SLURM_PROCID set and SLURM_NTASKS > 1, as under srun): SLURM_PROCID, SLURM_NTASKS,
///   SLURM_LOCALID; MASTER_ADDR, else the first host of SLURM_JOB_NODELIST (or SLURM_NODELIST); MASTER_PORT,
///   else 29500.
///
/// Returns nullopt when no launcher started the process. Throws UserError naming the variable that is
/// missing or bad (the hint says what to set).
std::optional<ProcessLaunch> processLaunchFromEnvironment(
    const std::function<const char*(const char*)>& getVariable = ::getenv);

/// The first host of a Slurm host list, zero padding kept: "node[01-04,07]" → "node01", "gpu[1-2],cpu3" →
/// "gpu1", "rack[1-2]-n[08-09]" → "rack1-n08". Empty when the list is empty or malformed.
std::string firstSlurmHost(const std::string& nodeList);

/// One line for the log: "rank 1 of 4 (local rank 1), launched by torchrun, store at 10.0.0.1:29500 ...".
std::string describe(const ProcessLaunch& launch);

}  // namespace wb
