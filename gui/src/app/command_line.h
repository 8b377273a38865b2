#pragma once
// `workbench [EXPERIMENT.json] [--open RUN_DIR ...] [--compression RUN_DIR [--compress-dialog KIND]]
//  [--export FORMAT [--artifact NAME]] [--evaluate RUN_DIR] [--model-table] [--sweep NAME] [--screenshot
//  FILE]
//  [--after-steps N]`.

#include <QString>
#include <QStringList>
#include <optional>

namespace wb::gui {

struct CommandLine {
  QString experimentFile;  // empty: the default experiment
  QString screenshotFile;  // non-empty: screenshot mode
  long long afterSteps = 100;
  QStringList openRuns;  // run folders whose plots open at start (overlaid); with --screenshot: no training
  QString
      compressionRun;  // a run folder whose Compression view opens at start; with --screenshot: no training
  QString
      compressDialog;  // prune | quantize | distill | pipeline: that dialog opens over it (screenshot: of it)
  // torchscript | onnx | safetensors: the run of --compression (or the first --open) is exported to a
  // temporary folder and the result dialog opens (screenshot: of it); exportArtifact picks a compressed model
  // instead.
  QString exportFormat;
  QString exportArtifact;  // "compressed/01-prune" (or "01-prune")
  QString
      evaluateRun;  // a finished run evaluated at start in the Evaluation tab; with --screenshot: no training
  bool showModel = false;  // the Model tab in front; with --screenshot: its table, no training
  QString sweep;  // a sweep of the experiment's runs folder in the Sweeps tab; with --screenshot: no training
  bool help = false;
  bool version = false;
  QString error;  // non-empty when the arguments are wrong
};

CommandLine parseCommandLine(const QStringList& arguments);
QString usageText();

}  // namespace wb::gui
