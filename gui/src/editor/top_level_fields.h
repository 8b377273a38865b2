#pragma once
// The keys at the file's top level, name and seed, in the form above the tabs: every run reads them, whatever
// its data and model.

#include <QCoreApplication>

#include "editor/form_section.h"

class QFormLayout;

namespace wb::gui {

class FormFields;

class TopLevelFields : public FormSection {
  Q_DECLARE_TR_FUNCTIONS(TopLevelFields)

 public:
  TopLevelFields(FormFields& fields, QFormLayout* form);
};

}  // namespace wb::gui
