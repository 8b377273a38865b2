// The experiment file's compress section: every pass key checked like the rest of the file (unknown keys with
// "did you mean", ranges, choices), impossible orders refused, and the section written back complete.

#include <gtest/gtest.h>

#include "workbench/experiment.h"

namespace wb {
namespace {

using nlohmann::json;

std::vector<ValidationIssue> issuesOf(const json& passes) {
  return parseExperiment(json{{"compress", {{"passes", passes}}}}).issues;
}

bool hasIssue(const std::vector<ValidationIssue>& issues, const std::string& path, const std::string& words) {
  for (const auto& i : issues) {
    if (i.path == path && i.message.find(words) != std::string::npos) return true;
  }
  return false;
}

TEST(CompressSection, ReadsEveryPassType) {
  const json passes = json::parse(R"([
    {"type": "prune", "method": "structured", "amount": 0.5, "norm": "l2", "epochs": 2, "lr": 0.0005},
    {"type": "prune", "amount": 0.9, "scope": "layer", "schedule": "gradual", "epochs": 1, "layers": ["layers.0"]},
    {"type": "finetune", "max_steps": 100},
    {"type": "distill", "teacher": "original", "student": {"preset": "mlp"}, "temperature": 2, "alpha": 0.7},
    {"type": "quantize", "mode": "static", "observer": "minmax", "calibration_batches": 8, "engine": "onednn"}
  ])");
  const ParseResult r = parseExperiment(json{{"compress", {{"passes", passes}, {"latency_runs", 7}}}});
  ASSERT_TRUE(r.ok()) << formatIssues(r.issues);
  const auto& p = r.experiment.compress.passes;
  ASSERT_EQ(p.size(), 5u);
  EXPECT_EQ(p[0].method, PruneMethod::Structured);
  EXPECT_EQ(p[0].norm, PruneNorm::L2);
  EXPECT_EQ(p[0].epochs, 2);
  EXPECT_DOUBLE_EQ(p[0].lr, 0.0005);
  EXPECT_EQ(p[1].schedule, PruneSchedule::Gradual);
  EXPECT_EQ(p[1].layers, std::vector<std::string>{"layers.0"});
  EXPECT_EQ(p[2].epochs, 1);  // training passes default to one epoch
  EXPECT_EQ(p[2].max_steps, 100);
  EXPECT_EQ(p[3].student, json({{"preset", "mlp"}}));
  EXPECT_DOUBLE_EQ(p[3].alpha, 0.7);
  EXPECT_EQ(p[4].calibration_batches, 8);
  EXPECT_EQ(r.experiment.compress.latency_runs, 7);

  // Written back, it reads the same; a prune pass does not trains unless asked.
  const json written = experimentToJson(r.experiment);
  EXPECT_EQ(written["compress"]["passes"][3]["teacher"], "original");
  EXPECT_FALSE(written["compress"]["passes"][2].contains("teacher"));  // only the keys of its type
  const ParseResult again = parseExperiment(written);
  ASSERT_TRUE(again.ok()) << formatIssues(again.issues);
  EXPECT_EQ(experimentToJson(again.experiment), written);
  EXPECT_EQ(parseExperiment(json::object()).experiment.compress.passes.size(), 0u);
}

TEST(CompressSection, NamesEveryBadKeyAndValue) {
  const auto issues = issuesOf(json::parse(R"([
    {"type": "prune", "amount": 1.5, "methd": "structured"},
    {"type": "quantise"},
    {"type": "distill", "temperature": 0, "alpha": 2, "amount": 0.5},
    {"amount": 0.5},
    "prune"
  ])"));
  EXPECT_TRUE(hasIssue(issues, "compress.passes[0].amount", "in (0, 1)")) << formatIssues(issues);
  EXPECT_TRUE(hasIssue(issues, "compress.passes[0].methd", "did you mean \"method\""))
      << formatIssues(issues);
  EXPECT_TRUE(hasIssue(issues, "compress.passes[1].type", "quantize")) << formatIssues(issues);
  EXPECT_TRUE(hasIssue(issues, "compress.passes[2].temperature", "> 0")) << formatIssues(issues);
  EXPECT_TRUE(hasIssue(issues, "compress.passes[2].alpha", "[0, 1]")) << formatIssues(issues);
  EXPECT_TRUE(hasIssue(issues, "compress.passes[2].amount", "a distill pass has no key"))
      << formatIssues(issues);
  EXPECT_TRUE(hasIssue(issues, "compress.passes[3]", "needs a \"type\"")) << formatIssues(issues);
  EXPECT_TRUE(hasIssue(issues, "compress.passes[4]", "expected a pass object")) << formatIssues(issues);
}

TEST(CompressSection, RefusesImpossibleOrders) {
  auto issues = issuesOf(json::parse(R"([{"type": "quantize", "mode": "dynamic"}, {"type": "finetune"}])"));
  EXPECT_TRUE(hasIssue(issues, "compress.passes[1]", "cannot be trained further")) << formatIssues(issues);
  issues = issuesOf(json::parse(R"([{"type": "quantize"}, {"type": "prune", "amount": 0.3}])"));
  EXPECT_TRUE(hasIssue(issues, "compress.passes[1]", "must come before it")) << formatIssues(issues);
  issues = issuesOf(json::parse(R"([{"type": "prune", "schedule": "gradual"}])"));
  EXPECT_TRUE(hasIssue(issues, "compress.passes[0].schedule", "epochs 0")) << formatIssues(issues);
  issues = issuesOf(
      json::parse(R"([{"type": "prune", "method": "structured", "schedule": "gradual", "epochs": 1}])"));
  EXPECT_TRUE(hasIssue(issues, "compress.passes[0].schedule", "one_shot")) << formatIssues(issues);
  issues = issuesOf(json::parse(R"([{"type": "finetune", "epochs": 0}])"));
  EXPECT_TRUE(hasIssue(issues, "compress.passes[0].epochs", "at least 1")) << formatIssues(issues);
  issues = issuesOf(json::parse(R"([{"type": "distill", "student": {"layerz": []}}])"));
  EXPECT_TRUE(hasIssue(issues, "compress.passes[0].student", "model section")) << formatIssues(issues);
}

TEST(CompressSection, OverridesReachIntoPasses) {
  json doc = {{"compress", {{"passes", json::parse(R"([{"type": "prune", "amount": 0.5}])")}}}};
  EXPECT_TRUE(applyOverride(doc, "compress.passes[0].amount=0.7").empty());
  EXPECT_TRUE(
      applyOverride(doc, "compress.passes[1]={\"type\": \"quantize\", \"mode\": \"dynamic\"}").empty());
  const ParseResult r = parseExperiment(doc);
  ASSERT_TRUE(r.ok()) << formatIssues(r.issues);
  EXPECT_DOUBLE_EQ(r.experiment.compress.passes[0].amount, 0.7);
  EXPECT_EQ(r.experiment.compress.passes[1].mode, QuantizeMode::Dynamic);
  const auto typo = applyOverride(doc, "compress.pases[0].amount=0.7");
  ASSERT_EQ(typo.size(), 1u);
  EXPECT_NE(typo[0].message.find("did you mean \"passes\""), std::string::npos);
}

// Each key of a pass reads every word of its table (workbench/compression_words.h) and writes it back the
// same.
template <typename E>
void expectEveryWordReadAndWritten(const std::string& type, const std::string& key,
                                   const json& others = json::object()) {
  for (const Word<E>& entry : Words<E>::table) {
    const std::string word(entry.word);
    json pass = others;
    pass["type"] = type;
    pass[key] = word;
    const ParseResult r = parseExperiment(json{{"compress", {{"passes", json::array({pass})}}}});
    ASSERT_TRUE(r.ok()) << key << " \"" << word << "\": " << formatIssues(r.issues);
    ASSERT_EQ(r.experiment.compress.passes.size(), 1u);
    EXPECT_EQ(compressPassToJson(r.experiment.compress.passes[0])[key], word) << key;
  }
}

TEST(CompressSection, EveryWordOfEachTableIsAccepted) {
  expectEveryWordReadAndWritten<PassType>("prune", "type");
  expectEveryWordReadAndWritten<PruneMethod>("prune", "method");
  expectEveryWordReadAndWritten<PruneScope>("prune", "scope");
  expectEveryWordReadAndWritten<PruneNorm>("prune", "norm");
  expectEveryWordReadAndWritten<PruneSchedule>("prune", "schedule", {{"epochs", 1}});
  expectEveryWordReadAndWritten<QuantizeMode>("quantize", "mode", {{"epochs", 1}});
  expectEveryWordReadAndWritten<ObserverKind>("quantize", "observer");
  expectEveryWordReadAndWritten<QuantizedEngine>("quantize", "engine");
  for (const std::string& word : allWords<PrunedLayerType>()) {
    const json pass = {{"type", "prune"}, {"layer_types", {word}}};
    const ParseResult r = parseExperiment(json{{"compress", {{"passes", json::array({pass})}}}});
    ASSERT_TRUE(r.ok()) << word << ": " << formatIssues(r.issues);
    EXPECT_EQ(compressPassToJson(r.experiment.compress.passes[0])["layer_types"], json::array({word}));
  }
}

// The words are the file format: experiment files and run folders written before keep loading.
TEST(CompressSection, PassWordsRoundTripThroughTheFile) {
  using List = std::vector<std::string>;
  EXPECT_EQ(allWords<PassType>(), (List{"prune", "finetune", "distill", "quantize"}));
  EXPECT_EQ(allWords<PruneMethod>(), (List{"unstructured", "structured"}));
  EXPECT_EQ(allWords<PruneScope>(), (List{"global", "layer"}));
  EXPECT_EQ(allWords<PruneNorm>(), (List{"l1", "l2"}));
  EXPECT_EQ(allWords<PrunedLayerType>(), (List{"conv2d", "linear"}));
  EXPECT_EQ(allWords<PruneSchedule>(), (List{"one_shot", "gradual"}));
  EXPECT_EQ(allWords<QuantizeMode>(), (List{"dynamic", "static", "qat"}));
  EXPECT_EQ(allWords<ObserverKind>(), (List{"minmax", "histogram"}));
  EXPECT_EQ(allWords<QuantizedEngine>(), (List{"auto", "onednn", "qnnpack", "fbgemm", "x86"}));

  const json passes = json::parse(R"([
    {"type": "prune", "method": "structured", "scope": "layer", "norm": "l2", "layer_types": ["linear", "conv2d"],
     "schedule": "one_shot"},
    {"type": "prune", "method": "unstructured", "scope": "global", "norm": "l1", "layer_types": ["conv2d"],
     "schedule": "gradual", "epochs": 1},
    {"type": "finetune"},
    {"type": "distill"},
    {"type": "quantize", "mode": "qat", "observer": "minmax", "engine": "qnnpack", "epochs": 1}
  ])");
  const ParseResult r = parseExperiment(json{{"compress", {{"passes", passes}}}});
  ASSERT_TRUE(r.ok()) << formatIssues(r.issues);
  const auto& p = r.experiment.compress.passes;
  ASSERT_EQ(p.size(), passes.size());
  EXPECT_EQ(p[0].layer_types,
            (std::vector<PrunedLayerType>{PrunedLayerType::Linear, PrunedLayerType::Conv2d}));
  EXPECT_EQ(p[4].mode, QuantizeMode::Qat);
  EXPECT_EQ(p[4].engine, QuantizedEngine::Qnnpack);
  for (size_t i = 0; i < p.size(); ++i) {
    const json written = compressPassToJson(p[i]);
    for (const auto& [key, value] : passes[i].items()) EXPECT_EQ(written[key], value) << i << "." << key;
  }
  // Written again, read again: the same pass.
  json again = json::array();
  for (const CompressPassConfig& pass : p) again.push_back(compressPassToJson(pass));
  const ParseResult back = parseExperiment(json{{"compress", {{"passes", again}}}});
  ASSERT_TRUE(back.ok()) << formatIssues(back.issues);
  for (size_t i = 0; i < p.size(); ++i)
    EXPECT_EQ(compressPassToJson(back.experiment.compress.passes[i]), again[i]);
}

}  // namespace
}  // namespace wb
