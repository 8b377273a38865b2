#include <iostream>

#include "cli_commands.h"
#include "workbench/build_features.h"
#include "workbench/nvml_inventory.h"
#include "workbench/system_info.h"

namespace wb::cli {
namespace {

int info() {
  configureThreads(0);
  const SystemInfo info = querySystemInfo();
  std::cout << describe(info) << "\n"
            << cpuBf16Cost(info.cpu).summary << "\n"
            << "int8 on this CPU: "
            << (info.cpu.vnni()
                    ? "VNNI dot products (int8 pairs summed in 32 bits)"
                    : "no VNNI: int8 kernels sum pairs of products in 16 bits, which the workbench's 7-bit "
                      "int8 weights keep from saturating")
            << "\n"
            << describeBuildFeatures(queryBuildFeatures()) << "\n";
  // What the GPU figures (utilization, power, clocks) are read from: the driver's NVML, loaded or why not.
  for (const std::string& line : describeNvmlInventory(queryNvmlInventory())) std::cout << line << "\n";
  return kExitOk;
}

}  // namespace

void addInfoCommand(CLI::App& program) {
  CLI::App* command = addCommand(
      program, "info",
      "LibTorch, BLAS, threads, devices, this build's CUDA, NCCL, Gloo and Kineto, and NVML\n"
      "Prints the LibTorch version, the BLAS in use, thread counts, the devices training can use, the CPU's "
      "extensions and what bf16 and int8 cost on it, what this build has (CUDA, NCCL, Gloo, Kineto), and "
      "whether the driver's NVML loads (and why not) with the GPUs it sees and their PCI bus ids. "
      "`workbench-cli --version` prints the versions of "
      "LibTorch, "
      "the BLAS, CUDA, cuDNN and NCCL.",
      "Example:\n  workbench-cli info\n");
  setAction(command, info);
}

}  // namespace wb::cli
