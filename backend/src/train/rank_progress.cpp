// RankProgress (rank_trainer.h) to and from a checkpoint's JSON.
#include <cmath>

#include "train/rank_trainer.h"

namespace wb {

void RankProgress::restartEpochIfPast(int64_t batches_per_epoch) {
  if (next_batch <= batches_per_epoch) return;
  epoch += 1;
  next_batch = 0;
  epoch_loss_sum = 0;
  epoch_loss_samples = 0;
  for (auto& [name, sum] : epoch_figure_sums) sum = 0;
  epoch_samples = 0;
}

std::vector<double> RankProgress::figureSums(const Task& task) const {
  std::vector<double> sums;
  for (const std::string& name : task.sumNames()) {
    double value = 0;
    for (const auto& [n, sum] : epoch_figure_sums) {
      if (n == name) value = sum;
    }
    sums.push_back(value);
  }
  return sums;
}

nlohmann::json RankProgress::toJson() const {
  nlohmann::json j = {{"step", step},
                      {"epoch", epoch},
                      {"next_batch", next_batch},
                      {"epoch_loss_sum", epoch_loss_sum},
                      {"epoch_samples", epoch_samples},
                      {"epoch_loss_samples", epoch_loss_samples},
                      {"best_val_loss", best_val_loss},
                      {"best_val_accuracy", best_val_accuracy},
                      {"early_stopping", early_stopping},
                      {"train_seconds", train_seconds},
                      {"samples", samples},
                      {"reason", reason}};
  if (val_metric) j["val_metric"] = *val_metric;
  // A sum that counts (correct samples) is written as the integer it is.
  for (const auto& [name, sum] : epoch_figure_sums) {
    const bool whole = std::nearbyint(sum) == sum && std::fabs(sum) < 9.0e15;
    j["epoch_" + name] = whole ? nlohmann::json(static_cast<int64_t>(sum)) : nlohmann::json(sum);
  }
  return j;
}

RankProgress RankProgress::fromJson(const nlohmann::json& j, const Task& task) {
  RankProgress p;
  p.step = j.at("step").get<int64_t>();
  p.epoch = j.at("epoch").get<int64_t>();
  p.next_batch = j.at("next_batch").get<int64_t>();
  p.epoch_loss_sum = j.at("epoch_loss_sum").get<double>();
  for (const std::string& name : task.sumNames()) {
    const auto sum = j.find("epoch_" + name);
    p.epoch_figure_sums.emplace_back(name, sum != j.end() && sum->is_number() ? sum->get<double>() : 0.0);
  }
  p.epoch_samples = j.at("epoch_samples").get<int64_t>();
  p.epoch_loss_samples = j.value("epoch_loss_samples", static_cast<double>(p.epoch_samples));
  p.best_val_loss = j.at("best_val_loss").get<double>();
  p.best_val_accuracy = j.at("best_val_accuracy").get<double>();
  p.early_stopping = j.value("early_stopping", nlohmann::json::object());
  p.train_seconds = j.value("train_seconds", 0.0);
  p.samples = j.value("samples", int64_t{0});
  if (j.contains("val_metric") && j["val_metric"].is_number()) p.val_metric = j["val_metric"].get<double>();
  p.reason = j.value("reason", std::string());
  return p;
}

}  // namespace wb
