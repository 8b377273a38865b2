#pragma once
// A field for every key of the engine's schema (experiment_keys.h) that no part of the form has a field of
// its own for, so that a key added to the engine can be edited before it gets a dedicated one: its kind picks
// the widget, its words fill a chooser, and it goes to its section's tab (Output when the section has none).
// Built after every other part: it sees which keys they cover.

#include <QCoreApplication>

#include "editor/form_section.h"

namespace wb::gui {

class FormFields;

class SchemaFields : public FormSection {
  Q_DECLARE_TR_FUNCTIONS(SchemaFields)

 public:
  explicit SchemaFields(FormFields& fields);
};

}  // namespace wb::gui
