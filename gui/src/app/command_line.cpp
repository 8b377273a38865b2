#include "app/command_line.h"

namespace wb::gui {

QString usageText() {
  return QStringLiteral(
      "usage: workbench [EXPERIMENT.json] [--open RUN_DIR ...] [--compression RUN_DIR [--compress-dialog "
      "KIND]]\n"
      "                 [--export FORMAT [--artifact NAME]] [--evaluate RUN_DIR] [--model-table] [--sweep "
      "NAME]\n"
      "                 [--screenshot FILE [--after-steps N]]\n"
      "\n"
      "Opens the workbench window with the experiment (default: the CNN on Fashion-MNIST).\n"
      "\n"
      "  --screenshot FILE   start the experiment, let it train N steps (or to its end), save a PNG of the\n"
      "                      window to FILE and exit (0 on success); works with QT_QPA_PLATFORM=offscreen\n"
      "  --after-steps N     steps before the screenshot (default 100)\n"
      "  --open RUN_DIR      show a past run's plots (repeat to overlay several); with --screenshot, the\n"
      "                      screenshot shows them and nothing is trained\n"
      "  --compression RUN_DIR  show a finished run's Compression view (its compressed models against the\n"
      "                      original); with --screenshot, nothing is trained\n"
      "  --compress-dialog KIND  with --compression: open the Compress dialog (prune, quantize, distill or\n"
      "                      pipeline) for that run; with --screenshot, the PNG shows the dialog\n"
      "  --export FORMAT     with --compression RUN_DIR (or --open RUN_DIR): export that run's model as\n"
      "                      torchscript, onnx or safetensors into a temporary folder and show the result;\n"
      "                      with --screenshot, the PNG shows the result dialog\n"
      "  --artifact NAME     with --export: a compressed model of the run instead (compressed/01-prune)\n"
      "  --evaluate RUN_DIR  evaluate a finished run on its test split in the Evaluation tab; with\n"
      "                      --screenshot, the PNG shows the finished evaluation and nothing is trained\n"
      "  --model-table       show the Model tab (the experiment's layers, parameters, FLOPs); with\n"
      "                      --screenshot, the PNG shows it and nothing is trained\n"
      "  --sweep NAME        show that sweep of the experiment's runs folder in the Sweeps tab (its trials,\n"
      "                      the parallel-coordinates chart, the best); with --screenshot, nothing is "
      "trained\n"
      "  --version           print the version\n");
}

namespace {

// The options that take one value and only keep it: --screenshot FILE is cl.screenshotFile = FILE.
struct ValueOption {
  const char* name;
  QString CommandLine::*field;
  const char* needs;  // what the error says is missing
};

const ValueOption kValueOptions[] = {
    {"--screenshot", &CommandLine::screenshotFile, "a file name"},
    {"--compression", &CommandLine::compressionRun, "a run folder"},
    {"--evaluate", &CommandLine::evaluateRun, "a run folder"},
    {"--sweep", &CommandLine::sweep, "the sweep's name"},
};

const ValueOption* valueOption(const QString& argument) {
  for (const ValueOption& option : kValueOptions) {
    if (argument == QLatin1String(option.name)) return &option;
  }
  return nullptr;
}

// Options that make sense only together, or not together; empty when the combination is fine.
QString combinationError(const CommandLine& cl) {
  if (!cl.compressDialog.isEmpty() && cl.compressionRun.isEmpty()) {
    return QStringLiteral("--compress-dialog needs --compression RUN_DIR (the run to compress)");
  }
  if (!cl.exportFormat.isEmpty() && cl.compressionRun.isEmpty() && cl.openRuns.isEmpty()) {
    return QStringLiteral("--export needs --compression RUN_DIR or --open RUN_DIR (the run to export)");
  }
  if (!cl.exportArtifact.isEmpty() && cl.exportFormat.isEmpty()) {
    return QStringLiteral("--artifact needs --export FORMAT");
  }
  if (!cl.exportFormat.isEmpty() && !cl.compressDialog.isEmpty()) {
    return QStringLiteral("--export and --compress-dialog open a dialog each: choose one");
  }
  return QString();
}

}  // namespace

CommandLine parseCommandLine(const QStringList& arguments) {
  CommandLine cl;
  for (int i = 1; i < arguments.size(); ++i) {
    const QString& a = arguments[i];
    if (const ValueOption* option = valueOption(a)) {
      if (++i >= arguments.size()) {
        cl.error = QStringLiteral("%1 needs %2").arg(a, QLatin1String(option->needs));
        return cl;
      }
      cl.*(option->field) = arguments[i];
    } else if (a == QLatin1String("--help") || a == QLatin1String("-h")) {
      cl.help = true;
    } else if (a == QLatin1String("--version")) {
      cl.version = true;
    } else if (a == QLatin1String("--open")) {
      if (++i >= arguments.size()) {
        cl.error = QStringLiteral("--open needs a run folder");
        return cl;
      }
      cl.openRuns << arguments[i];
    } else if (a == QLatin1String("--compress-dialog")) {
      static const QStringList kinds = {QStringLiteral("prune"), QStringLiteral("quantize"),
                                        QStringLiteral("distill"), QStringLiteral("pipeline")};
      if (++i >= arguments.size() || !kinds.contains(arguments[i])) {
        cl.error = QStringLiteral("--compress-dialog needs one of: %1").arg(kinds.join(QStringLiteral(", ")));
        return cl;
      }
      cl.compressDialog = arguments[i];
    } else if (a == QLatin1String("--export")) {
      static const QStringList formats = {QStringLiteral("torchscript"), QStringLiteral("onnx"),
                                          QStringLiteral("safetensors")};
      if (++i >= arguments.size() || !formats.contains(arguments[i])) {
        cl.error = QStringLiteral("--export needs one of: %1").arg(formats.join(QStringLiteral(", ")));
        return cl;
      }
      cl.exportFormat = arguments[i];
    } else if (a == QLatin1String("--artifact")) {
      if (++i >= arguments.size()) {
        cl.error = QStringLiteral("--artifact needs a compressed model's name (compressed/01-prune)");
        return cl;
      }
      cl.exportArtifact = arguments[i];
      if (!cl.exportArtifact.contains(QLatin1Char('/')))
        cl.exportArtifact.prepend(QStringLiteral("compressed/"));
    } else if (a == QLatin1String("--model-table")) {
      cl.showModel = true;
    } else if (a == QLatin1String("--after-steps")) {
      bool ok = false;
      cl.afterSteps = i + 1 < arguments.size() ? arguments[++i].toLongLong(&ok) : 0;
      if (!ok || cl.afterSteps < 1) {
        cl.error = QStringLiteral("--after-steps needs a positive number of steps");
        return cl;
      }
    } else if (a.startsWith(QLatin1String("-"))) {
      cl.error = QStringLiteral("unknown option '%1'").arg(a);
      return cl;
    } else if (cl.experimentFile.isEmpty()) {
      cl.experimentFile = a;
    } else {
      cl.error = QStringLiteral("more than one experiment file ('%1' and '%2')").arg(cl.experimentFile, a);
      return cl;
    }
  }
  if (cl.error.isEmpty()) cl.error = combinationError(cl);
  return cl;
}

}  // namespace wb::gui
