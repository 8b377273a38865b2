// workbench-onnx-writer PLAN_FOLDER OUT.onnx: the ONNX export's last step in a process of its own. pip's
// LibTorch carries a protobuf of its own, which Debian's ONNX library (built on Debian's protobuf) cannot
// share a process with; so a workbench built against it hands the model over as a plan
// (export/onnx_plan_files.h) and this program, which links ONNX and protobuf and no LibTorch, builds, checks
// and writes the file with the same code the Debian build runs in-process. Exit status 0: OUT written whole;
// 1: nothing written, the reason on stderr in one line; 2: wrong arguments.

#include <cstdio>
#include <exception>
#include <string>

#include "export/onnx_model_writer.h"
#include "export/onnx_plan_files.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: workbench-onnx-writer PLAN_FOLDER OUT.onnx\n");
    return 2;
  }
  try {
    wb::onnx_export::writeOnnxModelFile(wb::onnx_export::readPlanFiles(argv[1]), argv[2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
