#pragma once
// Knowledge distillation as a step part: the loss blends the teacher's softened outputs with the labels
// (distillation.h); the teacher answers on the student's device without gradients.

#include <memory>

#include "compress/distillation.h"
#include "step/step_part.h"

namespace wb {

class DistillationLossPart final : public StepPart {
 public:
  DistillationLossPart(std::shared_ptr<Teacher> teacher, double temperature, double alpha)
      : m_teacher(std::move(teacher)), m_temperature(temperature), m_alpha(alpha) {}
  std::string name() const override { return "distillation"; }
  std::optional<torch::Tensor> loss(const torch::Tensor& logits, const Batch& batch) override {
    return distillationLoss(logits, m_teacher->forward(batch.x), batch.y, m_temperature, m_alpha);
  }

 private:
  std::shared_ptr<Teacher> m_teacher;
  double m_temperature;
  double m_alpha;
};

}  // namespace wb
