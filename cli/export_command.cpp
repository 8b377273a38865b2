#include <iostream>

#include "cli_commands.h"
#include "run_session.h"
#include "workbench/export.h"

namespace wb::cli {
namespace {

struct ExportOptions {
  std::string run_dir, artifact, format_name, out;
  bool json = false;
  bool allow_unfinished = false;
};

int exportTo(const ExportOptions& o) {
  ExportFormat format;
  exportFormatFromString(o.format_name, format);  // checked when parsed
  ExportRequest request{o.run_dir, o.artifact, format, o.out};
  request.allow_unfinished = o.allow_unfinished;
  const ExportResult r = exportModel(request);
  if (!r.note.empty()) std::cerr << "warning: " << r.note << "\n";
  if (o.json) {
    nlohmann::json j{{"run_dir", o.run_dir},       {"model", o.artifact.empty() ? "model" : o.artifact},
                     {"format", toString(format)}, {"file", r.file},
                     {"bytes", r.bytes},           {"seconds", r.seconds},
                     {"python", r.python_snippet}, {"cpp", r.cpp_snippet}};
    if (!r.note.empty()) j["note"] = r.note;
    std::cout << j.dump(2) << std::endl;
  } else {
    std::printf("%s: wrote %s (%s, %.2f MiB) in %.2f s\n\nPython:\n%s\nC++:\n%s", o.run_dir.c_str(),
                r.file.c_str(), toString(format), static_cast<double>(r.bytes) / (1024.0 * 1024.0), r.seconds,
                r.python_snippet.c_str(), r.cpp_snippet.c_str());
  }
  return kExitOk;
}

}  // namespace

void addExportCommand(CLI::App& program) {
  CLI::App* command = addCommand(
      program, "export",
      "write torchscript, onnx or safetensors for other tools\n"
      "Writes the run's trained model (or one of its compressed artifacts) into a file other tools load:\n"
      "  torchscript  a .pt module for torch.jit.load (Python) and torch::jit::load (LibTorch); int8 models "
      "keep\n"
      "               their int8 kernels (set the quantized engine named in its metadata before loading)\n"
      "  onnx         an .onnx graph for ONNX Runtime and friends\n"
      "  safetensors  the weights by state-dict name (int8: int8 weights with their scales and zero points)\n"
      "Every file carries the input shape, the normalization, the class names, the experiment's name and the "
      "artifact's history. FILE is replaced atomically; a refused export leaves it as it was. "
      "docs/export.md.",
      "Examples:\n"
      "  workbench-cli export RUN_DIR --format torchscript --out cnn.pt\n"
      "  workbench-cli export RUN_DIR --model compressed/02-quantize --format onnx --out cnn-int8.onnx\n"
      "\n"
      "Exit status: 0 done, 2 bad input, 1 failure.\n");
  auto o = std::make_shared<ExportOptions>();
  command->add_option("RUN_DIR", o->run_dir, "the run's folder (`workbench-cli runs` lists them)")
      ->required();
  command->add_option("--format", o->format_name, "the file's format")
      ->type_name("torchscript|onnx|safetensors")
      ->required()
      ->check(takes("a format: torchscript, onnx or safetensors", [](const std::string& text) {
        ExportFormat format;
        return exportFormatFromString(text, format);
      }));
  command->add_option("--out", o->out, "the file to write")->type_name("FILE")->required();
  command
      ->add_option("--model", o->artifact,
                   "a compressed model of the run instead, e.g. compressed/02-quantize")
      ->type_name("ARTIFACT");
  command->add_flag(
      "--allow-unfinished", o->allow_unfinished,
      "export the model of a run that did not finish (interrupted: its part-trained model of the "
      "step it stopped at); refused without it");
  command->add_flag("--json", o->json,
                    "print the result (file, bytes, seconds, loading snippets) as one JSON object");
  setAction(command, [o] { return exportTo(*o); });
}

}  // namespace wb::cli
