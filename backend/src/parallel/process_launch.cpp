// processLaunchFromEnvironment: the variables torchrun, srun or a person set for each process of a job.
// Every problem is a UserError naming the variable, so a job with a typo fails at once on every rank instead
// of waiting for a peer that will never come.

#include "workbench/process_launch.h"

#include <charconv>
#include <cstdint>

#include "workbench/errors.h"

namespace wb {
namespace {

// PyTorch's default (torch.distributed.run's --master_port) for a Slurm job that names no port.
constexpr int kDefaultSlurmPort = 29500;

class Environment {
 public:
  explicit Environment(const std::function<const char*(const char*)>& lookup) : m_lookup(lookup) {}

  // The variable's value, or nullopt when it is unset.
  std::optional<std::string> get(const char* name) const {
    const char* value = m_lookup(name);
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  }
  bool has(const char* name) const { return m_lookup(name) != nullptr; }

 private:
  const std::function<const char*(const char*)>& m_lookup;
};

std::string shown(const char* name, const std::string& value) {
  return std::string(name) + "=\"" + value + "\"";
}

// The whole text as a decimal integer: no sign but '-', no spaces, nothing after it ("4x" and " 4" are
// refused, where atoi would read 4 and hide a broken launch script).
std::optional<int> parseInteger(const std::string& text) {
  int value = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  const auto [ptr, error] = std::from_chars(begin, end, value);
  if (text.empty() || error != std::errc() || ptr != end) return std::nullopt;
  return value;
}

// `name` as an integer in [low, high], or a UserError naming it with `hint` (what to set).
int readInteger(const char* name, const std::string& text, int low, int high, const std::string& range,
                const std::string& hint) {
  const std::optional<int> value = parseInteger(text);
  if (!value) throw UserError(shown(name, text) + " is not an integer", hint);
  if (*value < low || *value > high) throw UserError(shown(name, text) + " is not " + range, hint);
  return *value;
}

int readRequiredInteger(const Environment& env, const char* name, int low, int high, const std::string& range,
                        const std::string& hint) {
  const std::optional<std::string> text = env.get(name);
  if (!text) throw UserError(std::string(name) + " is not set", hint);
  return readInteger(name, *text, low, high, range, hint);
}

int readPort(const std::string& text) {
  return readInteger(
      "MASTER_PORT", text, 1, 65535, "a TCP port (1 to 65535)",
      "set MASTER_PORT to a free TCP port on rank 0's host, the same for every process, such as "
      "29500");
}

bool readAgentStoreSwitch(const Environment& env) {
  const std::optional<std::string> text = env.get("TORCHELASTIC_USE_AGENT_STORE");
  if (!text) return false;
  // torchrun writes str(True); Python's own check compares with "True".
  if (*text == "True" || *text == "true" || *text == "1") return true;
  if (*text == "False" || *text == "false" || *text == "0" || text->empty()) return false;
  throw UserError(shown("TORCHELASTIC_USE_AGENT_STORE", *text) + " is neither True nor False",
                  "torchrun sets it to True; unset it when the process is not started by torchrun");
}

ProcessLaunch fromLauncherVariables(const Environment& env) {
  const bool hasRank = env.has("RANK");
  const bool hasWorld = env.has("WORLD_SIZE");
  if (hasRank && !hasWorld) {
    throw UserError("RANK is set but WORLD_SIZE is not",
                    "a launcher sets both (torchrun does): set WORLD_SIZE to the number of processes in the "
                    "job, or unset RANK to train in this process alone");
  }
  if (hasWorld && !hasRank) {
    throw UserError(
        "WORLD_SIZE is set but RANK is not",
        "a launcher sets both (torchrun does): set RANK to this process's rank (0 to WORLD_SIZE - 1), "
        "or unset WORLD_SIZE to train in this process alone");
  }

  ProcessLaunch launch;
  launch.world_size = readRequiredInteger(env, "WORLD_SIZE", 1, INT32_MAX, "a positive integer",
                                          "set WORLD_SIZE to the number of processes in the job (1 or more)");
  const std::string last = std::to_string(launch.world_size - 1);
  const std::string rankRange =
      "in 0 to " + last + " (WORLD_SIZE is " + std::to_string(launch.world_size) + ")";
  launch.rank = readRequiredInteger(env, "RANK", 0, launch.world_size - 1, rankRange,
                                    "give each process its own RANK, 0 to " + last);
  // torchrun always sets LOCAL_RANK; by hand on one machine it is the rank.
  const std::optional<std::string> localRank = env.get("LOCAL_RANK");
  launch.local_rank = localRank
                          ? readInteger("LOCAL_RANK", *localRank, 0, launch.world_size - 1, rankRange,
                                        "set LOCAL_RANK to the process's rank among those on this machine "
                                        "(0, 1, ...), or unset it to use RANK")
                          : launch.rank;

  const std::optional<std::string> addr = env.get("MASTER_ADDR");
  if (addr && !addr->empty()) {
    launch.master_addr = *addr;
  } else if (launch.world_size > 1) {
    throw UserError(std::string("MASTER_ADDR is ") + (addr ? "empty" : "not set"),
                    "the " + std::to_string(launch.world_size) +
                        " processes meet at rank 0's store: set MASTER_ADDR to rank 0's host (127.0.0.1 when "
                        "they all run on this machine), the same for every process");
  } else {
    launch.master_addr = "127.0.0.1";
  }
  const std::optional<std::string> port = env.get("MASTER_PORT");
  if (!port) {
    throw UserError(
        "MASTER_PORT is not set",
        "set MASTER_PORT to a free TCP port on rank 0's host, the same for every process, such as "
        "29500");
  }
  launch.master_port = readPort(*port);

  launch.launcher =
      env.has("TORCHELASTIC_RUN_ID") || env.has("GROUP_RANK") ? Launcher::Torchrun : Launcher::Env;
  launch.agent_store = readAgentStoreSwitch(env);
  if (launch.agent_store) {
    const std::optional<std::string> restarts = env.get("TORCHELASTIC_RESTART_COUNT");
    if (!restarts) {
      throw UserError(
          "TORCHELASTIC_USE_AGENT_STORE is True but TORCHELASTIC_RESTART_COUNT is not set",
          "torchrun sets both; unset TORCHELASTIC_USE_AGENT_STORE when the process is not started "
          "by torchrun");
    }
    const int attempt = readInteger("TORCHELASTIC_RESTART_COUNT", *restarts, 0, INT32_MAX, "an integer ≥ 0",
                                    "torchrun sets it to the number of restarts so far (0, 1, ...)");
    launch.store_prefix = "/worker/attempt_" + std::to_string(attempt);
  }
  return launch;
}

ProcessLaunch fromSlurm(const Environment& env, int tasks) {
  ProcessLaunch launch;
  launch.launcher = Launcher::Slurm;
  launch.world_size = tasks;
  const std::string last = std::to_string(tasks - 1);
  const std::string range = "in 0 to " + last + " (SLURM_NTASKS is " + std::to_string(tasks) + ")";
  const std::string hint = "srun sets it for each task: launch the job's tasks with srun";
  launch.rank = readRequiredInteger(env, "SLURM_PROCID", 0, tasks - 1, range, hint);
  launch.local_rank = readRequiredInteger(env, "SLURM_LOCALID", 0, tasks - 1, range, hint);

  const std::optional<std::string> addr = env.get("MASTER_ADDR");
  if (addr && !addr->empty()) {
    launch.master_addr = *addr;
  } else {
    const char* listName = env.has("SLURM_JOB_NODELIST") ? "SLURM_JOB_NODELIST" : "SLURM_NODELIST";
    const std::optional<std::string> list = env.get(listName);
    if (!list) {
      throw UserError("neither MASTER_ADDR nor SLURM_JOB_NODELIST (or SLURM_NODELIST) is set",
                      "set MASTER_ADDR to the host of the job's first node (rank 0's)");
    }
    launch.master_addr = firstSlurmHost(*list);
    if (launch.master_addr.empty()) {
      throw UserError(shown(listName, *list) + " is not a Slurm host list such as \"node[01-04]\"",
                      "set MASTER_ADDR to the host of the job's first node (rank 0's)");
    }
  }
  const std::optional<std::string> port = env.get("MASTER_PORT");
  launch.master_port = port ? readPort(*port) : kDefaultSlurmPort;
  return launch;
}

}  // namespace

std::string firstSlurmHost(const std::string& nodeList) {
  // The first item of the list: up to the first comma outside brackets ("gpu[1-2],cpu3" → "gpu[1-2]").
  size_t end = nodeList.size();
  int depth = 0;
  for (size_t i = 0; i < nodeList.size(); ++i) {
    const char c = nodeList[i];
    if (c == '[') {
      if (++depth > 1) return {};
    } else if (c == ']') {
      if (--depth < 0) return {};
    } else if (c == ',' && depth == 0) {
      end = i;
      break;
    }
  }
  const std::string item = nodeList.substr(0, end);
  // Each bracket becomes the first number of its range list, kept as written ("[001-002,7]" → "001").
  std::string host;
  for (size_t i = 0; i < item.size(); ++i) {
    if (item[i] == ']') return {};
    if (item[i] != '[') {
      if (item[i] == ' ') return {};
      host += item[i];
      continue;
    }
    const size_t close = item.find(']', i);
    if (close == std::string::npos) return {};
    const std::string ranges = item.substr(i + 1, close - i - 1);
    const size_t stop = ranges.find_first_of(",-");
    const std::string first = ranges.substr(0, stop);
    if (first.empty() || first.find_first_not_of("0123456789") != std::string::npos) return {};
    host += first;
    i = close;
  }
  return host;
}

std::optional<ProcessLaunch> processLaunchFromEnvironment(
    const std::function<const char*(const char*)>& getVariable) {
  const Environment env(getVariable);
  if (env.has("RANK") || env.has("WORLD_SIZE")) return fromLauncherVariables(env);
  // Slurm sets SLURM_PROCID in every job, and SLURM_NTASKS also in a job's batch script: only several tasks
  // make this process one rank of several.
  if (!env.has("SLURM_PROCID")) return std::nullopt;
  const std::optional<std::string> tasksText = env.get("SLURM_NTASKS");
  if (!tasksText) return std::nullopt;
  const int tasks = readInteger("SLURM_NTASKS", *tasksText, 1, INT32_MAX, "a positive integer",
                                "Slurm sets it to the job's number of tasks (srun --ntasks)");
  if (tasks <= 1) return std::nullopt;
  return fromSlurm(env, tasks);
}

std::string describe(const ProcessLaunch& launch) {
  std::string text = "rank " + std::to_string(launch.rank) + " of " + std::to_string(launch.world_size) +
                     " (local rank " + std::to_string(launch.local_rank) + "), launched by ";
  switch (launch.launcher) {
    case Launcher::Torchrun:
      text += "torchrun";
      break;
    case Launcher::Slurm:
      text += "Slurm";
      break;
    case Launcher::Env:
      text += "the environment (RANK, WORLD_SIZE)";
      break;
  }
  text += ", store at " + launch.master_addr + ":" + std::to_string(launch.master_port);
  if (launch.agent_store) text += " (torchrun's agent store, prefix " + launch.store_prefix + ")";
  return text;
}

}  // namespace wb
