#include "experiment/experiment_consistency.h"

#include <string>

namespace wb {
namespace {

bool anyIssue(const IssueList& issues, std::initializer_list<const char*> paths) {
  for (const char* path : paths) {
    if (issues.hasIssueAt(path)) return true;
  }
  return false;
}

std::string quoted(const std::string& text) {
  return "\"" + text + "\"";
}

// Texts are read by the text models, and the text models read texts: data.dataset "text" and
// model.huggingface come together.
void checkTextTask(const Experiment& e, IssueList& issues) {
  const bool texts = e.data.dataset == DatasetName::Text;
  if (texts && e.data.path.empty() && !anyIssue(issues, {"data.dataset", "data.path"})) {
    issues.add(
        "data.path",
        "the text dataset needs data.path: a CSV, TSV or JSON Lines file with a text and a label column, "
        "or a folder with one subfolder of .txt files per class");
  }
  if (texts && e.model.huggingface.empty() && !anyIssue(issues, {"data.dataset", "model"})) {
    issues.add("model.huggingface",
               "the text dataset trains a text model: set model.huggingface to a Hugging Face BERT or "
               "DistilBERT folder (config.json and model.safetensors)");
  }
  if (!texts && !e.model.huggingface.empty() && !anyIssue(issues, {"data.dataset", "model.huggingface"})) {
    issues.add("model.huggingface",
               "a Hugging Face text model reads texts, but data.dataset is \"" + wordString(e.data.dataset) +
                   "\": set data.dataset to \"text\" with data.path a file of labelled texts");
  }
}
}  // namespace

void checkConsistency(const Experiment& e, IssueList& issues) {
  checkPipelineConsistency(e, issues);
  if (e.train.epochs == 0 && e.train.max_steps == 0 &&
      !anyIssue(issues, {"train.epochs", "train.max_steps"})) {
    issues.add(
        "train.epochs",
        "train.epochs and train.max_steps are both 0, so nothing would be trained: set train.epochs (or "
        "train.max_steps) to at least 1");
  }

  if (e.optimizer.nesterov &&
      !anyIssue(issues, {"optimizer.nesterov", "optimizer.name", "optimizer.momentum"})) {
    if (e.optimizer.name != OptimizerName::Sgd) {
      issues.add("optimizer.nesterov", "Nesterov momentum is an option of SGD, but optimizer.name is " +
                                           quoted(wordString(e.optimizer.name)) +
                                           ": set optimizer.name to \"sgd\" or optimizer.nesterov to false");
    } else if (e.optimizer.momentum <= 0.0) {
      issues.add("optimizer.nesterov",
                 "Nesterov momentum needs optimizer.momentum > 0, but it is 0: set a momentum such as 0.9 or "
                 "optimizer.nesterov to false");
    }
  }

  const bool hasValidation = e.data.val_fraction > 0.0;
  if (e.train.early_stopping.enabled && !hasValidation &&
      !anyIssue(issues, {"train.early_stopping", "data.val_fraction"})) {
    issues.add("train.early_stopping",
               "early stopping watches " + wordString(e.train.early_stopping.metric) +
                   ", a validation metric, but data.val_fraction is 0 so there is no validation: set "
                   "data.val_fraction > 0 (such as 0.1) or set train.early_stopping to false");
  }
  if (e.schedule.name == ScheduleName::Plateau && !hasValidation &&
      !anyIssue(issues, {"schedule.name", "data.val_fraction"})) {
    issues.add("schedule.name",
               "the plateau schedule lowers the learning rate when the validation loss stops improving, but "
               "data.val_fraction is 0 so there is no validation: set data.val_fraction > 0 (such as 0.1) or "
               "choose another schedule");
  }

  if (e.schedule.name == ScheduleName::MultiStep && e.schedule.milestones.empty() &&
      !anyIssue(issues, {"schedule.name", "schedule.milestones"})) {
    issues.add("schedule.milestones",
               "the multistep schedule needs at least one milestone (a step at which the learning rate is "
               "multiplied by schedule.gamma), such as [3000, 6000]");
  }

  if (e.data.dataset == DatasetName::Csv && e.data.path.empty() &&
      !anyIssue(issues, {"data.dataset", "data.path"})) {
    issues.add("data.path",
               "the csv dataset needs data.path, the CSV file to train on (one row per sample, a "
               "header row naming the columns)");
  }
  if (e.data.dataset == DatasetName::ImageFolder && e.data.path.empty() &&
      !anyIssue(issues, {"data.dataset", "data.path"})) {
    issues.add(
        "data.path",
        "the image_folder dataset needs data.path, a folder with one subfolder of JPEG or PNG images per "
        "class (torchvision's ImageFolder layout)");
  }
  checkTextTask(e, issues);
  if (e.data.dataset == DatasetName::ImageFolder && e.data.augment_on == AugmentPlace::Device &&
      (e.data.images.resize == 0 || e.data.images.crop == 0) &&
      !anyIssue(issues, {"data.augment_on", "data.images.resize", "data.images.crop"})) {
    issues.add(
        "data.augment_on",
        "\"device\" batches the images before the device crops them, so every image must come out of the "
        "workers the same size: set data.images.resize and data.images.crop (such as 256 and 224)");
  }
  if (e.data.dataset == DatasetName::ImageFolder && e.data.images.channels == 2 &&
      !anyIssue(issues, {"data.images.channels"})) {
    issues.add("data.images.channels",
               "expected 3 (RGB, as convert(\"RGB\")) or 1 (grey, as convert(\"L\")), got 2");
  }
}

}  // namespace wb
