#pragma once
// The Schedule tab: the learning rate over the run after its warmup, as torch.optim.lr_scheduler names each
// schedule and its settings (the schema shows each setting only with the schedule that reads it).

#include <QCoreApplication>

#include "editor/form_section.h"

class QFormLayout;

namespace wb::gui {

class FormFields;

class ScheduleSection : public FormSection {
  Q_DECLARE_TR_FUNCTIONS(ScheduleSection)

 public:
  explicit ScheduleSection(FormFields& fields);

 private:
  void addWarmupFields(QFormLayout* form);
  void addStepDecayFields(QFormLayout* form);  // Step, Multi-step and Exponential
  void addCosineFields(QFormLayout* form);
  void addOneCycleFields(QFormLayout* form);
  void addPlateauFields(QFormLayout* form);

  FormFields& m_fields;
};

}  // namespace wb::gui
