// RankProgress (rank_trainer.h) to and from a checkpoint's JSON.
#include "train/rank_trainer.h"

namespace wb {

void RankProgress::restartEpochIfPast(int64_t batches_per_epoch) {
  if (next_batch <= batches_per_epoch) return;
  epoch += 1;
  next_batch = 0;
  epoch_loss_sum = 0;
  epoch_loss_samples = 0;
  epoch_correct = 0;
  epoch_samples = 0;
}

nlohmann::json RankProgress::toJson() const {
  nlohmann::json j = {{"step", step},
                      {"epoch", epoch},
                      {"next_batch", next_batch},
                      {"epoch_loss_sum", epoch_loss_sum},
                      {"epoch_correct", epoch_correct},
                      {"epoch_samples", epoch_samples},
                      {"epoch_loss_samples", epoch_loss_samples},
                      {"best_val_loss", best_val_loss},
                      {"best_val_accuracy", best_val_accuracy},
                      {"early_stopping", early_stopping},
                      {"train_seconds", train_seconds},
                      {"samples", samples},
                      {"reason", reason}};
  if (val_metric) j["val_metric"] = *val_metric;
  return j;
}

RankProgress RankProgress::fromJson(const nlohmann::json& j) {
  RankProgress p;
  p.step = j.at("step").get<int64_t>();
  p.epoch = j.at("epoch").get<int64_t>();
  p.next_batch = j.at("next_batch").get<int64_t>();
  p.epoch_loss_sum = j.at("epoch_loss_sum").get<double>();
  p.epoch_correct = j.at("epoch_correct").get<int64_t>();
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
