#pragma once
// Reading a model.pt (a torch archive of named tensors) and comparing two bit for bit: the resume tests'
// measure of "the same run".

#include <gtest/gtest.h>
#include <torch/torch.h>

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

}  // namespace wb::test
