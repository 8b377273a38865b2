#include <iostream>

#include "cli_commands.h"
#include "workbench/system_info.h"

namespace wb::cli {

int infoCommand(const std::vector<std::string>& args) {
  for (const auto& a : args) {
    if (a == "--help" || a == "-h") {
      std::cout
          << "usage: workbench-cli info\n\nPrints the LibTorch version, the BLAS in use, thread counts, "
             "the devices training can use, the CPU's extensions and what bf16 and int8 cost on "
             "it.\n`workbench-cli --version` prints the versions of LibTorch, "
             "the BLAS, CUDA, cuDNN and NCCL.\n\nExample:\n  workbench-cli info\n";
      return kExitOk;
    }
    std::cerr << "error: unknown argument '" << a << "' for info\n";
    return kExitBadInput;
  }
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

}  // namespace wb::cli
