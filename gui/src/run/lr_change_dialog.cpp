#include "run/lr_change_dialog.h"

#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QVBoxLayout>
#include <cmath>

namespace wb::gui {

LrChangeDialog::LrChangeDialog(double current_lr, int64_t step, QWidget* parent)
    : QDialog(parent), m_currentLr(current_lr) {
  setObjectName(QStringLiteral("lrChangeDialog"));
  setWindowTitle(tr("Change Learning Rate"));
  auto* layout = new QVBoxLayout(this);
  m_current = new QLabel;
  m_current->setObjectName(QStringLiteral("currentLr"));
  layout->addWidget(m_current);

  auto* form = new QFormLayout;
  m_scaleMode = new QRadioButton(tr("Multiply the schedule by"));
  m_scaleMode->setObjectName(QStringLiteral("scaleMode"));
  m_scaleMode->setChecked(true);
  m_factor = new QDoubleSpinBox;
  m_factor->setObjectName(QStringLiteral("factor"));
  m_factor->setDecimals(4);
  m_factor->setRange(0.0001, 1000);
  m_factor->setSingleStep(0.1);
  m_factor->setValue(0.5);
  form->addRow(m_scaleMode, m_factor);
  m_constantMode = new QRadioButton(tr("Set a constant learning rate"));
  m_constantMode->setObjectName(QStringLiteral("constantMode"));
  m_constant = new QLineEdit(current_lr > 0 ? QString::number(current_lr, 'g', 6) : QStringLiteral("0.001"));
  m_constant->setObjectName(QStringLiteral("constantLr"));
  form->addRow(m_constantMode, m_constant);
  layout->addLayout(form);

  m_preview = new QLabel;
  m_preview->setObjectName(QStringLiteral("lrPreview"));
  m_preview->setWordWrap(true);
  layout->addWidget(m_preview);
  auto* note =
      new QLabel(tr("From the next step on, on every device; the change is marked on the charts, "
                    "logged, and kept in checkpoints."));
  note->setWordWrap(true);
  layout->addWidget(note);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  m_ok = buttons->button(QDialogButtonBox::Ok);
  m_ok->setText(tr("Apply"));
  layout->addWidget(buttons);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  setCurrent(current_lr, step);
  connect(m_scaleMode, &QRadioButton::toggled, this, &LrChangeDialog::updatePreview);
  connect(m_factor, &QDoubleSpinBox::valueChanged, this, [this] {
    m_scaleMode->setChecked(true);
    updatePreview();
  });
  connect(m_constant, &QLineEdit::textEdited, this, [this] {
    m_constantMode->setChecked(true);
    updatePreview();
  });
  updatePreview();
}

bool LrChangeDialog::constantValue(double& lr) const {
  bool ok = false;
  lr = m_constant->text().trimmed().toDouble(&ok);
  return ok && lr > 0 && std::isfinite(lr);
}

void LrChangeDialog::setCurrent(double current_lr, int64_t step) {
  m_currentLr = current_lr;
  m_current->setText(current_lr > 0 ? tr("The run trains with a learning rate of %1 (step %2).")
                                          .arg(QString::number(current_lr, 'g', 6))
                                          .arg(step)
                                    : tr("The run has not reported a step yet."));
  updatePreview();
}

void LrChangeDialog::updatePreview() {
  if (m_scaleMode->isChecked()) {
    const double k = m_factor->value();
    m_preview->setText(m_currentLr > 0 ? tr("Learning rate ×%1: %2 now, and the schedule's shape after it.")
                                             .arg(k)
                                             .arg(QString::number(m_currentLr * k, 'g', 6))
                                       : tr("Learning rate ×%1 from the next step on.").arg(k));
    m_ok->setEnabled(true);
    return;
  }
  double lr = 0;
  const bool valid = constantValue(lr);
  m_preview->setText(valid ? tr("A constant %1 from the next step on, in place of the schedule.")
                                 .arg(QString::number(lr, 'g', 6))
                           : tr("The learning rate must be a number greater than 0, e.g. 3e-4."));
  m_ok->setEnabled(valid);
}

LrChange LrChangeDialog::change() const {
  LrChange c;
  c.source = "the window";
  if (m_scaleMode->isChecked()) {
    c.kind = LrChange::Kind::Scale;
    c.value = m_factor->value();
  } else {
    c.kind = LrChange::Kind::Constant;
    constantValue(c.value);
  }
  return c;
}

void LrChangeDialog::setScale(double factor) {
  m_factor->setValue(factor);
  m_scaleMode->setChecked(true);
  updatePreview();
}

void LrChangeDialog::setConstant(double lr) {
  m_constant->setText(QString::number(lr, 'g', 10));
  m_constantMode->setChecked(true);
  updatePreview();
}

}  // namespace wb::gui
