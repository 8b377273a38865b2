#pragma once
// The Optimizer tab: the update rule and its settings as torch.optim names them, and the parameter groups
// that train at rates of their own (param_groups_binding.h).

#include <QCoreApplication>

#include "editor/form_section.h"

namespace wb::gui {

class FormFields;

class OptimizerSection : public FormSection {
  Q_DECLARE_TR_FUNCTIONS(OptimizerSection)

 public:
  explicit OptimizerSection(FormFields& fields);
};

}  // namespace wb::gui
