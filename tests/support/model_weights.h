#pragma once
// Reading a model.pt (a torch archive of named tensors) and comparing two bit for bit: the resume tests'
// measure of "the same run".

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <map>
#include <string>

namespace wb::test {

inline std::map<std::string, torch::Tensor> readWeights(const std::string& file) {
  torch::serialize::InputArchive archive;
  archive.load_from(file);
  std::map<std::string, torch::Tensor> out;
  for (const std::string& key : archive.keys()) {
    torch::Tensor t;
    if (archive.try_read(key, t) || archive.try_read(key, t, /*is_buffer=*/true)) out[key] = t;
  }
  return out;
}

inline void expectBitIdentical(const std::string& a, const std::string& b) {
  const auto first = readWeights(a);
  const auto second = readWeights(b);
  ASSERT_FALSE(first.empty()) << a;
  ASSERT_EQ(first.size(), second.size());
  for (const auto& [name, tensor] : first) {
    ASSERT_TRUE(second.count(name)) << name;
    EXPECT_TRUE(torch::equal(tensor, second.at(name))) << name << " differs between " << a << " and " << b;
  }
}

// The largest absolute difference between two model.pt files' tensors of the same name (a tensor missing in
// one of them is a test failure).
inline double maxWeightDifference(const std::string& a, const std::string& b) {
  const auto first = readWeights(a);
  const auto second = readWeights(b);
  EXPECT_EQ(first.size(), second.size());
  double worst = 0;
  for (const auto& [name, t] : first) {
    if (!second.count(name)) {
      ADD_FAILURE() << name << " missing in " << b;
      continue;
    }
    worst = std::max(
        worst, (t.to(torch::kFloat64) - second.at(name).to(torch::kFloat64)).abs().max().item<double>());
  }
  return worst;
}

}  // namespace wb::test
