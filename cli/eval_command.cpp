#include <iostream>

#include "cli_commands.h"
#include "run_session.h"
#include "workbench/compression.h"
#include "workbench/errors.h"
#include "workbench/training_run.h"

namespace wb::cli {

int evalCommand(const std::vector<std::string>& args) {
  const char* help =
      "usage: workbench-cli eval RUN_DIR [--model ARTIFACT] [--json]\n"
      "\n"
      "Evaluates the run's model.pt on the test split of its experiment and prints loss and accuracy.\n"
      "  --model ARTIFACT  a compressed model of the run instead, e.g. compressed/02-quantize\n";
  std::string run_dir;
  bool json = false;
  std::string artifact;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--model") {
      if (i + 1 >= args.size()) {
        std::cerr << "error: --model needs an artifact, e.g. --model compressed/01-prune\n";
        return kExitBadInput;
      }
      artifact = args[++i];
    } else if (a == "--help" || a == "-h") {
      std::cout << help;
      return kExitOk;
    } else if (a == "--json") {
      json = true;
    } else if (!a.empty() && a[0] != '-' && run_dir.empty()) {
      run_dir = a;
    } else {
      std::cerr << "error: unknown argument '" << a << "' for eval\n\n" << help;
      return kExitBadInput;
    }
  }
  if (run_dir.empty()) {
    std::cerr << "error: eval needs a run folder\n\n" << help;
    return kExitBadInput;
  }
  try {
    const EvalResult r = artifact.empty() ? evaluateRunDir(run_dir) : evaluateArtifact(run_dir, artifact);
    if (json) {
      nlohmann::json out{{"run_dir", run_dir}, {"test_loss", r.loss}, {"test_accuracy", r.accuracy},
                         {"samples", r.samples}};
      if (!artifact.empty()) out["model"] = artifact;
      std::cout << out.dump(2) << std::endl;
    } else {
      const std::string what = artifact.empty() ? run_dir : run_dir + " " + artifact;
      std::printf("%s: test accuracy %.4f, test loss %.4f on %lld samples\n", what.c_str(), r.accuracy, r.loss,
                  static_cast<long long>(r.samples));
    }
    return kExitOk;
  } catch (const UserError& e) {
    printError(e.what(), e.hint());
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitFailure;
  }
}

}  // namespace wb::cli
