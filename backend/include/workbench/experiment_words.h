#pragma once
// The experiment file's fixed word sets (workbench/word_set.h): each setting that is one of a few words is an
// enum here, with its words in the table beside it, in the order the window offers them. The schema takes a
// key's choices from its table, so adding a value is one enumerator and one row; the compiler then names
// every switch that must learn it. (A compression pass's words are in workbench/compression_words.h.)
// No Torch here: the window and the CLI include this header.

#include "workbench/word_set.h"

namespace wb {

// data.dataset: which data a run trains on.
enum class DatasetName { FashionMnist, Mnist, Cifar10, Csv, ImageFolder, Text, Synthetic };
template <>
struct Words<DatasetName> {
  static constexpr std::array<Word<DatasetName>, 7> table{{{DatasetName::FashionMnist, "fashion-mnist"},
                                                           {DatasetName::Mnist, "mnist"},
                                                           {DatasetName::Cifar10, "cifar10"},
                                                           {DatasetName::Csv, "csv"},
                                                           {DatasetName::ImageFolder, "image_folder"},
                                                           {DatasetName::Text, "text"},
                                                           {DatasetName::Synthetic, "synthetic"}}};
};
static_assert(isWholeWordTable<DatasetName>());

// data.augment_on: where an image folder's training transforms run.
enum class AugmentPlace { Workers, Device };
template <>
struct Words<AugmentPlace> {
  static constexpr std::array<Word<AugmentPlace>, 2> table{
      {{AugmentPlace::Workers, "workers"}, {AugmentPlace::Device, "device"}}};
};
static_assert(isWholeWordTable<AugmentPlace>());

// data.images.bad_files: what an image file that cannot be read does to the run.
enum class BadFilePolicy { Error, Skip };
template <>
struct Words<BadFilePolicy> {
  static constexpr std::array<Word<BadFilePolicy>, 2> table{
      {{BadFilePolicy::Error, "error"}, {BadFilePolicy::Skip, "skip"}}};
};
static_assert(isWholeWordTable<BadFilePolicy>());

// data.images.normalize: whose mean and std Normalize uses. Folder: the training files' own, measured;
// ImageNet: torchvision's (0.485, 0.456, 0.406) / (0.229, 0.224, 0.225), the statistics every
// ImageNet-trained weights file expects its inputs in.
enum class ImageNormalization { Folder, ImageNet };
template <>
struct Words<ImageNormalization> {
  static constexpr std::array<Word<ImageNormalization>, 2> table{
      {{ImageNormalization::Folder, "folder"}, {ImageNormalization::ImageNet, "imagenet"}}};
};
static_assert(isWholeWordTable<ImageNormalization>());

// model.weights_mismatch: what loading a weights file does with tensors that do not fit the model (missing,
// unexpected, another shape) besides a classifier head whose class count changed, which is always replaced.
enum class WeightsMismatch { Refuse, Skip };
template <>
struct Words<WeightsMismatch> {
  static constexpr std::array<Word<WeightsMismatch>, 2> table{
      {{WeightsMismatch::Refuse, "refuse"}, {WeightsMismatch::Skip, "skip"}}};
};
static_assert(isWholeWordTable<WeightsMismatch>());

// model.preset: the built-in architectures. The first four are small networks sized for the data; the rest
// are torchvision's architectures with its module names (model/torchvision/). A new one is an
// enumerator, a row here and a case in presetLayers (model/presets.cpp).
enum class ModelPreset {
  Mlp,
  Cnn,
  Resnet,
  Vit,
  Resnet18,
  Resnet50,
  VitB16,
  MobileNetV3Large,
  EfficientNetB0,
  ConvNextTiny
};
template <>
struct Words<ModelPreset> {
  static constexpr std::array<Word<ModelPreset>, 10> table{
      {{ModelPreset::Mlp, "mlp"},
       {ModelPreset::Cnn, "cnn"},
       {ModelPreset::Resnet, "resnet"},
       {ModelPreset::Vit, "vit"},
       {ModelPreset::Resnet18, "resnet18"},
       {ModelPreset::Resnet50, "resnet50"},
       {ModelPreset::VitB16, "vit_b_16"},
       {ModelPreset::MobileNetV3Large, "mobilenet_v3_large"},
       {ModelPreset::EfficientNetB0, "efficientnet_b0"},
       {ModelPreset::ConvNextTiny, "convnext_tiny"}}};
};
static_assert(isWholeWordTable<ModelPreset>());

// optimizer.name: the update rule, as torch.optim names it.
enum class OptimizerName { Sgd, Adam, AdamW, RmsProp, Adagrad };
template <>
struct Words<OptimizerName> {
  static constexpr std::array<Word<OptimizerName>, 5> table{{{OptimizerName::Sgd, "sgd"},
                                                             {OptimizerName::Adam, "adam"},
                                                             {OptimizerName::AdamW, "adamw"},
                                                             {OptimizerName::RmsProp, "rmsprop"},
                                                             {OptimizerName::Adagrad, "adagrad"}}};
};
static_assert(isWholeWordTable<OptimizerName>());

// schedule.name: the learning rate over the run (constant is what no torch scheduler gives).
enum class ScheduleName { Constant, Step, MultiStep, Exponential, Cosine, OneCycle, Plateau, Linear };
template <>
struct Words<ScheduleName> {
  static constexpr std::array<Word<ScheduleName>, 8> table{{{ScheduleName::Constant, "constant"},
                                                            {ScheduleName::Step, "step"},
                                                            {ScheduleName::MultiStep, "multistep"},
                                                            {ScheduleName::Exponential, "exponential"},
                                                            {ScheduleName::Cosine, "cosine"},
                                                            {ScheduleName::OneCycle, "onecycle"},
                                                            {ScheduleName::Plateau, "plateau"},
                                                            {ScheduleName::Linear, "linear"}}};
};
static_assert(isWholeWordTable<ScheduleName>());

// schedule.anneal_strategy: OneCycleLR's shape of the rise and fall.
enum class AnnealStrategy { Cos, Linear };
template <>
struct Words<AnnealStrategy> {
  static constexpr std::array<Word<AnnealStrategy>, 2> table{
      {{AnnealStrategy::Cos, "cos"}, {AnnealStrategy::Linear, "linear"}}};
};
static_assert(isWholeWordTable<AnnealStrategy>());

// schedule.mode (ReduceLROnPlateau's mode): whether the watched value should fall or rise.
enum class PlateauMode { Min, Max };
template <>
struct Words<PlateauMode> {
  static constexpr std::array<Word<PlateauMode>, 2> table{
      {{PlateauMode::Min, "min"}, {PlateauMode::Max, "max"}}};
};
static_assert(isWholeWordTable<PlateauMode>());

// schedule.threshold_mode: the least improvement, relative to the best value or absolute.
enum class ThresholdMode { Rel, Abs };
template <>
struct Words<ThresholdMode> {
  static constexpr std::array<Word<ThresholdMode>, 2> table{
      {{ThresholdMode::Rel, "rel"}, {ThresholdMode::Abs, "abs"}}};
};
static_assert(isWholeWordTable<ThresholdMode>());

// train.early_stopping.metric: the validation figure early stopping watches.
enum class ValidationMetric { ValLoss, ValAccuracy };
template <>
struct Words<ValidationMetric> {
  static constexpr std::array<Word<ValidationMetric>, 2> table{
      {{ValidationMetric::ValLoss, "val_loss"}, {ValidationMetric::ValAccuracy, "val_accuracy"}}};
};
static_assert(isWholeWordTable<ValidationMetric>());

// A fast path the engine turns on where it helps (auto) or as told (train.data_on_device).
enum class AutoSwitch { Auto, On, Off };
template <>
struct Words<AutoSwitch> {
  static constexpr std::array<Word<AutoSwitch>, 3> table{
      {{AutoSwitch::Auto, "auto"}, {AutoSwitch::On, "on"}, {AutoSwitch::Off, "off"}}};
};
static_assert(isWholeWordTable<AutoSwitch>());

// train.pipeline.schedule: the order in which each pipeline stage runs its micro-batches' forwards and
// backwards. gpipe: all forwards, then all backwards (every micro-batch's activations held at once); 1f1b:
// after the warm-up each stage alternates one forward and one backward (PipeDream-flush), holding at most
// as many micro-batches' activations as there are stages after it. Both give the same gradients.
enum class PipelineSchedule { GPipe, OneFOneB };
template <>
struct Words<PipelineSchedule> {
  static constexpr std::array<Word<PipelineSchedule>, 2> table{
      {{PipelineSchedule::GPipe, "gpipe"}, {PipelineSchedule::OneFOneB, "1f1b"}}};
};
static_assert(isWholeWordTable<PipelineSchedule>());

// train.amp: the precision the forward pass and the loss run in (autocast), fp16 with dynamic loss scaling.
enum class Precision { Off, Bf16, Fp16 };
template <>
struct Words<Precision> {
  static constexpr std::array<Word<Precision>, 3> table{
      {{Precision::Off, "off"}, {Precision::Bf16, "bf16"}, {Precision::Fp16, "fp16"}}};
};
static_assert(isWholeWordTable<Precision>());

// train.shard: how much of the training state each data-parallel rank keeps only a shard of (ZeRO's stages):
// none = every rank holds it all (data parallel); optimizer = the optimizer's state (stage 1); gradients =
// also the averaged gradients (stage 2); parameters = also the parameters between steps (stage 3).
enum class ShardLevel { None, Optimizer, Gradients, Parameters };
template <>
struct Words<ShardLevel> {
  static constexpr std::array<Word<ShardLevel>, 4> table{{{ShardLevel::None, "none"},
                                                          {ShardLevel::Optimizer, "optimizer"},
                                                          {ShardLevel::Gradients, "gradients"},
                                                          {ShardLevel::Parameters, "parameters"}}};
};
static_assert(isWholeWordTable<ShardLevel>());

}  // namespace wb
