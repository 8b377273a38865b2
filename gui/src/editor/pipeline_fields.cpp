#include "editor/pipeline_fields.h"

#include <QCheckBox>
#include <QFormLayout>

#include "editor/form_fields.h"
#include "editor/json_path.h"
#include "editor/pipeline_binding.h"

namespace wb::gui {

PipelineFields::PipelineFields(FormFields& fields, QFormLayout* form) : m_fields(fields) {
  m_switch = fields.addBool(
      form, "train.pipeline.enabled", tr("Pipeline"),
      tr("Cut the model's top-level layers into stages, each on a device, for a model whose training "
         "state does not fit one device (train.devices: the first stage's device only)."));
  auto* stages = static_cast<PipelineBinding*>(
      fields.add(form, QString(), std::make_unique<PipelineBinding>("train.pipeline"),
                 tr("The stages, in layer order: each one's device and its first and last top-level layer; "
                    "or Balanced, where the engine proposes the cut over the stages' devices.")));
  stages->setOnFirstDevice([this](const QString& device) { followFirstStageDevice(device); });
  fields.addInteger(form, "train.pipeline.micro_batches", tr("Micro-batches"),
                    tr("Each batch is split into this many (at most train.batch_size): more shrink the idle "
                       "share, (stages − 1)/(micro-batches + stages − 1), at the cost of smaller products."));
  fields.addChoice<PipelineSchedule>(
      form, "train.pipeline.schedule", tr("Pipeline schedule"),
      {{PipelineSchedule::GPipe, tr("GPipe: all forwards, then all backwards")},
       {PipelineSchedule::OneFOneB, tr("1F1B: one forward, one backward")}},
      tr("The same gradients either way. GPipe holds every micro-batch's activations at once; 1F1B a "
         "stage at most as many as there are stages from it to the end."));
}

std::optional<bool> PipelineFields::applies(const FieldBinding& field) const {
  const bool under = pathIsUnder(field.path(), "train.pipeline") && &field != m_switch;
  if (!under || static_cast<QCheckBox*>(m_switch->input())->isChecked()) return std::nullopt;
  return false;
}

// The engine loads batches onto train.devices and requires it to be the first stage's device: the first
// stage's device chosen here moves it along, as the device picker's pipeline choice does (one edit).
void PipelineFields::followFirstStageDevice(const QString& device) {
  FieldBinding* devices = m_fields.binding("train.devices");
  const auto* on = qobject_cast<QCheckBox*>(m_switch->input());
  if (m_locked || devices == nullptr || on == nullptr || !on->isChecked()) return;
  nlohmann::json doc = m_fields.document();
  setJsonAt(doc, "train.devices", nlohmann::json::array({device.toStdString()}));
  m_fields.quietly([&] { devices->load(doc); });  // reported once, by the table's own change
}

}  // namespace wb::gui
