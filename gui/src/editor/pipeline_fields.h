#pragma once
// train.pipeline, a group of keys in the Training tab: on or off, the stages table (pipeline_binding.h), then
// the micro-batches and the schedule. The keys under the switch show only while it is on, and the first
// stage's device chosen in the table moves train.devices along (batches are loaded there).

#include <QCoreApplication>

#include "editor/form_section.h"

class QFormLayout;

namespace wb::gui {

class FormFields;

class PipelineFields : public FormSection {
  Q_DECLARE_TR_FUNCTIONS(PipelineFields)

 public:
  PipelineFields(FormFields& fields, QFormLayout* form);

  std::optional<bool> applies(const FieldBinding& field) const override;
  void setLocked(bool locked) override { m_locked = locked; }

 private:
  void followFirstStageDevice(const QString& device);

  FormFields& m_fields;
  FieldBinding* m_switch;  // train.pipeline.enabled
  bool m_locked = false;
};

}  // namespace wb::gui
