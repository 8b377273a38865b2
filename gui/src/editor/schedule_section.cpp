#include "editor/schedule_section.h"

#include <QFormLayout>

#include "editor/form_fields.h"

namespace wb::gui {

ScheduleSection::ScheduleSection(FormFields& fields) : m_fields(fields) {
  QFormLayout* form = fields.addSection(tr("Schedule"), QStringLiteral("schedule"));
  fields.addChoice<ScheduleName>(form, "schedule.name", tr("Schedule"),
                                 {{ScheduleName::Constant, tr("Constant")},
                                  {ScheduleName::Step, tr("Step")},
                                  {ScheduleName::MultiStep, tr("Multi-step")},
                                  {ScheduleName::Exponential, tr("Exponential")},
                                  {ScheduleName::Cosine, tr("Cosine")},
                                  {ScheduleName::OneCycle, tr("One-cycle")},
                                  {ScheduleName::Plateau, tr("Reduce on plateau")},
                                  {ScheduleName::Linear, tr("Linear to zero (BERT's fine-tuning)")}},
                                 tr("The learning rate over the run (after the warmup)."));
  addWarmupFields(form);
  addStepDecayFields(form);
  addCosineFields(form);
  addOneCycleFields(form);
  addPlateauFields(form);
}

void ScheduleSection::addWarmupFields(QFormLayout* form) {
  m_fields.addInteger(form, "schedule.warmup_steps", tr("Warmup"), tr("Steps of linear warmup; 0 = none."),
                      tr(" steps"));
  m_fields.addNumber(form, "schedule.warmup_start_factor", tr("Warmup start factor"),
                     tr("The warmup starts at lr × this."));
}

void ScheduleSection::addStepDecayFields(QFormLayout* form) {
  m_fields.addInteger(form, "schedule.step_size", tr("Step size"), tr("Step: steps between two decays."),
                      tr(" steps"));
  m_fields.addList(form, "schedule.milestones", tr("Milestones"),
                   tr("Multi-step: the steps at which lr is multiplied by γ."));
  m_fields.addNumber(form, "schedule.gamma", tr("γ"), tr("Decay factor."));
}

void ScheduleSection::addCosineFields(QFormLayout* form) {
  m_fields.addInteger(form, "schedule.t_max", tr("T_max"),
                      tr("Cosine: length in steps; 0 = the rest of the run."), tr(" steps"));
  m_fields.addNumber(form, "schedule.eta_min", tr("η_min"), tr("Cosine: the lowest rate."));
}

void ScheduleSection::addOneCycleFields(QFormLayout* form) {
  m_fields.addNumber(form, "schedule.pct_start", tr("Rising share"),
                     tr("One-cycle: share of the cycle spent rising."));
  m_fields.addChoice<AnnealStrategy>(
      form, "schedule.anneal_strategy", tr("Annealing"),
      {{AnnealStrategy::Cos, tr("Cosine")}, {AnnealStrategy::Linear, tr("Linear")}},
      tr("One-cycle: shape of the rise and fall."));
  m_fields.addNumber(form, "schedule.div_factor", tr("Div factor"), tr("One-cycle: start rate = lr / this."));
  m_fields.addNumber(form, "schedule.final_div_factor", tr("Final div factor"),
                     tr("One-cycle: final rate = start / this."));
  m_fields.addBool(form, "schedule.three_phase", tr("Three phases"),
                   tr("One-cycle: a third, annealing phase."));
}

void ScheduleSection::addPlateauFields(QFormLayout* form) {
  m_fields.addChoice<PlateauMode>(form, "schedule.mode", tr("Mode"),
                                  {{PlateauMode::Min, tr("min (loss)")}, {PlateauMode::Max, tr("max")}},
                                  tr("Plateau: whether the value should fall or rise."));
  m_fields.addNumber(form, "schedule.factor", tr("Factor"), tr("Plateau: lr × this on a plateau."));
  m_fields.addInteger(form, "schedule.patience", tr("Patience"),
                      tr("Plateau: validations without improvement."));
  m_fields.addNumber(form, "schedule.threshold", tr("Threshold"),
                     tr("Plateau: least improvement that counts."));
  m_fields.addChoice<ThresholdMode>(
      form, "schedule.threshold_mode", tr("Threshold mode"),
      {{ThresholdMode::Rel, tr("relative")}, {ThresholdMode::Abs, tr("absolute")}},
      tr("Plateau: threshold relative to the best value, or absolute."));
  m_fields.addInteger(form, "schedule.cooldown", tr("Cooldown"),
                      tr("Plateau: validations to wait after lowering."));
  m_fields.addNumber(form, "schedule.min_lr", tr("Min lr"), tr("Plateau: never below this."));
}

}  // namespace wb::gui
