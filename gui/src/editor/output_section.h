#pragma once
// The Output tab: where runs are written. The keys without a field of their own get theirs here too when
// their section has no tab (schema_fields.h).

#include <QCoreApplication>

#include "editor/form_section.h"

namespace wb::gui {

class FormFields;

class OutputSection : public FormSection {
  Q_DECLARE_TR_FUNCTIONS(OutputSection)

 public:
  explicit OutputSection(FormFields& fields);
};

}  // namespace wb::gui
