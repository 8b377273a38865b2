#pragma once
// The keys at the file's top level, name, seed and task, in the form above the tabs: every run reads them,
// whatever its data and model. Seed and task share a line: the header's height is taken from every tab's rows
// (a 768 px screen keeps ten of the Training tab's in view).

#include <QCoreApplication>

#include "editor/form_section.h"

class QBoxLayout;

namespace wb::gui {

class FormFields;

class TopLevelFields : public FormSection {
  Q_DECLARE_TR_FUNCTIONS(TopLevelFields)

 public:
  TopLevelFields(FormFields& fields, QBoxLayout* header);
};

}  // namespace wb::gui
