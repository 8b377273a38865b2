#include <iostream>

#include "cli_commands.h"
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
            << "\n";
  return kExitOk;
}

}  // namespace

void addInfoCommand(CLI::App& program) {
  CLI::App* command = addCommand(
      program, "info",
      "LibTorch, BLAS, threads and devices\n"
      "Prints the LibTorch version, the BLAS in use, thread counts, the devices training can use, the CPU's "
      "extensions and what bf16 and int8 cost on it. `workbench-cli --version` prints the versions of "
      "LibTorch, "
      "the BLAS, CUDA, cuDNN and NCCL.",
      "Example:\n  workbench-cli info\n");
  setAction(command, info);
}

}  // namespace wb::cli
