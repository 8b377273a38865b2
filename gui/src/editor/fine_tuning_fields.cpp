#include "editor/fine_tuning_fields.h"

#include <QFormLayout>

#include "editor/form_fields.h"
#include "editor/freeze_binding.h"
#include "editor/json_path.h"

namespace wb::gui {

FineTuningFields::FineTuningFields(FormFields& fields, QFormLayout* form) : m_fields(fields) {
  fields.addPath(
      form, "model.weights", tr("Weights"),
      tr("Weights to start from: a .safetensors file, a torch.save(model.state_dict()) file, a "
         "TorchScript file, or a run folder or checkpoint of ours. Empty: a fresh initialization."),
      false, tr("Weights (*.safetensors *.pt *.pth *.bin *.ckpt);;All files (*)"));
  fields.addText(form, "model.weights_prefix", tr("Strip prefix"),
                 tr("A prefix to strip from the file's tensor names (\"module.\", \"backbone.\"). Empty: a "
                    "common one is found and stripped."));
  fields.addChoice<WeightsMismatch>(
      form, "model.weights_mismatch", tr("Tensors that do not fit"),
      {{WeightsMismatch::Refuse, tr("refuse to start")}, {WeightsMismatch::Skip, tr("skip them, listed")}},
      tr("Tensors of the model missing from the file, of the file missing from the "
         "model, or of another shape (a new head never counts)."));
  fields.add(
      form, tr("Freeze"), std::make_unique<FreezeBinding>("model.freeze"),
      tr("Parameters that do not train: no gradient, no optimizer state. The body: every parameter but "
         "the head's. Patterns: * any run of characters, ? one (torchvision's names: conv1.*, "
         "layer1.*)."));
  fields.addInteger(
      form, "model.unfreeze.after_epochs", tr("Unfreeze after"),
      tr("Thaw what is frozen after this many epochs (fresh optimizer state); 0 = stays frozen."),
      tr(" epochs"));
  fields.addInteger(
      form, "model.unfreeze.every_epochs", tr("Then one pattern every"),
      tr("Gradual unfreezing: 0 thaws all at once; N thaws one freeze pattern at a time, nearest "
         "the head first, N epochs apart."),
      tr(" epochs"));
}

void FineTuningFields::updateInputs() {
  const auto* freeze = dynamic_cast<const FreezeBinding*>(m_fields.binding("model.freeze"));
  const bool freezes = freeze != nullptr && freeze->freezesSomething();
  for (const auto& b : m_fields.bindings()) {
    if (pathIsUnder(b->path(), "model.unfreeze")) b->input()->setEnabled(freezes);
  }
}

}  // namespace wb::gui
