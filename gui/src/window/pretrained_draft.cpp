#include "window/pretrained_draft.h"

#include <exception>

#include "workbench/data_preview.h"
#include "workbench/errors.h"
#include "workbench/weights_load_report.h"

namespace wb::gui {
namespace {

// A UserError's message and what to do about it, as one text.
std::string withHint(const UserError& e) {
  return e.hint().empty() ? std::string(e.what()) : std::string(e.what()) + " (" + e.hint() + ")";
}

// Runs `work`, turning whatever it throws into the text `problem` holds: the check is a thread's edge, and a
// damaged file must never end the window.
template <typename Work>
void catchInto(std::string& problem, Work work) {
  try {
    work();
  } catch (const UserError& e) {
    problem = withHint(e);
  } catch (const std::exception& e) {
    problem = e.what();
  } catch (...) {
    problem = "failed for a reason the engine could not name";
  }
}

}  // namespace

std::vector<ModelPreset> pretrainedArchitectures() {
  std::vector<ModelPreset> presets;
  for (const Word<ModelPreset>& entry : Words<ModelPreset>::table) {
    switch (entry.value) {
      // Sized for the data, with no weights anywhere to start from.
      case ModelPreset::Mlp:
      case ModelPreset::Cnn:
      case ModelPreset::Resnet:
      case ModelPreset::Vit:
        break;
      case ModelPreset::Resnet18:
      case ModelPreset::Resnet50:
      case ModelPreset::VitB16:
      case ModelPreset::MobileNetV3Large:
      case ModelPreset::EfficientNetB0:
      case ModelPreset::ConvNextTiny:
        presets.push_back(entry.value);
        break;
    }
  }
  return presets;
}

Experiment PretrainedDraft::experiment() const {
  Experiment e;
  e.data.dataset = DatasetName::ImageFolder;
  e.data.path = image_folder;
  e.data.images.resize = kPretrainedResize;
  e.data.images.crop = kPretrainedCrop;
  e.data.images.channels = 3;
  e.data.images.normalize = ImageNormalization::ImageNet;
  // RandomResizedCrop and the flip: torchvision's fine-tuning recipe.
  e.data.augment_enabled = true;
  e.model.preset = wordString(architecture);
  e.model.weights = weights;
  const PretrainedTraining trains = weights.empty() ? PretrainedTraining::Whole : training;
  if (trains == PretrainedTraining::Head) e.model.freeze_body = true;
  if (trains == PretrainedTraining::BodySlower && !head.empty()) {
    // The head in a group of its own at ten times optimizer.lr, which the body (the default group) keeps:
    // the body's parameters have no pattern of their own (a group picks by name, and "everything but the
    // head" is not one), while the head is always one module.
    ParamGroupConfig group;
    group.params = {head + ".*"};
    group.lr_scale = kPretrainedHeadLrFactor;
    e.optimizer.lr /= kPretrainedHeadLrFactor;
    e.optimizer.param_groups = {group};
  }
  return e;
}

std::string pretrainedHead(const ModelSummary& summary) {
  for (auto row = summary.rows.rbegin(); row != summary.rows.rend(); ++row) {
    if (row->depth == 0 && row->parameters > 0) return row->outside_name;
  }
  return {};
}

PretrainedCheck checkPretrained(const PretrainedDraft& draft) {
  PretrainedCheck check;
  if (draft.image_folder.empty()) {
    check.folder_problem = "choose the image folder: one subfolder of JPEG or PNG images per class";
    return check;
  }
  const Experiment experiment = draft.experiment();
  catchInto(check.folder_problem, [&] {
    const DataPreview preview = previewData(experiment, 0);
    check.class_names = preview.class_names;
    check.class_counts = preview.class_counts;
  });
  // The model and the weights need the folder's classes and image size.
  if (!check.folder_problem.empty()) return check;
  catchInto(check.model_problem, [&] {
    // Without the freeze: the head is the same, and a summary with one builds the whole model to apply it,
    // which the weights' preview below does anyway.
    Experiment unfrozen = experiment;
    unfrozen.model.freeze_body = false;
    const ModelSummary summary = summarizeModel(unfrozen);
    if (!summary.ok()) {
      const ValidationIssue& issue = summary.issues.front();
      check.model_problem = issue.path.empty() ? issue.message : issue.path + ": " + issue.message;
      return;
    }
    check.head = pretrainedHead(summary);
    if (check.head.empty()) check.model_problem = "the model has no head to replace";
  });
  if (!check.model_problem.empty() || draft.weights.empty()) return check;
  catchInto(check.weights_problem,
            [&] { check.weights_lines = weightsLoadLines(previewWeightsLoad(experiment)); });
  return check;
}

}  // namespace wb::gui
