#pragma once
// What File ▸ New from Pretrained… asks for (an architecture, a weights file, an image folder, what trains),
// as a plain value that makes the experiment, and the check the dialog runs on it as the user types: the
// folder's classes, the model's head and the weights' load report, each problem in the engine's words. No
// widgets and no Qt here, so a test drives it directly; the check reads files and builds the model: never on
// the UI thread.

#include <cstdint>
#include <string>
#include <vector>

#include "workbench/experiment.h"
#include "workbench/model_summary.h"

namespace wb::gui {

// What the fine-tune trains.
enum class PretrainedTraining {
  Head,        // model.freeze "body": only the new head learns
  BodySlower,  // everything, the body at a tenth of the head's learning rate (optimizer.param_groups)
  Whole,       // everything at optimizer.lr (and the only choice without a weights file)
};

// The architectures offered: the presets with torchvision's modules and names, whose weights files people
// have (ModelPreset's table order).
std::vector<ModelPreset> pretrainedArchitectures();

// ImageNet's weights expect 224×224 inputs cut from images resized to 256 (torchvision's recipe).
inline constexpr int64_t kPretrainedResize = 256;
inline constexpr int64_t kPretrainedCrop = 224;
// PretrainedTraining::BodySlower: the head's learning rate over the body's.
inline constexpr double kPretrainedHeadLrFactor = 10;

struct PretrainedDraft {
  ModelPreset architecture = ModelPreset::Resnet18;
  std::string weights;       // empty: from scratch (the training choice is then Whole whatever it says)
  std::string image_folder;  // one subfolder per class
  PretrainedTraining training = PretrainedTraining::Head;
  // The head module's outside name ("fc", "classifier.3", "heads.head"): the group BodySlower gives the
  // head's rate. Comes from the check (pretrainedHead); required for BodySlower.
  std::string head;

  // A new experiment: the architecture with the weights, the folder as an image folder preprocessed as the
  // weights expect (Resize 256, CenterCrop / RandomResizedCrop 224, ImageNet's mean and std, crop and flip
  // augmentation), and the training choice as model.freeze or optimizer.param_groups. The rest is default.
  Experiment experiment() const;
};

// The module holding the model's last parameter, by its outside name: the head a fine-tune replaces (what
// model.freeze's "body" leaves out). Empty when the summary has none.
std::string pretrainedHead(const ModelSummary& summary);

struct PretrainedCheck {
  std::string folder_problem;              // the image folder cannot be used: why, in the engine's words
  std::vector<std::string> class_names;    // the folder's classes
  std::vector<int64_t> class_counts;       // training files per class
  std::string model_problem;               // the architecture does not fit the data
  std::string head;                        // pretrainedHead of the draft's model
  std::string weights_problem;             // the weights file is refused: the engine's message and hint
  std::vector<std::string> weights_lines;  // weightsLoadLines of the report (empty without a weights file)

  // Nothing stands in the way of the experiment.
  bool ok() const { return folder_problem.empty() && model_problem.empty() && weights_problem.empty(); }
};

// Reads the folder, summarizes the model and previews loading the weights into it, as a run would. Never
// throws: every problem comes back in the result. Reads files and builds the model: off the UI thread.
PretrainedCheck checkPretrained(const PretrainedDraft& draft);

}  // namespace wb::gui
