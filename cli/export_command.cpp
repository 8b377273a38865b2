#include <iostream>

#include "cli_commands.h"
#include "run_session.h"
#include "workbench/errors.h"
#include "workbench/export.h"

namespace wb::cli {

int exportCommand(const std::vector<std::string>& args) {
  const char* help =
      "usage: workbench-cli export RUN_DIR [--model ARTIFACT] --format torchscript|onnx|safetensors --out "
      "FILE\n"
      "                            [--allow-unfinished] [--json]\n"
      "\n"
      "Writes the run's trained model (or one of its compressed artifacts) into a file other tools load:\n"
      "  torchscript  a .pt module for torch.jit.load (Python) and torch::jit::load (LibTorch); int8 models "
      "keep\n"
      "               their int8 kernels (set the quantized engine named in its metadata before loading)\n"
      "  onnx         an .onnx graph for ONNX Runtime and friends\n"
      "  safetensors  the weights by state-dict name (int8: int8 weights with their scales and zero points)\n"
      "Every file carries the input shape, the normalization, the class names, the experiment's name and "
      "the\n"
      "artifact's history. FILE is replaced atomically; a refused export leaves it as it was. "
      "docs/export.md.\n"
      "  --model ARTIFACT  a compressed model of the run instead, e.g. compressed/02-quantize\n"
      "  --allow-unfinished  export the model of a run that did not finish (interrupted: its part-trained "
      "model of\n"
      "                    the step it stopped at); refused without it\n"
      "  --json            print the result (file, bytes, seconds, loading snippets) as one JSON object\n"
      "\n"
      "Examples:\n"
      "  workbench-cli export RUN_DIR --format torchscript --out cnn.pt\n"
      "  workbench-cli export RUN_DIR --model compressed/02-quantize --format onnx --out cnn-int8.onnx\n"
      "\n"
      "Exit status: 0 done, 2 bad input, 1 failure.\n";
  std::string run_dir, artifact, format_name, out;
  bool json = false;
  bool allow_unfinished = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](const char* what) -> const std::string* {
      if (i + 1 >= args.size()) {
        std::cerr << "error: " << a << " needs " << what << "\n\n" << help;
        return nullptr;
      }
      return &args[++i];
    };
    if (a == "--model") {
      const std::string* v = value("an artifact, e.g. --model compressed/01-prune");
      if (!v) return kExitBadInput;
      artifact = *v;
    } else if (a == "--format") {
      const std::string* v = value("a format: torchscript, onnx or safetensors");
      if (!v) return kExitBadInput;
      format_name = *v;
    } else if (a == "--out") {
      const std::string* v = value("a file to write");
      if (!v) return kExitBadInput;
      out = *v;
    } else if (a == "--json") {
      json = true;
    } else if (a == "--allow-unfinished") {
      allow_unfinished = true;
    } else if (a == "--help" || a == "-h") {
      std::cout << help;
      return kExitOk;
    } else if (!a.empty() && a[0] != '-' && run_dir.empty()) {
      run_dir = a;
    } else {
      std::cerr << "error: unknown argument '" << a << "' for export\n\n" << help;
      return kExitBadInput;
    }
  }
  if (run_dir.empty() || format_name.empty() || out.empty()) {
    std::cerr << "error: export needs a run folder, --format and --out\n\n" << help;
    return kExitBadInput;
  }
  ExportFormat format;
  if (!exportFormatFromString(format_name, format)) {
    std::cerr << "error: unknown export format '" << format_name
              << "': use torchscript, onnx or safetensors\n";
    return kExitBadInput;
  }
  try {
    ExportRequest request{run_dir, artifact, format, out};
    request.allow_unfinished = allow_unfinished;
    const ExportResult r = exportModel(request);
    if (!r.note.empty()) std::cerr << "warning: " << r.note << "\n";
    if (json) {
      nlohmann::json j{{"run_dir", run_dir},         {"model", artifact.empty() ? "model" : artifact},
                       {"format", toString(format)}, {"file", r.file},
                       {"bytes", r.bytes},           {"seconds", r.seconds},
                       {"python", r.python_snippet}, {"cpp", r.cpp_snippet}};
      if (!r.note.empty()) j["note"] = r.note;
      std::cout << j.dump(2) << std::endl;
    } else {
      std::printf("%s: wrote %s (%s, %.2f MiB) in %.2f s\n\nPython:\n%s\nC++:\n%s", run_dir.c_str(),
                  r.file.c_str(), toString(format), static_cast<double>(r.bytes) / (1024.0 * 1024.0),
                  r.seconds, r.python_snippet.c_str(), r.cpp_snippet.c_str());
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
