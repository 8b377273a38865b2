// A Hugging Face text classifier as a workbench Model (model/huggingface/huggingface_text_model.h): it reads
// the packed text batch (util/packed_text_input.h) as the module reads its three tensors, names its
// parameters as transformers does with the classifier as its head (what a fine-tune replaces and trains
// while the body is frozen), saves and loads its weights, and refuses an image batch naming what it reads.

#include "model/huggingface/huggingface_text_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "model/model_head.h"
#include "support/safetensors_file.h"
#include "support/temporary_folder.h"
#include "util/packed_text_input.h"
#include "weights/huggingface_text_folder.h"
#include "weights/weights_loading.h"
#include "workbench/errors.h"

namespace huggingface_text_model_test {
namespace {

const std::string kFolder = std::string(WB_SOURCE_DIR) + "/tests/fixtures/huggingface/tiny-bert";

TEST(HuggingFaceTextModel, ReadsThePackedBatchAsTheModuleReadsItsThreeTensors) {
  wb::HuggingFaceTextModel model(wb::loadHuggingFaceTextFolder(kFolder).model);
  model.train(false);
  const torch::Tensor ids = torch::tensor({{2, 17, 33, 3, 60, 3}, {2, 12, 3, 0, 0, 0}});
  const torch::Tensor mask = (ids != 0).to(torch::kLong);
  const torch::Tensor types = torch::tensor({{0, 0, 0, 0, 1, 1}, {0, 0, 0, 0, 0, 0}});
  torch::NoGradGuard noGrad;
  const torch::Tensor packed = model.forward(wb::packTextInput(ids, mask, types));
  EXPECT_TRUE(torch::equal(packed, model.module().forward(ids, mask, types)));
  // Each of the three rows matters: the mask and the segments change the logits.
  EXPECT_FALSE(torch::allclose(packed, model.forward(wb::packTextInput(ids, torch::ones_like(ids), types))));
  EXPECT_FALSE(torch::allclose(packed, model.forward(wb::packTextInput(ids, mask, torch::zeros_like(ids)))));
}

TEST(HuggingFaceTextModel, NamesItsParametersAsTransformersWithTheClassifierAsHead) {
  wb::HuggingFaceTextModel model(wb::loadHuggingFaceTextFolder(kFolder).model);
  const auto named = model.namedParameters();
  EXPECT_EQ(named.front().first, "bert.embeddings.word_embeddings.weight");
  EXPECT_EQ(wb::headParameterNames(model),
            (std::vector<std::string>{"classifier.weight", "classifier.bias"}));
  EXPECT_EQ(model.info().output_shape, (std::vector<int64_t>{3}));
  int64_t count = 0;
  for (const auto& [name, tensor] : named) count += tensor.numel();
  EXPECT_EQ(model.info().parameters, count);
}

TEST(HuggingFaceTextModel, SavesAndLoadsItsWeights) {
  wb::test::TemporaryFolder folder("text-model");
  wb::HuggingFaceTextModel trained(wb::loadHuggingFaceTextFolder(kFolder).model);
  trained.save(folder.path() + "/model.pt");
  auto fresh = wb::loadHuggingFaceTextFolder(kFolder).model;
  {
    torch::NoGradGuard noGrad;
    for (auto& p : fresh->parameters()) p.zero_();
  }
  wb::HuggingFaceTextModel loaded(fresh);
  loaded.load(folder.path() + "/model.pt");
  const auto a = trained.namedParameters(), b = loaded.namedParameters();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(torch::equal(a[i].second, b[i].second)) << a[i].first;
}

// model.weights (or the folder's own file) through the load report images use: a classifier's file loads name
// for name, a base model's (BertModel: no "bert." prefix, no classifier) with the prefix given and the head
// listed as new.
TEST(HuggingFaceTextModel, LoadsAClassifiersAndABaseModelsFileThroughTheLoadReport) {
  wb::HuggingFaceTextModel model(wb::loadHuggingFaceTextFolder(kFolder).model);
  wb::ModelConfig config;
  config.huggingface = kFolder;
  const wb::WeightsLoadReport own =
      wb::loadModelWeights(model, wb::readModelWeights(wb::startingWeightsOf(config), model), config,
                           wb::describeArchitecture(config));
  EXPECT_EQ(own.loaded.size(), 41u);
  EXPECT_TRUE(own.new_head.empty());
  wb::test::TemporaryFolder folder("bert-base");
  std::map<std::string, torch::Tensor> base;
  for (const auto& [name, tensor] : model.namedParameters()) {
    if (name.rfind("bert.", 0) == 0) base.emplace(name.substr(5), torch::full_like(tensor, 0.25));
  }
  wb::test::writeFloatSafetensors(folder.path() + "/model.safetensors", base);
  config.weights = folder.path() + "/model.safetensors";
  const wb::WeightsLoadReport report =
      wb::loadModelWeights(model, wb::readModelWeights(wb::startingWeightsOf(config), model), config,
                           wb::describeArchitecture(config));
  EXPECT_EQ(report.loaded.size(), 39u);
  EXPECT_EQ(report.new_head, (std::vector<std::string>{"classifier.weight", "classifier.bias"}));
  EXPECT_NE(std::find(report.notes.begin(), report.notes.end(),
                      "a base model's names, read with the classifier's prefix \"bert.\""),
            report.notes.end());
  EXPECT_EQ(model.namedParameters()[5].second.mean().item<float>(), 0.25f)
      << model.namedParameters()[5].first;
}

TEST(HuggingFaceTextModel, AnImageBatchIsRefusedNamingWhatItReads) {
  wb::HuggingFaceTextModel model(wb::loadHuggingFaceTextFolder(kFolder).model);
  std::string message;
  try {
    model.forward(torch::zeros({2, 3, 8, 8}));
  } catch (const wb::UserError& e) {
    message = e.what();
  }
  EXPECT_EQ(
      message,
      "the bert model reads texts: a text batch is int64 [batch, 3, tokens] (ids, attention mask, token "
      "types); got Float [2, 3, 8, 8]");
}

}  // namespace
}  // namespace huggingface_text_model_test
