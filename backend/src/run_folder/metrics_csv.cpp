#include "run_folder/metrics_csv.h"

#include <cstdio>

namespace wb {
namespace {

// Columns: event,step,epoch,epoch_fraction,loss,lr,samples_per_sec,data_wait_fraction,grad_norm,loss_scale,
// skipped_steps,cpu_rss_bytes,cuda_allocated_bytes,cuda_reserved_bytes,cuda_peak_bytes,elapsed_s,
// train_loss,train_<figure>...,val_loss,val_<figure>...,epoch_s
std::string csvNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.9g", value);
  return text;
}

std::string optional(double value, bool present) {
  return present ? csvNumber(value) : std::string();
}

std::string integer(int64_t value) {
  return std::to_string(value);
}

}  // namespace

std::vector<std::string> metricsCsvFigures(TaskKind task) {
  std::vector<std::string> names;
  for (const FigureSpec& spec : taskFigureSpecs(task)) names.push_back(spec.name);
  return names;
}

std::string metricsCsvHeader(const std::vector<std::string>& figures) {
  std::string header =
      "event,step,epoch,epoch_fraction,loss,lr,samples_per_sec,data_wait_fraction,grad_norm,loss_scale,"
      "skipped_steps,cpu_rss_bytes,cuda_allocated_bytes,cuda_reserved_bytes,cuda_peak_bytes,elapsed_s,"
      "train_loss,";
  for (const std::string& f : figures) header += "train_" + f + ",";
  header += "val_loss,";
  for (const std::string& f : figures) header += "val_" + f + ",";
  return header + "epoch_s\n";
}

std::string metricsCsvRow(const Event& event, const std::vector<std::string>& figures) {
  if (const auto* m = std::get_if<StepMetrics>(&event)) {
    const bool cuda = m->cuda_allocated_bytes >= 0;
    // A step row leaves the epoch's columns empty: the two losses, the figures and epoch_s.
    const std::string epochCells(3 + 2 * figures.size(), ',');
    return "step," + integer(m->step) + "," + integer(m->epoch) + "," + csvNumber(m->epoch_fraction) + "," +
           csvNumber(m->loss) + "," + csvNumber(m->lr) + "," + csvNumber(m->samples_per_sec) + "," +
           csvNumber(m->data_wait_fraction) + "," + optional(m->grad_norm, m->grad_norm >= 0) + "," +
           optional(m->loss_scale, m->loss_scale > 0) + "," +
           (m->loss_scale > 0 ? integer(m->skipped_steps) : std::string()) + "," + integer(m->cpu_rss_bytes) +
           "," + (cuda ? integer(m->cuda_allocated_bytes) : "") + "," +
           (cuda ? integer(m->cuda_reserved_bytes) : "") + "," + (cuda ? integer(m->cuda_peak_bytes) : "") +
           "," + csvNumber(m->elapsed_s) + epochCells + "\n";
  }
  if (const auto* e = std::get_if<EpochMetrics>(&event)) {
    const bool val = e->val_loss >= 0;
    std::string row = "epoch," + integer(e->step) + "," + integer(e->epoch) + ",1,," + csvNumber(e->lr) +
                      "," + csvNumber(e->samples_per_sec) + ",,,,,,,,,," + csvNumber(e->train_loss) + ",";
    for (const std::string& f : figures) row += csvNumber(figureNamed(e->train_figures, f, 0)) + ",";
    row += optional(e->val_loss, val) + ",";
    for (const std::string& f : figures) {
      const double value = figureNamed(e->val_figures, f, -1);
      row += optional(value, val && !e->val_figures.empty()) + ",";
    }
    return row + csvNumber(e->epoch_s) + "\n";
  }
  return {};
}

}  // namespace wb
