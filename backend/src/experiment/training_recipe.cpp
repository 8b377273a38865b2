// describeTrainingRecipe (workbench/experiment_defaults.h): the recipe line a run's log starts with.

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "workbench/experiment.h"
#include "workbench/experiment_defaults.h"

namespace wb {
namespace {

std::string number(double value) {
  std::ostringstream out;
  out << value;  // 0.001, 1e-05, 0.1: what the file would hold, shortened
  return out.str();
}

std::string percent(double fraction) {
  return number(fraction * 100.0) + "%";
}

// "(data.augment, default)" or "(data.augment)": which key to change, and whether it was left at its default.
std::string keyNote(const std::string& label, const std::string& key,
                    const std::vector<std::string>& defaulted) {
  const bool isDefault = std::binary_search(defaulted.begin(), defaulted.end(), key);
  return " (" + label + (isDefault ? ", default)" : ")");
}

bool holdsImages(const DataConfig& data) {
  return data.dataset != DatasetName::Csv && data.dataset != DatasetName::Text &&
         !(data.dataset == DatasetName::Synthetic && data.synthetic_shape.size() < 3);
}

std::string augmentation(const DataConfig& data) {
  if (!data.augment_enabled) return "augmentation off";
  // An image folder crops with RandomResizedCrop(images.crop) (random_crop and crop_padding are not its
  // keys).
  const bool folder = data.dataset == DatasetName::ImageFolder;
  std::vector<std::string> parts;
  if (folder && data.augment.random_resized_crop && data.images.crop > 0) {
    parts.push_back("RandomResizedCrop(" + std::to_string(data.images.crop) + ")");
  } else if (!folder && data.augment.random_crop && data.augment.crop_padding > 0) {
    parts.push_back("random crop (padding " + std::to_string(data.augment.crop_padding) + " px)");
  }
  if (data.augment.horizontal_flip) parts.push_back("horizontal flip");
  if (parts.empty()) {
    return folder ? "augmentation on, but random_resized_crop (with images.crop) and horizontal_flip are off"
                  : "augmentation on, but random_crop and horizontal_flip are off";
  }
  std::string text = "augmentation ";
  for (size_t i = 0; i < parts.size(); ++i) text += (i == 0 ? "" : " + ") + parts[i];
  return text;
}

std::string schedule(const Experiment& e) {
  const ScheduleConfig& s = e.schedule;
  const std::string lr = number(e.optimizer.lr);
  std::string text;
  if (s.name == ScheduleName::Constant) {
    text = "schedule constant, lr " + lr;
  } else if (s.name == ScheduleName::Cosine) {
    text = "schedule cosine from lr " + lr + " to " + number(s.eta_min) + " over " +
           (s.t_max > 0 ? std::to_string(s.t_max) + " steps" : std::string("the whole run"));
  } else if (s.name == ScheduleName::Step) {
    text = "schedule step, lr " + lr + " x" + number(s.gamma) + " every " + std::to_string(s.step_size) +
           " steps";
  } else if (s.name == ScheduleName::MultiStep) {
    text = "schedule multistep, lr " + lr + " x" + number(s.gamma) + " at " +
           std::to_string(s.milestones.size()) + " milestone(s)";
  } else if (s.name == ScheduleName::Exponential) {
    text = "schedule exponential, lr " + lr + " x" + number(s.gamma) + " every step";
  } else if (s.name == ScheduleName::OneCycle) {
    text = "schedule one-cycle up to lr " + lr;
  } else if (s.name == ScheduleName::Linear) {
    text = "schedule linear from lr " + lr + " to 0 over the run";
  } else if (s.name == ScheduleName::Plateau) {
    text = "schedule plateau, lr " + lr + " x" + number(s.factor) + " after " + std::to_string(s.patience) +
           " validations without improvement";
  } else {
    text = "schedule " + wordString(s.name) + ", lr " + lr;
  }
  if (s.warmup_steps > 0) {
    text += s.name == ScheduleName::Linear
                ? ", after " + std::to_string(s.warmup_steps) + " warmup steps from 0"
                : ", after " + std::to_string(s.warmup_steps) + " warmup steps";
  }
  return text;
}

}  // namespace

std::string describeTrainingRecipe(const Experiment& experiment) {
  const std::vector<std::string> defaulted = defaultedKeys(experimentToJson(experiment));
  const std::string validation =
      experiment.data.val_fraction > 0.0
          ? "validation " + percent(experiment.data.val_fraction) + " of the training split held out"
          : std::string("no validation split");
  const std::string augment =
      holdsImages(experiment.data)
          ? augmentation(experiment.data) + keyNote("data.augment", "data.augment.enabled", defaulted)
          : std::string("no augmentation (tables are never augmented)");
  return "Recipe: " + augment + " · " + validation +
         keyNote("data.val_fraction", "data.val_fraction", defaulted) + " · " + schedule(experiment) +
         keyNote("schedule.name", "schedule.name", defaulted);
}

}  // namespace wb
