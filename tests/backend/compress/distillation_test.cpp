// The distillation loss against python3-torch's (tests/fixtures/distillation.json, made by
// scripts/make_distillation_fixtures.py): the value and the gradient with respect to the student's logits.

#include "compress/distillation.h"

#include <gtest/gtest.h>

#include <fstream>

namespace wb {
namespace {

torch::Tensor tensorFrom(const nlohmann::json& rows, torch::ScalarType type = torch::kFloat32) {
  std::vector<float> values;
  int64_t cols = 0;
  for (const auto& row : rows) {
    cols = static_cast<int64_t>(row.size());
    for (const auto& v : row) values.push_back(v.get<float>());
  }
  return torch::tensor(values).view({static_cast<int64_t>(rows.size()), cols}).to(type);
}

TEST(Distillation, LossAndGradientMatchPyTorch) {
  std::ifstream in(std::string(WB_SOURCE_DIR) + "/tests/fixtures/distillation.json");
  ASSERT_TRUE(in) << "run scripts/make_distillation_fixtures.py";
  const nlohmann::json doc = nlohmann::json::parse(in);
  ASSERT_GE(doc["cases"].size(), 4u);
  for (const auto& c : doc["cases"]) {
    torch::Tensor student = tensorFrom(c["student"]).requires_grad_();
    const torch::Tensor teacher = tensorFrom(c["teacher"]);
    const torch::Tensor labels = torch::tensor(c["labels"].get<std::vector<int64_t>>());
    const double t = c["temperature"];
    const double alpha = c["alpha"];
    const torch::Tensor loss = distillationLoss(student, teacher, labels, t, alpha);
    EXPECT_NEAR(loss.item<double>(), c["loss"].get<double>(),
                1e-5 * std::max(1.0, std::abs(c["loss"].get<double>())))
        << "T " << t << " alpha " << alpha;
    loss.backward();
    EXPECT_TRUE(torch::allclose(student.grad(), tensorFrom(c["grad"]), 1e-4, 1e-6))
        << "T " << t << " alpha " << alpha;
  }
}

// The soft term is what the teacher adds: with alpha 0 the loss is plain cross-entropy, and a student that
// copies the teacher has no soft loss at all.
TEST(Distillation, LimitsAreCrossEntropyAndZero) {
  torch::manual_seed(1);
  const torch::Tensor s = torch::randn({8, 10});
  const torch::Tensor t = torch::randn({8, 10});
  const torch::Tensor y = torch::randint(0, 10, {8});
  EXPECT_NEAR(distillationLoss(s, t, y, 4.0, 0.0).item<double>(),
              torch::nn::functional::cross_entropy(s, y).item<double>(), 1e-6);
  EXPECT_NEAR(distillationLoss(t, t, y, 4.0, 1.0).item<double>(), 0.0, 1e-6);
}

}  // namespace
}  // namespace wb
