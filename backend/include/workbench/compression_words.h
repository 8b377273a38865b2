#pragma once
// The compression pipeline's fixed word sets (workbench/word_set.h): a pass's type and its settings as the
// experiment file's `compress.passes` spells them, and the words compress.json and the event stream use for
// an artifact's pass and a pass's progress. The engine, the window and the CLI hold the values; the words are
// read where they come in (the experiment file, compress.json, metrics.jsonl) and printed where they go out.
// Adding a value is one enumerator and one row of its table.

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "workbench/word_set.h"

namespace wb {

// compress.passes[i].type: what the pass does to the model.
enum class PassType { Prune, Finetune, Distill, Quantize };
template <>
struct Words<PassType> {
  static constexpr std::array<Word<PassType>, 4> table{{{PassType::Prune, "prune"},
                                                        {PassType::Finetune, "finetune"},
                                                        {PassType::Distill, "distill"},
                                                        {PassType::Quantize, "quantize"}}};
};
static_assert(isWholeWordTable<PassType>());

// prune: single weights, or whole channels / neurons.
enum class PruneMethod { Unstructured, Structured };
template <>
struct Words<PruneMethod> {
  static constexpr std::array<Word<PruneMethod>, 2> table{
      {{PruneMethod::Unstructured, "unstructured"}, {PruneMethod::Structured, "structured"}}};
};
static_assert(isWholeWordTable<PruneMethod>());

// prune, unstructured: one threshold across the layers, or each layer pruned alike.
enum class PruneScope { Global, Layer };
template <>
struct Words<PruneScope> {
  static constexpr std::array<Word<PruneScope>, 2> table{
      {{PruneScope::Global, "global"}, {PruneScope::Layer, "layer"}}};
};
static_assert(isWholeWordTable<PruneScope>());

// prune, structured: the norm a conv filter / linear neuron is ranked by.
enum class PruneNorm { L1, L2 };
template <>
struct Words<PruneNorm> {
  static constexpr std::array<Word<PruneNorm>, 2> table{{{PruneNorm::L1, "l1"}, {PruneNorm::L2, "l2"}}};
};
static_assert(isWholeWordTable<PruneNorm>());

// prune: the layer types whose weights are pruned.
enum class PrunedLayerType { Conv2d, Linear };
template <>
struct Words<PrunedLayerType> {
  static constexpr std::array<Word<PrunedLayerType>, 2> table{
      {{PrunedLayerType::Conv2d, "conv2d"}, {PrunedLayerType::Linear, "linear"}}};
};
static_assert(isWholeWordTable<PrunedLayerType>());

// prune, unstructured: all at once, or raised step by step (cubic) over the pass's fine-tuning.
enum class PruneSchedule { OneShot, Gradual };
template <>
struct Words<PruneSchedule> {
  static constexpr std::array<Word<PruneSchedule>, 2> table{
      {{PruneSchedule::OneShot, "one_shot"}, {PruneSchedule::Gradual, "gradual"}}};
};
static_assert(isWholeWordTable<PruneSchedule>());

// quantize: int8 linear layers (no calibration), calibrated activations, or quantization-aware training.
enum class QuantizeMode { Dynamic, Static, Qat };
template <>
struct Words<QuantizeMode> {
  static constexpr std::array<Word<QuantizeMode>, 3> table{
      {{QuantizeMode::Dynamic, "dynamic"}, {QuantizeMode::Static, "static"}, {QuantizeMode::Qat, "qat"}}};
};
static_assert(isWholeWordTable<QuantizeMode>());

// quantize, static / qat: how an activation's range is observed.
enum class ObserverKind { MinMax, Histogram };
template <>
struct Words<ObserverKind> {
  static constexpr std::array<Word<ObserverKind>, 2> table{
      {{ObserverKind::MinMax, "minmax"}, {ObserverKind::Histogram, "histogram"}}};
};
static_assert(isWholeWordTable<ObserverKind>());

// quantize: LibTorch's quantized engine (its own lower-case names), or the fastest this build has.
enum class QuantizedEngine { Auto, Onednn, Qnnpack, Fbgemm, X86 };
template <>
struct Words<QuantizedEngine> {
  static constexpr std::array<Word<QuantizedEngine>, 5> table{{{QuantizedEngine::Auto, "auto"},
                                                               {QuantizedEngine::Onednn, "onednn"},
                                                               {QuantizedEngine::Qnnpack, "qnnpack"},
                                                               {QuantizedEngine::Fbgemm, "fbgemm"},
                                                               {QuantizedEngine::X86, "x86"}}};
};
static_assert(isWholeWordTable<QuantizedEngine>());

// A pipeline pass's progress, as the event stream reports it.
enum class StageState { Started, Resumed, Finished, Reused };
template <>
struct Words<StageState> {
  static constexpr std::array<Word<StageState>, 4> table{{{StageState::Started, "started"},
                                                          {StageState::Resumed, "resumed"},
                                                          {StageState::Finished, "finished"},
                                                          {StageState::Reused, "reused"}}};
};
static_assert(isWholeWordTable<StageState>());

// An artifact's pass: the pass that made it, none for the original (the trained model). compress.json and
// the events spell none as "original", a pass by its PassType word.
inline constexpr std::string_view kOriginalArtifactWord = "original";

inline std::string artifactPassWord(std::optional<PassType> pass) {
  return pass ? wordString(*pass) : std::string(kOriginalArtifactWord);
}

}  // namespace wb
