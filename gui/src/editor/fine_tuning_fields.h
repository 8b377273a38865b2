#pragma once
// Starting from trained weights, in the Model tab: the weights file and how its tensors are matched, what of
// the model is frozen, and when it thaws. The unfreezing schedule takes edits only while something is frozen.

#include <QCoreApplication>

#include "editor/form_section.h"

class QFormLayout;

namespace wb::gui {

class FormFields;

class FineTuningFields : public FormSection {
  Q_DECLARE_TR_FUNCTIONS(FineTuningFields)

 public:
  FineTuningFields(FormFields& fields, QFormLayout* form);

  void updateInputs() override;

 private:
  FormFields& m_fields;
};

}  // namespace wb::gui
