#include "progress_printer.h"

#include <cmath>
#include <string>
#include <vector>

namespace wb::cli {
namespace {

constexpr int kBarWidth = 24;
constexpr auto kPlainInterval = std::chrono::seconds(5);

// NVML's figures when a GPU was sampled, nothing when not (the run's log said why once): rank 0's GPU with
// one device, each device's with several (a data-parallel run's ranks, a pipeline's stage devices).
std::string gpuText(const StepMetrics& m) {
  if (m.devices.size() < 2) return gpuBrief(m.gpu);
  std::vector<GpuFigures> gpus;
  for (const DeviceMetrics& device : m.devices) gpus.push_back(device.gpu);
  return gpuBrief(gpus);
}

}  // namespace

std::string formatDuration(double seconds) {
  if (seconds < 0 || !std::isfinite(seconds)) return "--:--";
  const int64_t s = static_cast<int64_t>(seconds + 0.5);
  char text[32];
  if (s >= 3600) {
    std::snprintf(text, sizeof(text), "%lld:%02lld:%02lld", static_cast<long long>(s / 3600),
                  static_cast<long long>(s / 60 % 60), static_cast<long long>(s % 60));
  } else {
    std::snprintf(text, sizeof(text), "%02lld:%02lld", static_cast<long long>(s / 60),
                  static_cast<long long>(s % 60));
  }
  return text;
}

ProgressPrinter::ProgressPrinter(std::FILE* out, bool interactive, int64_t epochs)
    : m_out(out), m_interactive(interactive), m_epochs(epochs) {}

void ProgressPrinter::clearBar() {
  if (m_bar_shown) {
    std::fprintf(m_out, "\r\033[K");
    m_bar_shown = false;
  }
}

std::string ProgressPrinter::epochText(int64_t epoch) const {
  return "epoch " + std::to_string(epoch) + (m_epochs > 0 ? "/" + std::to_string(m_epochs) : "");
}

void ProgressPrinter::print(const EventBatch& batch) {
  for (const Event& event : batch) {
    if (const auto* step = std::get_if<StepMetrics>(&event)) {
      printStep(*step);
    } else if (const auto* epoch = std::get_if<EpochMetrics>(&event)) {
      printEpoch(*epoch);
    } else if (const auto* log = std::get_if<LogLine>(&event)) {
      if (log->level == LogLevel::Debug) continue;
      clearBar();
      if (log->level == LogLevel::Info) {
        std::fprintf(m_out, "%s\n", log->text.c_str());
      } else {
        std::fprintf(m_out, "%s: %s\n", toString(log->level), log->text.c_str());
      }
    } else if (const auto* control = std::get_if<ControlApplied>(&event)) {
      clearBar();
      std::fprintf(m_out, "%s\n", control->message.c_str());
    } else if (const auto* error = std::get_if<RunError>(&event)) {
      // Errors go to stderr even when the progress goes to stdout: `train ... > log` still shows them.
      clearBar();
      std::fflush(m_out);
      std::fprintf(stderr, "error: %s\n", error->message.c_str());
      if (!error->hint.empty()) std::fprintf(stderr, "  what to do: %s\n", error->hint.c_str());
    } else if (const auto* stage = std::get_if<CompressionStage>(&event)) {
      if (stage->state == StageState::Finished) clearBar();
    } else if (const auto* finished = std::get_if<RunFinished>(&event)) {
      clearBar();
      const RunSummary& s = finished->summary;
      if (m_epochs <= 0) {  // a compression pipeline: its passes' own lines said what was done
        std::fprintf(m_out, "Compression %s in %s\n", wordString(s.status).c_str(),
                     formatDuration(s.wall_s).c_str());
        continue;
      }
      std::fprintf(m_out, "Run %s after %lld steps in %s", wordString(s.status).c_str(),
                   static_cast<long long>(s.steps), formatDuration(s.wall_s).c_str());
      if (s.test_accuracy >= 0) {
        std::fprintf(m_out, ": test accuracy %.4f, test loss %.4f, %.0f samples/s", s.test_accuracy,
                     s.test_loss, s.samples_per_sec);
      }
      std::fprintf(m_out, "\n");
      if (!s.run_dir.empty()) std::fprintf(m_out, "Run folder: %s\n", s.run_dir.c_str());
    }
  }
  std::fflush(m_out);
}

void ProgressPrinter::printStep(const StepMetrics& m) {
  const double overall = m.total_steps > 0 ? static_cast<double>(m.step) / m.total_steps : 0;
  const std::string brief = gpuText(m);
  const std::string gpu = brief.empty() ? "" : "  " + brief;
  if (m_interactive) {
    const int filled = static_cast<int>(std::lround(overall * kBarWidth));
    std::string bar(static_cast<size_t>(filled), '#');
    bar.resize(kBarWidth, '.');
    std::fprintf(m_out, "\r\033[K%s [%s] step %lld/%lld  loss %.4f  %.0f samples/s%s  ETA %s",
                 epochText(m.epoch).c_str(), bar.c_str(), static_cast<long long>(m.step),
                 static_cast<long long>(m.total_steps), m.loss, m.samples_per_sec, gpu.c_str(),
                 formatDuration(m.eta_s).c_str());
    m_bar_shown = true;
    return;
  }
  const auto now = std::chrono::steady_clock::now();
  if (now - m_last_plain < kPlainInterval && m.step != m.total_steps) return;
  m_last_plain = now;
  std::fprintf(m_out, "%s step %lld/%lld loss %.4f lr %.3g %.0f samples/s%s ETA %s\n",
               epochText(m.epoch).c_str(), static_cast<long long>(m.step),
               static_cast<long long>(m.total_steps), m.loss, m.lr, m.samples_per_sec,
               brief.empty() ? "" : (" " + brief).c_str(), formatDuration(m.eta_s).c_str());
}

void ProgressPrinter::printEpoch(const EpochMetrics& m) {
  clearBar();
  // The task's figures by their short names: classification's "train loss 0.4213 acc 0.8470".
  std::fprintf(m_out, "%s: train loss %.4f", epochText(m.epoch).c_str(), m.train_loss);
  for (const TaskFigure& f : m.train_figures)
    std::fprintf(m_out, " %s %.4f", figureSpecNamed(f.name).short_name.c_str(), f.value);
  if (m.val_loss >= 0) {
    std::fprintf(m_out, " | val loss %.4f", m.val_loss);
    for (const TaskFigure& f : m.val_figures)
      std::fprintf(m_out, " %s %.4f", figureSpecNamed(f.name).short_name.c_str(), f.value);
  }
  std::fprintf(m_out, " | lr %.3g | %.1f s, %.0f samples/s\n", m.lr, m.epoch_s, m.samples_per_sec);
}

void ProgressPrinter::finish() {
  clearBar();
  std::fflush(m_out);
}

}  // namespace wb::cli
