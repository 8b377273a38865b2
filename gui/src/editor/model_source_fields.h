#pragma once
// Where the model comes from, the form's own choice: a model is exactly one of a built-in preset
// (model.preset), a layer list (model.layers), a TorchScript file (model.torchscript) or a Hugging Face
// folder (model.huggingface). The chooser above the three says which; only its field applies, and the other
// two store what means "not this" (an empty preset, no layer list, an empty path).

#include <QCoreApplication>
#include <QObject>

#include "editor/form_section.h"

class QComboBox;
class QFormLayout;

namespace wb::gui {

class FormFields;

class ModelSourceFields : public FormSection {
  Q_DECLARE_TR_FUNCTIONS(ModelSourceFields)

 public:
  ModelSourceFields(FormFields& fields, QFormLayout* form);

  std::optional<bool> applies(const FieldBinding& field) const override;
  // The source is the file's: a Hugging Face folder, else a TorchScript path, else a layer list, else the
  // preset.
  void beforeLoad(const nlohmann::json& doc, nlohmann::json& forFields) override;
  void setLocked(bool locked) override;

 private:
  enum Source { Preset = 0, Layers = 1, TorchScript = 2, HuggingFace = 3 };

  QComboBox* m_source;
  // The context of the chooser's connection: the chooser outlives this part (the editor owns it).
  QObject m_alive;
};

}  // namespace wb::gui
