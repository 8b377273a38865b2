#pragma once
// A step part made of functions, for tests that watch or disturb a step from inside: each point calls its
// function when one is set.

#include <functional>
#include <string>
#include <utility>

#include "step/step_part.h"

namespace wb::test {

struct FunctionPart final : public StepPart {
  std::string label = "test";
  std::function<void(int64_t)> before_step;
  std::function<torch::Tensor(const torch::Tensor&, const Batch&)> loss_fn;
  std::function<void(bool)> before_backward;
  std::function<void()> gradients_ready;
  std::function<void(int64_t)> after_step;
  std::function<void()> before_evaluation;

  std::string name() const override { return label; }
  void beforeStep(int64_t step) override {
    if (before_step) before_step(step);
  }
  std::optional<torch::Tensor> loss(const torch::Tensor& logits, const Batch& batch) override {
    if (loss_fn) return loss_fn(logits, batch);
    return std::nullopt;
  }
  void beforeBackward(bool completes) override {
    if (before_backward) before_backward(completes);
  }
  void gradientsReady() override {
    if (gradients_ready) gradients_ready();
  }
  void afterStep(int64_t step) override {
    if (after_step) after_step(step);
  }
  void beforeEvaluation() override {
    if (before_evaluation) before_evaluation();
  }
};

}  // namespace wb::test
