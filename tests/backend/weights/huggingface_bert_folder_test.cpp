// A BERT folder as transformers writes it (tests/fixtures/huggingface/tiny-bert,
// scripts/make_bert_fixtures.py: transformers 5.25.0's BertForSequenceClassification, 2 layers, hidden 32)
// read into our BertClassifier: its logits are transformers' for a batch with padding and a sentence pair,
// against its SDPA and its eager attention; a base model's folder (no "bert." prefix, no classifier) reads
// with the head listed as missing; a folder of another model is refused naming config.json.

#include "weights/huggingface_bert_folder.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "support/temporary_folder.h"
#include "weights/weights_reader.h"
#include "workbench/errors.h"

namespace huggingface_bert_folder_test {
namespace {

const std::string kFolder = std::string(WB_SOURCE_DIR) + "/tests/fixtures/huggingface/tiny-bert";

torch::Tensor tensorOf(const nlohmann::json& rows, torch::ScalarType type) {
  std::vector<torch::Tensor> out;
  for (const auto& row : rows) out.push_back(torch::tensor(row.get<std::vector<double>>()));
  return torch::stack(out).to(type);
}

TEST(HuggingFaceBertFolder, LogitsAreTransformersForPaddingAndPairs) {
  const nlohmann::json expected = nlohmann::json::parse(std::ifstream(kFolder + "/expected.json"));
  wb::HuggingFaceBertFolder bert = wb::loadHuggingFaceBertFolder(kFolder);
  EXPECT_TRUE(bert.missing.empty());
  EXPECT_TRUE(bert.unexpected.empty());
  bert.model->eval();
  torch::NoGradGuard noGrad;
  const torch::Tensor logits = bert.model->forward(tensorOf(expected["input_ids"], torch::kLong),
                                                   tensorOf(expected["attention_mask"], torch::kLong),
                                                   tensorOf(expected["token_type_ids"], torch::kLong));
  for (const char* reference : {"logits", "logits_eager"}) {
    const torch::Tensor theirs = tensorOf(expected[reference], torch::kFloat);
    EXPECT_TRUE(torch::allclose(logits, theirs, 1e-5, 1e-5))
        << reference << ": ours " << logits << "\ntransformers' " << theirs;
  }
  // Padding changes nothing for the tokens: the padded row equals itself unpadded.
  const torch::Tensor ids = torch::tensor({{2, 12, 98, 3}});
  const torch::Tensor alone = bert.model->forward(ids, torch::ones_like(ids), torch::zeros_like(ids));
  EXPECT_TRUE(torch::allclose(alone[0], logits[1], 1e-5, 1e-5)) << alone << logits[1];
}

TEST(HuggingFaceBertFolder, ABaseModelsFolderLoadsWithTheHeadListedAsMissing) {
  wb::test::TemporaryFolder folder("bert-base");
  std::filesystem::copy_file(kFolder + "/config.json", folder.path() + "/config.json");
  // BertModel's names: the encoder's without "bert.", no classifier; a pretraining head's tensor beside them.
  wb::WeightsFileContents full = wb::readSafetensorsFile(kFolder + "/model.safetensors");
  std::map<std::string, torch::Tensor> base;
  for (const auto& [name, tensor] : full.tensors) {
    if (name.rfind("bert.", 0) == 0) base.emplace(name.substr(5), tensor);
  }
  base.emplace("cls.predictions.bias", torch::zeros({99}));
  {
    // safetensors as its writer lays it out: an 8-byte header length, the JSON header, the data.
    nlohmann::json header;
    std::string data;
    for (const auto& [name, tensor] : base) {
      const torch::Tensor t = tensor.contiguous().to(torch::kFloat);
      const size_t begin = data.size();
      data.append(static_cast<const char*>(t.data_ptr()), static_cast<size_t>(t.numel()) * sizeof(float));
      header[name] = {{"dtype", "F32"}, {"shape", t.sizes().vec()}, {"data_offsets", {begin, data.size()}}};
    }
    const std::string text = header.dump();
    const uint64_t length = text.size();
    std::ofstream out(folder.path() + "/model.safetensors", std::ios::binary);
    out.write(reinterpret_cast<const char*>(&length), 8);
    out << text << data;
  }
  const wb::HuggingFaceBertFolder bert = wb::loadHuggingFaceBertFolder(folder.path());
  EXPECT_EQ(bert.missing, (std::vector<std::string>{"classifier.weight", "classifier.bias"}));
  EXPECT_EQ(bert.unexpected, (std::vector<std::string>{"bert.cls.predictions.bias"}));
}

TEST(HuggingFaceBertFolder, AFolderOfAnotherModelIsRefusedNamingItsConfig) {
  wb::test::TemporaryFolder folder("not-bert");
  std::ofstream(folder.path() + "/config.json") << R"({"model_type": "gpt2"})";
  std::string message;
  try {
    wb::loadHuggingFaceBertFolder(folder.path());
  } catch (const wb::UserError& e) {
    message = e.what();
  }
  EXPECT_EQ(message, folder.path() + "/config.json: model_type is 'gpt2', not 'bert'");
}

}  // namespace
}  // namespace huggingface_bert_folder_test
