// An optimizer's state read back whichever LibTorch wrote the checkpoint: archives laid out as optimizer.save
// lays them out, with the state keys 1.13 writes (hex pointers) and those 2.x writes (decimal), each
// parameter getting back its own moments and step, in every group, and a parameter without state staying
// without.

#include "optim/optimizer_state_io.h"

#include <gtest/gtest.h>

#include <sstream>

#include "torch_compat.h"

namespace wb {
namespace {

// An archive as optimizer.save writes it for one Adam group, the parameters' state keyed by `keys`; parameter
// i's moments are filled with i + 1 and 10 * (i + 1), its step with 7 + i; the last parameter has no state.
std::string adamArchive(const std::vector<torch::Tensor>& params, const std::vector<std::string>& keys) {
  torch::serialize::OutputArchive top;
  top.write("pytorch_version", c10::IValue("1.5.0"));
  torch::serialize::OutputArchive states;
  for (size_t i = 0; i + 1 < params.size(); ++i) {
    torch::optim::AdamParamState s;
    s.step(static_cast<int64_t>(7 + i));
    s.exp_avg(torch::full_like(params[i], static_cast<double>(i + 1)));
    s.exp_avg_sq(torch::full_like(params[i], 10.0 * static_cast<double>(i + 1)));
    torch::serialize::OutputArchive one;
    s.serialize(one);
    states.write(keys[i], one);
  }
  top.write("state", states);
  torch::serialize::OutputArchive groups;
  groups.write("param_groups/size", torch::tensor(int64_t{1}));
  torch::serialize::OutputArchive group;
  group.write("params/size", torch::tensor(static_cast<int64_t>(params.size())));
  for (size_t i = 0; i < params.size(); ++i) group.write("params/" + std::to_string(i), c10::IValue(keys[i]));
  torch::serialize::OutputArchive options;
  torch::optim::AdamOptions(1e-3).serialize(options);
  group.write("options", options);
  groups.write("param_groups/0", group);
  top.write("param_groups", groups);
  std::ostringstream out;
  top.save_to(out);
  return out.str();
}

void expectEachParameterGetsItsOwnState(const std::vector<std::string>& keys) {
  std::vector<torch::Tensor> params = {torch::zeros({3, 2}), torch::zeros({5}), torch::zeros({4, 4})};
  for (auto& p : params) p.requires_grad_(true);
  const std::string bytes = adamArchive(params, keys);
  torch::optim::Adam optimizer(params, torch::optim::AdamOptions(1e-3));
  std::istringstream in(bytes);
  torch::serialize::InputArchive archive;
  archive.load_from(in);
  loadOptimizerState(optimizer, archive);
  auto& state = optimizer.state();
  using StateMap = std::remove_reference_t<decltype(state)>;
  ASSERT_EQ(state.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    auto it = state.find(compat::optimizerStateKey<StateMap>(params[i]));
    ASSERT_NE(it, state.end()) << "parameter " << i;
    const auto& s = static_cast<const torch::optim::AdamParamState&>(*it->second);
    EXPECT_EQ(s.step(), static_cast<int64_t>(7 + i));
    EXPECT_TRUE(torch::equal(s.exp_avg(), torch::full_like(params[i], static_cast<double>(i + 1)))) << i;
    EXPECT_TRUE(torch::equal(s.exp_avg_sq(), torch::full_like(params[i], 10.0 * static_cast<double>(i + 1))))
        << i;
  }
  EXPECT_EQ(state.find(compat::optimizerStateKey<StateMap>(params[2])), state.end());
}

TEST(OptimizerStateIo, KeysWrittenByLibTorch113AsHexPointers) {
  expectEachParameterGetsItsOwnState({"0x55d1c0a2b3c0", "0x55d1c0a2b7e0", "0x55d1c0a2bc10"});
}

TEST(OptimizerStateIo, KeysWrittenByLibTorch2AsDecimalPointers) {
  expectEachParameterGetsItsOwnState({"94366437000128", "94366437001184", "94366437002256"});
}

TEST(OptimizerStateIo, ACheckpointOfAnotherModelIsRefusedNamingWhy) {
  std::vector<torch::Tensor> saved_params = {torch::zeros({3}), torch::zeros({2}), torch::zeros({1})};
  const std::string bytes = adamArchive(saved_params, {"0x1", "0x2", "0x3"});
  std::vector<torch::Tensor> params = {torch::zeros({3}, torch::requires_grad()),
                                       torch::zeros({2}, torch::requires_grad())};
  torch::optim::Adam optimizer(params, torch::optim::AdamOptions(1e-3));
  std::istringstream in(bytes);
  torch::serialize::InputArchive archive;
  archive.load_from(in);
  EXPECT_ANY_THROW(loadOptimizerState(optimizer, archive));
}

}  // namespace
}  // namespace wb
