#pragma once
// The Training tab: how long a run trains and in what batches, its precision, its devices (data parallel,
// sharding, and the pipeline's key group among them: pipeline_fields.h), how often it validates, reports and
// checkpoints, and early stopping, whose settings take edits only while it is on. Under the precision, while
// bfloat16 is chosen for a CPU device, a note says what it costs on this machine's CPU.

#include <QCoreApplication>
#include <memory>

#include "editor/form_section.h"

class QComboBox;
class QFormLayout;
class QLabel;

namespace wb::gui {

class FormFields;
class PipelineFields;

class TrainingSection : public FormSection {
  Q_DECLARE_TR_FUNCTIONS(TrainingSection)

 public:
  explicit TrainingSection(FormFields& fields);
  ~TrainingSection() override;

  std::optional<bool> applies(const FieldBinding& field) const override;
  void updateInputs() override;
  void setLocked(bool locked) override;

 private:
  void addLengthFields(QFormLayout* form);
  void addPrecisionFields(QFormLayout* form);
  void addDeviceFields(QFormLayout* form);
  void addProgressFields(QFormLayout* form);  // validation, reports and checkpoints as the run goes
  void addEarlyStoppingFields(QFormLayout* form);
  void offerTrainedShardLevels(QComboBox* combo);
  bool onCpu() const;  // whether train.devices names a CPU (no devices: the CPU)

  FormFields& m_fields;
  std::unique_ptr<PipelineFields> m_pipeline;
  QLabel* m_ampNote = nullptr;  // what bf16 costs on this CPU (train.amp)
};

}  // namespace wb::gui
