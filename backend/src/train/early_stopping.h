#pragma once
// train.early_stopping: stop when the watched validation metric has not improved by min_delta for `patience`
// validations in a row. Its state goes into checkpoints so a resumed run counts on.

#include <nlohmann/json.hpp>

#include "workbench/experiment.h"

namespace wb {

class EarlyStopping {
 public:
  explicit EarlyStopping(const EarlyStoppingConfig& config) : m_config(config) {}
  // True when training should stop after this validation.
  bool observe(double val_loss, double val_accuracy) {
    if (!m_config.enabled) return false;
    const bool maximize = m_config.metric == ValidationMetric::ValAccuracy;
    const double value = maximize ? val_accuracy : val_loss;
    const bool improved =
        !m_has_best || (maximize ? value > m_best + m_config.min_delta : value < m_best - m_config.min_delta);
    if (improved) {
      m_best = value;
      m_has_best = true;
      m_bad = 0;
      return false;
    }
    return ++m_bad >= m_config.patience;
  }
  nlohmann::json state() const { return {{"best", m_best}, {"has_best", m_has_best}, {"bad", m_bad}}; }
  void loadState(const nlohmann::json& j) {
    if (!j.is_object() || !j.contains("has_best")) return;
    m_best = j.value("best", 0.0);
    m_has_best = j.value("has_best", false);
    m_bad = j.value("bad", int64_t{0});
  }

 private:
  EarlyStoppingConfig m_config;
  double m_best = 0;
  bool m_has_best = false;
  int64_t m_bad = 0;
};

}  // namespace wb
