// Hugging Face text classifiers' folders as transformers writes them (tests/fixtures/huggingface/tiny-bert
// and tiny-distilbert, scripts/make_bert_fixtures.py: transformers 5.25.0's *ForSequenceClassification, 2
// layers, hidden 32) read into our models: their logits are transformers' for a batch with padding and a
// sentence pair, against its SDPA and its eager attention, and in train mode (every dropout 0) so are the
// loss and each parameter's gradient; a base model's folder (no "bert." prefix, no classifier) reads with the
// head listed as missing; the user's labels replace a classifier of another size; a folder of another model
// is refused naming config.json.

#include "weights/huggingface_text_folder.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "support/safetensors_file.h"
#include "support/temporary_folder.h"
#include "weights/weights_reader.h"
#include "workbench/errors.h"

namespace huggingface_text_folder_test {
namespace {

const std::string kFixtures = std::string(WB_SOURCE_DIR) + "/tests/fixtures/huggingface";
const std::string kFolder = kFixtures + "/tiny-bert";

torch::Tensor tensorOf(const nlohmann::json& rows, torch::ScalarType type) {
  std::vector<torch::Tensor> out;
  for (const auto& row : rows) out.push_back(torch::tensor(row.get<std::vector<double>>()));
  return torch::stack(out).to(type);
}

nlohmann::json expectedOf(const std::string& folder) {
  return nlohmann::json::parse(std::ifstream(folder + "/expected.json"));
}

torch::Tensor logitsOf(wb::TextClassifierImpl& model, const nlohmann::json& expected) {
  return model.forward(tensorOf(expected["input_ids"], torch::kLong),
                       tensorOf(expected["attention_mask"], torch::kLong),
                       tensorOf(expected["token_type_ids"], torch::kLong));
}

class TextFolder : public testing::TestWithParam<std::string> {};

TEST_P(TextFolder, LogitsAreTransformersForPaddingAndPairs) {
  const std::string folder = kFixtures + "/" + GetParam();
  const nlohmann::json expected = expectedOf(folder);
  wb::HuggingFaceTextFolder loaded = wb::loadHuggingFaceTextFolder(folder);
  EXPECT_TRUE(loaded.missing.empty());
  EXPECT_TRUE(loaded.unexpected.empty());
  loaded.model->eval();
  torch::NoGradGuard noGrad;
  const torch::Tensor logits = logitsOf(*loaded.model, expected);
  for (const char* reference : {"logits", "logits_eager"}) {
    const torch::Tensor theirs = tensorOf(expected[reference], torch::kFloat);
    EXPECT_TRUE(torch::allclose(logits, theirs, 1e-5, 1e-5))
        << reference << ": ours " << logits << "\ntransformers' " << theirs;
  }
  // Padding changes nothing for the tokens: the padded row equals itself unpadded.
  const torch::Tensor ids = torch::tensor({{2, 12, 98, 3}});
  const torch::Tensor alone = loaded.model->forward(ids, torch::ones_like(ids), torch::zeros_like(ids));
  EXPECT_TRUE(torch::allclose(alone[0], logits[1], 1e-5, 1e-5)) << alone << logits[1];
}

// Train mode as transformers trains: with every dropout 0 (its masks come from its own generator), the
// logits, the cross-entropy loss and the gradient of every parameter are transformers'.
TEST_P(TextFolder, TrainModeLossAndGradientsAreTransformers) {
  const std::string fixture = kFixtures + "/" + GetParam();
  const nlohmann::json expected = expectedOf(fixture);
  const nlohmann::json& train = expected["train"];
  wb::test::TemporaryFolder folder("no-dropout");
  nlohmann::json config = nlohmann::json::parse(std::ifstream(fixture + "/config.json"));
  config.update(train["dropout_zero"]);
  std::ofstream(folder.path() + "/config.json") << config.dump();
  std::filesystem::copy_file(fixture + "/model.safetensors", folder.path() + "/model.safetensors");
  wb::HuggingFaceTextFolder loaded = wb::loadHuggingFaceTextFolder(folder.path());
  loaded.model->train();
  const torch::Tensor logits = logitsOf(*loaded.model, expected);
  EXPECT_TRUE(torch::allclose(logits, tensorOf(train["logits"], torch::kFloat), 1e-5, 1e-5));
  const torch::Tensor loss = torch::nn::functional::cross_entropy(
      logits, torch::tensor(train["labels"].get<std::vector<int64_t>>()));
  EXPECT_NEAR(loss.item<double>(), train["loss"].get<double>(), 1e-5);
  loss.backward();
  size_t compared = 0;
  for (const auto& item : loaded.model->named_parameters()) {
    ASSERT_TRUE(train["grad_norms"].contains(item.key())) << item.key();
    const double theirs = train["grad_norms"][item.key()].get<double>();
    EXPECT_NEAR(item.value().grad().norm().item<double>(), theirs, 1e-5 + 1e-4 * theirs) << item.key();
    ++compared;
  }
  EXPECT_EQ(compared, train["grad_norms"].size());
  const torch::Tensor classifierGrad = loaded.model->named_parameters()["classifier.weight"].grad();
  EXPECT_TRUE(
      torch::allclose(classifierGrad, tensorOf(train["classifier_weight_grad"], torch::kFloat), 1e-4, 1e-6));
}

INSTANTIATE_TEST_SUITE_P(HuggingFace, TextFolder, testing::Values("tiny-bert", "tiny-distilbert"),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return info.param == "tiny-bert" ? std::string("Bert") : std::string("DistilBert");
                         });

TEST(HuggingFaceTextFolder, TheUsersLabelsReplaceAClassifierOfAnotherSize) {
  const wb::HuggingFaceTextFolder loaded =
      wb::loadHuggingFaceTextFolder(kFixtures + "/tiny-distilbert", std::vector<std::string>{"neg", "pos"});
  EXPECT_EQ(loaded.replaced, (std::vector<std::string>{"classifier.weight", "classifier.bias"}));
  EXPECT_TRUE(loaded.missing.empty());
  EXPECT_EQ(loaded.model->shape().labels, (std::vector<std::string>{"neg", "pos"}));
  auto params = loaded.model->named_parameters();
  EXPECT_EQ(params["classifier.weight"].sizes(), (std::vector<int64_t>{2, 32}));
  const wb::WeightsFileContents file =
      wb::readSafetensorsFile(kFixtures + "/tiny-distilbert/model.safetensors");
  std::map<std::string, torch::Tensor> fileTensors(file.tensors.begin(), file.tensors.end());
  for (const std::string kept : {"distilbert.transformer.layer.1.ffn.lin2.weight", "pre_classifier.weight"}) {
    EXPECT_TRUE(torch::equal(params[kept], fileTensors.at(kept))) << kept;
  }
}

TEST(HuggingFaceTextFolder, ABaseModelsFolderLoadsWithTheHeadListedAsMissing) {
  wb::test::TemporaryFolder folder("bert-base");
  std::filesystem::copy_file(kFolder + "/config.json", folder.path() + "/config.json");
  // BertModel's names: the encoder's without "bert.", no classifier; a pretraining head's tensor beside them.
  wb::WeightsFileContents full = wb::readSafetensorsFile(kFolder + "/model.safetensors");
  std::map<std::string, torch::Tensor> base;
  for (const auto& [name, tensor] : full.tensors) {
    if (name.rfind("bert.", 0) == 0) base.emplace(name.substr(5), tensor);
  }
  base.emplace("cls.predictions.bias", torch::zeros({99}));
  wb::test::writeFloatSafetensors(folder.path() + "/model.safetensors", base);
  const wb::HuggingFaceTextFolder bert = wb::loadHuggingFaceTextFolder(folder.path());
  EXPECT_EQ(bert.missing, (std::vector<std::string>{"classifier.weight", "classifier.bias"}));
  EXPECT_EQ(bert.unexpected, (std::vector<std::string>{"bert.cls.predictions.bias"}));
}

TEST(HuggingFaceTextFolder, AFolderOfAnotherModelIsRefusedNamingItsConfig) {
  wb::test::TemporaryFolder folder("not-bert");
  std::ofstream(folder.path() + "/config.json") << R"({"model_type": "gpt2"})";
  std::string message;
  try {
    wb::loadHuggingFaceTextFolder(folder.path());
  } catch (const wb::UserError& e) {
    message = e.what();
  }
  EXPECT_EQ(message,
            folder.path() +
                "/config.json: model_type is 'gpt2'; text classification reads 'bert' and 'distilbert'");
}

}  // namespace
}  // namespace huggingface_text_folder_test
