#include "profile_view/profile_dialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <limits>

namespace wb::gui {
namespace {

// A trace of more steps than this is hundreds of megabytes on a large model and slow to open in Perfetto; the
// operator table does not get truer with more steps once the first few have warmed up.
constexpr int kProfileMaxSteps = 500;
constexpr int kProfileDefaultSteps = 10;

int clampedStep(int64_t step) {
  return static_cast<int>(std::clamp<int64_t>(step, 0, std::numeric_limits<int>::max()));
}

}  // namespace

ProfileDialog::ProfileDialog(int64_t step, QWidget* parent) : QDialog(parent), m_step(step) {
  setObjectName(QStringLiteral("profileDialog"));
  setWindowTitle(tr("Profile Steps"));
  auto* layout = new QVBoxLayout(this);
  m_current = new QLabel;
  m_current->setObjectName(QStringLiteral("profileCurrentStep"));
  layout->addWidget(m_current);

  auto* form = new QFormLayout;
  m_steps = new QSpinBox;
  m_steps->setObjectName(QStringLiteral("profileSteps"));
  m_steps->setRange(1, kProfileMaxSteps);
  m_steps->setValue(kProfileDefaultSteps);
  m_steps->setSuffix(tr(" steps"));
  form->addRow(tr("Record"), m_steps);
  m_nextStep = new QRadioButton(tr("From the next step"));
  m_nextStep->setObjectName(QStringLiteral("profileNextStep"));
  m_nextStep->setChecked(true);
  form->addRow(tr("Start"), m_nextStep);
  auto* atRow = new QHBoxLayout;
  m_atStep = new QRadioButton(tr("After step"));
  m_atStep->setObjectName(QStringLiteral("profileAtStep"));
  m_firstStep = new QSpinBox;
  m_firstStep->setObjectName(QStringLiteral("profileFirstStep"));
  m_firstStep->setRange(clampedStep(step), std::numeric_limits<int>::max());
  m_firstStep->setValue(clampedStep(step) + 100);
  atRow->addWidget(m_atStep);
  atRow->addWidget(m_firstStep, 1);
  form->addRow(QString(), atRow);
  m_shapes = new QCheckBox(tr("Record input shapes (the table groups operators by shape)"));
  m_shapes->setObjectName(QStringLiteral("profileShapes"));
  m_shapes->setChecked(true);
  form->addRow(QString(), m_shapes);
  m_memory = new QCheckBox(tr("Record memory (bytes each operator allocates)"));
  m_memory->setObjectName(QStringLiteral("profileMemory"));
  m_memory->setChecked(true);
  form->addRow(QString(), m_memory);
  layout->addLayout(form);

  m_note = new QLabel;
  m_note->setObjectName(QStringLiteral("profileNote"));
  m_note->setWordWrap(true);
  layout->addWidget(m_note);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  m_ok = buttons->button(QDialogButtonBox::Ok);
  m_ok->setText(tr("Profile"));
  layout->addWidget(buttons);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(m_steps, &QSpinBox::valueChanged, this, &ProfileDialog::updateNote);
  connect(m_nextStep, &QRadioButton::toggled, this, &ProfileDialog::updateNote);
  connect(m_firstStep, &QSpinBox::valueChanged, this, [this] {
    m_atStep->setChecked(true);
    updateNote();
  });
  setCurrentStep(step);
}

void ProfileDialog::setCurrentStep(int64_t step) {
  m_step = step;
  m_current->setText(step > 0 ? tr("The run has done %1 steps.").arg(step)
                              : tr("The run has not reported a step yet."));
  // A step already past would mean the next step: the box does not offer it.
  QSignalBlocker block(m_firstStep);
  m_firstStep->setMinimum(clampedStep(step));
  updateNote();
}

void ProfileDialog::updateNote() {
  const int64_t after = m_atStep->isChecked() ? m_firstStep->value() : m_step;
  const int64_t last = after + m_steps->value();
  m_note->setText(
      tr("Records steps %1–%2 with LibTorch's profiler; they run a little slower while it records. "
         "The trace goes into the run folder's profile/ directory, the operator table and the "
         "step's phases into the Profile tab.")
          .arg(after + 1)
          .arg(last));
}

ProfileRequest ProfileDialog::request() const {
  ProfileRequest r;
  r.steps = m_steps->value();
  r.first_step = m_atStep->isChecked() ? m_firstStep->value() : -1;
  r.record_shapes = m_shapes->isChecked();
  r.profile_memory = m_memory->isChecked();
  r.source = "the window";
  return r;
}

void ProfileDialog::setSteps(int steps) {
  m_steps->setValue(steps);
}

void ProfileDialog::startAtNextStep() {
  m_nextStep->setChecked(true);
}

void ProfileDialog::startAtStep(int64_t step) {
  m_firstStep->setValue(clampedStep(step));
  m_atStep->setChecked(true);
}

void ProfileDialog::setRecordShapes(bool on) {
  m_shapes->setChecked(on);
}

void ProfileDialog::setProfileMemory(bool on) {
  m_memory->setChecked(on);
}

}  // namespace wb::gui
