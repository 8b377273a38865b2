#include <iostream>

#include "cli_commands.h"
#include "workbench/system_info.h"

namespace wb::cli {

int infoCommand(const std::vector<std::string>& args) {
  for (const auto& a : args) {
    if (a == "--help" || a == "-h") {
      std::cout << "usage: workbench-cli info\n\nPrints the LibTorch version, the BLAS in use, thread counts and "
                   "the devices training can use.\n`workbench-cli --version` prints the versions of LibTorch, "
                   "the BLAS, CUDA, cuDNN and NCCL.\n\nExample:\n  workbench-cli info\n";
      return kExitOk;
    }
    std::cerr << "error: unknown argument '" << a << "' for info\n";
    return kExitBadInput;
  }
  configureThreads(0);
  std::cout << describe(querySystemInfo()) << "\n";
  return kExitOk;
}

}  // namespace wb::cli
