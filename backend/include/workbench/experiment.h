#pragma once
// The experiment: everything that describes one training run, as plain C++ values.
// The JSON file is its serialized form (docs/experiment.md lists every key and default).
// No Torch here: the GUI and the CLI include this header.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "workbench/compression_words.h"
#include "workbench/experiment_words.h"
#include "workbench/task_words.h"

namespace wb {

struct AugmentConfig {
  bool random_crop = true;  // pad, then crop back to the original size at a random offset
  int64_t crop_padding = 2;
  bool horizontal_flip = true;
  // image_folder: torchvision's RandomResizedCrop(images.crop) in place of the padded random crop
  bool random_resized_crop = true;
};

// How an image folder's files become the model's input, as torchvision's transforms would make them.
struct ImageConfig {
  int64_t resize = 0;    // Resize(int): the shorter side becomes this (bilinear, antialiased); 0 = as stored
  int64_t crop = 0;      // CenterCrop for evaluation, RandomResizedCrop's size for training; 0 = none
  int64_t channels = 3;  // 3: convert("RGB"); 1: convert("L")
  BadFilePolicy bad_files =
      BadFilePolicy::Error;  // skip: a file that cannot be read is left out, counted, listed
  // Normalize's mean and std: the training files' own, or ImageNet's for pretrained weights
  ImageNormalization normalize = ImageNormalization::Folder;
  // JPEGs decoded at 1/2, 1/4 or 1/8 scale when that still covers max(resize, crop), as Pillow's Image.draft:
  // several times less decoding, other pixels than torchvision's loader gives (so off unless asked for)
  bool jpeg_draft = false;
};

// data.text: labelled texts (a CSV, TSV or JSON Lines file, or a folder of class subfolders of .txt files),
// tokenized once with the model's tokenizer and kept in the user's cache.
struct TextDataConfig {
  std::string text_column = "text";
  std::string text_pair_column;  // a second text for sentence pairs; "" for single texts
  std::string label_column = "label";
  // A model folder or tokenizer file (tokenizer.json, vocab.txt, a SentencePiece .model); unwritten: the
  // folder of model.huggingface (the parser sets it)
  std::string tokenizer;
  int64_t max_length = 128;  // tokens, with the special ones; longer texts are cut longest-first and counted
  bool bucket_by_length = true;  // batches of similar lengths, so dynamic padding pads little
  BadFilePolicy bad_rows = BadFilePolicy::Error;  // skip: a row without a label or text is left out, listed
};

struct DataConfig {
  DatasetName dataset = DatasetName::FashionMnist;
  std::string path;   // folder (idx, cifar10, image_folder) or file (csv); empty = the dataset's default
  int64_t limit = 0;  // use only the first N training samples; 0 = all
  double val_fraction = 0.1;     // share of the training split held out for validation
  bool augment_enabled = false;  // off unless asked for, as in PyTorch (no transform unless one is written)
  AugmentConfig augment;
  int64_t prefetch = 2;  // batches prepared ahead of the step (the loader's bounded queue)
  // image_folder
  ImageConfig images;
  int64_t workers =
      2;  // threads that read, decode and augment batches (num_workers); 0 = the training thread
  // workers: every transform on the workers; device: the workers stop at uint8 pixels, the random crop, flip
  // and normalization run on the training device after the copy (a quarter of the bytes travel)
  AugmentPlace augment_on = AugmentPlace::Workers;
  // csv
  std::string label_column = "label";
  // text
  TextDataConfig text;
  std::string
      test_path;  // csv, image_folder, text: a separate test file or folder; else test_fraction of path
  double test_fraction = 0.2;  // csv, image_folder, text
  // synthetic
  int64_t synthetic_samples = 2048;
  int64_t synthetic_classes = 10;
  std::vector<int64_t> synthetic_shape = {1, 28, 28};
};

// model.unfreeze: what model.freeze froze thaws at an epoch's start, joining the optimizer with fresh state.
struct UnfreezeConfig {
  int64_t after_epochs = 0;  // 0: stays frozen; N: thawed from epoch N + 1 on
  int64_t every_epochs =
      0;  // 0: all at once; N: one freeze pattern at a time, nearest the head first, N apart
};

struct ModelConfig {
  std::string preset = "cnn";  // mlp | cnn | resnet | vit; empty when layers or torchscript is given
  nlohmann::json layers;       // a list of typed layers (see docs/experiment.md); null when unused
  std::string torchscript;     // path to a .pt file made with torch.jit.script/trace
  // A Hugging Face model folder (config.json with model.safetensors or pytorch_model.bin) of a BERT or
  // DistilBERT: the architecture from its config.json, the starting weights from its file (unless
  // model.weights names others), the classifier made for the data's classes
  std::string huggingface;
  // Weights loaded after initialization when a run starts (not on resume): a safetensors file, a torch.save
  // zip, a TorchScript archive, or a run folder / checkpoint of ours. Empty: the fresh initialization.
  std::string weights;
  std::string weights_prefix;  // stripped from the file's names ("module."); empty: a common one is detected
  WeightsMismatch weights_mismatch = WeightsMismatch::Refuse;
  // model.freeze: parameters that do not train (no gradient, no optimizer state), by name pattern
  // ("layer1.*", "conv1"; matched against the names the model has outside and ours), or every parameter but
  // the head.
  std::vector<std::string> freeze;
  bool freeze_body = false;  // "freeze": "body"
  UnfreezeConfig unfreeze;
};

// optimizer.param_groups: parameters by name pattern with their own learning rate and weight decay, as
// torch's param groups; the schedule scales each group's own base learning rate.
struct ParamGroupConfig {
  std::vector<std::string> params;  // patterns, as model.freeze's
  double lr = 0;                    // > 0: this learning rate; 0: lr_scale x optimizer.lr
  double lr_scale = 1;
  double weight_decay = -1;  // < 0: optimizer.weight_decay
};

struct OptimizerConfig {
  OptimizerName name = OptimizerName::AdamW;
  double lr = 1e-3;
  // Unwritten lr, weight_decay and eps take torch.optim's defaults for the optimizer named (the parser sets
  // them: AdamW's here); every other default is also torch's.
  double weight_decay = 0.01;
  double momentum = 0.0;  // sgd, rmsprop
  bool nesterov = false;  // sgd
  double beta1 = 0.9;     // adam, adamw
  double beta2 = 0.999;
  double eps = 1e-8;
  double alpha = 0.99;  // rmsprop smoothing constant
  bool decay_bias_and_norm =
      true;           // true, as torch: every parameter; false: biases and norm weights get none
  bool fused = true;  // CPU adam/adamw: one pass per parameter; CUDA: fused adam/adamw/sgd kernels, and
                      // foreach rmsprop/adagrad (optim/fused_adam.h, fused_sgd.h, foreach_optimizers.h)
  std::vector<ParamGroupConfig> param_groups;  // the rest: the default group (optimizer.lr, weight_decay)
};

struct ScheduleConfig {
  ScheduleName name = ScheduleName::Constant;
  int64_t warmup_steps = 0;
  double warmup_start_factor = 0.01;  // warmup starts at lr * this (0 < f <= 1) and rises linearly to lr
  // step / multistep / exponential / plateau
  int64_t step_size = 1000;
  std::vector<int64_t> milestones;
  double gamma = 0.1;
  // cosine
  int64_t t_max = 0;  // steps of the cosine after warmup; 0 = the rest of the run
  double eta_min = 0.0;
  // onecycle (max_lr is optimizer.lr)
  double pct_start = 0.3;
  AnnealStrategy anneal_strategy = AnnealStrategy::Cos;
  double div_factor = 25.0;
  double final_div_factor = 1e4;
  bool three_phase = false;
  // plateau: stepped once per validation, on the validation loss
  PlateauMode plateau_mode = PlateauMode::Min;
  double factor = 0.1;
  int64_t patience = 10;
  double threshold = 1e-4;
  ThresholdMode threshold_mode = ThresholdMode::Rel;
  int64_t cooldown = 0;
  double min_lr = 0.0;
};

struct EarlyStoppingConfig {
  bool enabled = false;
  ValidationMetric metric = ValidationMetric::ValLoss;
  int64_t patience = 3;  // validations without improvement before stopping
  double min_delta = 0.0;
};

// train.pipeline (docs/experiment.md): the model's top-level layer list cut into stages, each on a device,
// micro-batches passed from stage to stage. Off unless enabled.
struct PipelineStageConfig {
  std::string device;  // "cpu", "cuda", "cuda:N"
  std::string layers;  // a range of top-level layers by name or index: "conv1..layer2", "0..5", "fc"
  bool operator==(const PipelineStageConfig& other) const = default;
};
struct PipelineConfig {
  bool enabled = false;
  bool balanced = false;                    // "stages": "balanced": the engine cuts over `devices`
  std::vector<PipelineStageConfig> stages;  // explicit cut, in layer order
  std::vector<std::string> devices;         // balanced: one stage per entry
  int64_t micro_batches = 4;                // each batch is split into this many
  PipelineSchedule schedule = PipelineSchedule::OneFOneB;
};

struct TrainConfig {
  int64_t epochs = 15;
  int64_t max_steps = 0;  // optimizer steps; 0 = epochs decide; when both are set the first reached ends
  int64_t batch_size = 128;
  int64_t grad_accum = 1;
  double clip_grad_norm = 0.0;  // 0 = off
  Precision amp = Precision::Off;
  // Several entries = data parallel, one rank per entry ("cpu:2" in the file is two CPU ranks).
  std::vector<std::string> devices = {"cpu"};
  double bucket_mb = 25.0;      // data parallel: gradients are allreduced in buckets of about this size
  bool sync_batchnorm = false;  // data parallel: batch norm statistics over the global batch
  // data parallel: the training state (optimizer, gradients, parameters) each rank keeps only a shard of
  ShardLevel shard = ShardLevel::None;
  double collective_timeout = 300.0;  // seconds a rank waits for the others before the run fails
  int64_t threads = 0;                // 0 = one per core
  int64_t blas_threads = 0;  // OpenBLAS's threads; 0 = chosen so the two pools do not oversubscribe the cores
  // CUDA fast paths (no effect on the CPU); docs/experiment.md says what each one does
  bool cudnn_benchmark = true;  // cuDNN times its convolution algorithms on first use and keeps the fastest
  bool tf32 = true;             // float32 matmuls and convolutions on TF32 tensor cores (Ampere and newer)
  bool channels_last = false;   // NHWC weights and images for conv nets
  bool pinned_memory = true;    // batches copied from page-locked host memory, without blocking
  AutoSwitch data_on_device = AutoSwitch::Auto;  // the whole training split on the device
  AutoSwitch cuda_graphs = AutoSwitch::Auto;     // the whole step captured once in a CUDA graph and replayed
  int64_t eval_every_epochs = 1;
  int64_t log_every_steps = 20;  // how often losses are read back from the device and reported
  // Checkpoints (model, optimizer, schedule, scaler, RNG, data position) for exact resume: every N optimizer
  // steps and/or every M minutes (0 = not on that basis), and always at the end of each epoch.
  int64_t checkpoint_every_steps = 0;
  double checkpoint_every_minutes = 10.0;
  int64_t keep_checkpoints = 3;  // the newest K are kept, plus the one with the best validation metric
  EarlyStoppingConfig early_stopping;
  PipelineConfig pipeline;
};

// One pass of a compression pipeline (an item of `compress.passes`; docs/experiment.md has every key). Only
// the keys of its type are read and written; the others keep their defaults.
struct CompressPassConfig {
  PassType type = PassType::Prune;
  // prune
  PruneMethod method = PruneMethod::Unstructured;
  double amount = 0.5;                    // share of the selected weights (or channels) removed, in (0, 1)
  PruneScope scope = PruneScope::Global;  // unstructured
  PruneNorm norm = PruneNorm::L1;         // structured
  std::vector<PrunedLayerType> layer_types = {PrunedLayerType::Conv2d, PrunedLayerType::Linear};
  std::vector<std::string>
      layers;  // only these parameter-name prefixes ("layers.3"); empty = every layer of the types
  bool prune_output_layer = false;  // the last linear layer (one output per class) is left alone unless true
  PruneSchedule schedule = PruneSchedule::OneShot;  // unstructured
  // Passes that train: prune (fine-tuning with the masks), finetune, distill, quantize with mode qat.
  int64_t epochs = 0;     // prune 0 = no fine-tuning; finetune, distill and qat need >= 1
  int64_t max_steps = 0;  // 0 = the epochs decide
  double lr = 0;          // 0 = a tenth of optimizer.lr
  // distill
  std::string teacher =
      "original";          // "original" (the run's own model), a run folder, a checkpoint or a .pt file
  nlohmann::json student;  // a model section ({"preset": "mlp"}, {"layers": [...]}); null = the artifact
  double temperature = 4.0;
  double alpha = 0.9;  // weight of the soft (teacher) loss; 1 - alpha weighs cross-entropy on the labels
  // quantize
  QuantizeMode mode = QuantizeMode::Static;
  ObserverKind observer = ObserverKind::Histogram;  // static / qat activations
  int64_t calibration_batches = 16;  // training batches run through the model to calibrate (static)
  QuantizedEngine engine = QuantizedEngine::Auto;
};

struct CompressConfig {
  std::vector<CompressPassConfig> passes;
  int64_t latency_runs = 20;    // timed forward passes per batch size (the median is reported), after warm-up
  int64_t latency_threads = 0;  // threads while timing; 0 = train.threads (0 = one per core)
};

struct OutputConfig {
  std::string runs_dir = "runs";
};

struct Experiment {
  std::string name;  // empty: runs are named after the model and the data ("cnn-fashion-mnist-0007")
  uint64_t seed = 42;
  TaskKind task = TaskKind::Classification;  // what the run learns (workbench/task_words.h)
  DataConfig data;
  ModelConfig model;
  OptimizerConfig optimizer;
  ScheduleConfig schedule;
  TrainConfig train;
  CompressConfig compress;
  OutputConfig output;
};

// One thing wrong with an experiment: where (a JSON path such as "train.batch_size" or
// "model.layers[3].out_features") and what, in words a user can act on.
struct ValidationIssue {
  std::string path;
  std::string message;
};

struct ParseResult {
  Experiment experiment;
  std::vector<ValidationIssue> issues;  // empty when the experiment is usable
  bool ok() const { return issues.empty(); }
};

// Reads an experiment from JSON: unknown keys (with the closest valid one), wrong types, out-of-range values
// and inconsistent combinations that need no data or Torch. Missing keys take their defaults.
ParseResult parseExperiment(const nlohmann::json& doc);

// Reads and parses a file; a missing or malformed file is reported as an issue with path "".
ParseResult loadExperimentFile(const std::string& file);

// The complete experiment, every key present: what a run folder stores and the GUI edits.
nlohmann::json experimentToJson(const Experiment& experiment);

// Applies "a.b.c=value" overrides (value read as JSON when it parses, else as a string) to a document.
// Returns issues for overrides that name no valid key.
std::vector<ValidationIssue> applyOverride(nlohmann::json& doc, const std::string& assignment);

// Checks that need the engine: that the model fits the data's shape, that devices exist, that the data files
// are present. Runs before any training. Cheap: reads headers, not whole datasets.
std::vector<ValidationIssue> checkExperiment(const Experiment& experiment);

// One compression pass as the experiment file writes it (only the keys of its type).
nlohmann::json compressPassToJson(const CompressPassConfig& pass);

std::string formatIssues(const std::vector<ValidationIssue>& issues);

// One key whose value differs between two experiment documents: its JSON path and both values as compact
// JSON text ("" where a side lacks the key). Arrays are compared whole.
struct ExperimentChange {
  std::string path;
  std::string before;
  std::string after;
};
std::vector<ExperimentChange> diffExperiments(const nlohmann::json& before, const nlohmann::json& after);
// The changes from the experiment a run saved (a checkpoint's, a run folder's) to `now`. A key the saved one
// lacks because it was written before the key existed reads as its default: the run trained with it.
std::vector<ExperimentChange> changesSinceSaved(const nlohmann::json& saved, const Experiment& now);
// "train.epochs: 15 -> 20; optimizer.lr: 0.001 -> 0.01"
std::string describeChanges(const std::vector<ExperimentChange>& changes);

}  // namespace wb
