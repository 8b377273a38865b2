#include "window/new_from_pretrained_dialog.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QVBoxLayout>

#include "app/off_thread.h"
#include "widgets/screen_fit.h"

namespace wb::gui {
namespace {

// Long enough that a typed path is checked once, not per key; short enough to feel immediate.
constexpr int kPretrainedCheckDebounceMs = 300;
// The classes named in the summary line; the rest are counted.
constexpr size_t kPretrainedClassesNamed = 8;

// What the architecture combo shows for each preset it offers.
QString architectureLabel(ModelPreset preset) {
  switch (preset) {
    case ModelPreset::Resnet18:
      return NewFromPretrainedDialog::tr("ResNet-18");
    case ModelPreset::Resnet50:
      return NewFromPretrainedDialog::tr("ResNet-50");
    case ModelPreset::VitB16:
      return NewFromPretrainedDialog::tr("ViT-B/16");
    case ModelPreset::MobileNetV3Large:
      return NewFromPretrainedDialog::tr("MobileNetV3-Large");
    case ModelPreset::EfficientNetB0:
      return NewFromPretrainedDialog::tr("EfficientNet-B0");
    case ModelPreset::ConvNextTiny:
      return NewFromPretrainedDialog::tr("ConvNeXt-Tiny");
    case ModelPreset::Mlp:
    case ModelPreset::Cnn:
    case ModelPreset::Resnet:
    case ModelPreset::Vit:
      break;  // not offered: no weights exist for them
  }
  return QString::fromStdString(wordString(preset));
}

// "2 classes: cats (40), dogs (38)".
QString classesText(const PretrainedCheck& check) {
  QStringList named;
  for (size_t c = 0; c < check.class_names.size() && c < kPretrainedClassesNamed; ++c) {
    QString name = QString::fromStdString(check.class_names[c]);
    if (c < check.class_counts.size()) name += QStringLiteral(" (%1)").arg(check.class_counts[c]);
    named << name;
  }
  const size_t count = check.class_names.size();
  QString text = (count == 1 ? NewFromPretrainedDialog::tr("1 class: ")
                             : NewFromPretrainedDialog::tr("%1 classes: ").arg(count)) +
                 named.join(QStringLiteral(", "));
  if (count > kPretrainedClassesNamed) {
    text += NewFromPretrainedDialog::tr(" and %1 more").arg(count - kPretrainedClassesNamed);
  }
  return text;
}

}  // namespace

NewFromPretrainedDialog::NewFromPretrainedDialog(QWidget* parent) : QDialog(parent) {
  setObjectName(QStringLiteral("newFromPretrained"));
  setWindowTitle(tr("New from Pretrained"));
  m_classes = new QLabel(this);
  m_classes->setObjectName(QStringLiteral("pretrainedClasses"));
  m_classes->setWordWrap(true);
  m_report = new QPlainTextEdit(this);
  m_report->setObjectName(QStringLiteral("pretrainedReport"));
  m_report->setReadOnly(true);
  m_report->setLineWrapMode(QPlainTextEdit::WidgetWidth);
  m_report->setPlaceholderText(
      tr("The weights' load report: what loads by name, what is new, what does not fit."));
  m_report->setMinimumHeight(fontMetrics().lineSpacing() * 5);
  m_problem = new QLabel(this);
  m_problem->setObjectName(QStringLiteral("pretrainedProblem"));
  m_problem->setWordWrap(true);
  m_problem->setStyleSheet(QStringLiteral("color: #b91c1c;"));
  m_problem->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_problem->hide();
  m_status = new QLabel(this);
  m_status->setObjectName(QStringLiteral("pretrainedStatus"));
  auto* checkBox = new QGroupBox(tr("What a run will start from"), this);
  auto* checkLayout = new QVBoxLayout(checkBox);
  checkLayout->addWidget(m_classes);
  checkLayout->addWidget(m_report, 1);
  checkLayout->addWidget(m_problem);
  checkLayout->addWidget(m_status);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  m_ok = buttons->button(QDialogButtonBox::Ok);
  m_ok->setText(tr("Create Experiment"));
  m_ok->setObjectName(QStringLiteral("pretrainedCreate"));
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(buildFiles());
  layout->addWidget(buildTraining());
  layout->addWidget(checkBox, 1);
  layout->addWidget(buttons);

  m_debounce.setSingleShot(true);
  m_debounce.setInterval(kPretrainedCheckDebounceMs);
  connect(&m_debounce, &QTimer::timeout, this, &NewFromPretrainedDialog::startCheck);
  updateTrainingChoices();
  scheduleCheck();
  fitDialogToScreen(this, QSize(720, 560));
}

QWidget* NewFromPretrainedDialog::buildFiles() {
  auto* box = new QWidget(this);
  auto* form = new QFormLayout(box);
  form->setContentsMargins(0, 0, 0, 0);
  m_architecture = new QComboBox(box);
  m_architecture->setObjectName(QStringLiteral("pretrainedArchitecture"));
  for (ModelPreset preset : pretrainedArchitectures()) {
    m_architecture->addItem(architectureLabel(preset), static_cast<int>(preset));
  }
  m_architecture->setToolTip(
      tr("torchvision's architecture, module for module: its weights files load by name"));
  form->addRow(tr("&Architecture"), m_architecture);

  m_weights = new QLineEdit(box);
  m_weights->setObjectName(QStringLiteral("pretrainedWeights"));
  m_weights->setPlaceholderText(tr("empty: no weights, the model trains from scratch"));
  m_weights->setToolTip(
      tr("A .safetensors file (the Hugging Face hub, timm), a torch.save(state_dict) file, a "
         "TorchScript file, or a run folder of ours"));
  auto* weightsRow = new QHBoxLayout;
  weightsRow->addWidget(m_weights, 1);
  weightsRow->addWidget(browseButton(QStringLiteral("pretrainedBrowseWeights")));
  auto* weightsLabel = new QLabel(tr("&Weights file"), box);
  weightsLabel->setBuddy(m_weights);  // a row of a layout gets no buddy of its own: Alt+W needs one
  form->addRow(weightsLabel, weightsRow);

  m_folder = new QLineEdit(box);
  m_folder->setObjectName(QStringLiteral("pretrainedFolder"));
  m_folder->setPlaceholderText(tr("a folder with one subfolder of images per class"));
  auto* folderRow = new QHBoxLayout;
  folderRow->addWidget(m_folder, 1);
  folderRow->addWidget(browseButton(QStringLiteral("pretrainedBrowseFolder")));
  auto* folderLabel = new QLabel(tr("&Image folder"), box);
  folderLabel->setBuddy(m_folder);
  form->addRow(folderLabel, folderRow);

  connect(m_architecture, qOverload<int>(&QComboBox::currentIndexChanged), this,
          &NewFromPretrainedDialog::scheduleCheck);
  connect(m_weights, &QLineEdit::textChanged, this, [this] {
    updateTrainingChoices();
    scheduleCheck();
  });
  connect(m_folder, &QLineEdit::textChanged, this, &NewFromPretrainedDialog::scheduleCheck);
  return box;
}

QPushButton* NewFromPretrainedDialog::browseButton(const QString& objectName) {
  auto* button = new QPushButton(tr("Browse…"), this);
  button->setObjectName(objectName);
  const bool weights = objectName == QStringLiteral("pretrainedBrowseWeights");
  connect(button, &QPushButton::clicked, this,
          [this, weights] { weights ? browseWeights() : browseFolder(); });
  return button;
}

QWidget* NewFromPretrainedDialog::buildTraining() {
  auto* box = new QGroupBox(tr("What trains"), this);
  auto* layout = new QVBoxLayout(box);
  m_trainHead = new QRadioButton(tr("Only the new &head (the body frozen)"), box);
  m_trainHead->setObjectName(QStringLiteral("pretrainedTrainHead"));
  m_trainHead->setToolTip(tr("model.freeze \"body\": fast, and enough when the photos resemble ImageNet's"));
  m_trainBodySlower = new QRadioButton(tr("Whole model, the &body at 0.1× the head's learning rate"), box);
  m_trainBodySlower->setObjectName(QStringLiteral("pretrainedTrainBodySlower"));
  m_trainBodySlower->setToolTip(
      tr("optimizer.lr becomes the body's rate and the head gets a parameter group at %1× it")
          .arg(kPretrainedHeadLrFactor));
  m_trainWhole = new QRadioButton(tr("Whole &model at one learning rate"), box);
  m_trainWhole->setObjectName(QStringLiteral("pretrainedTrainWhole"));
  m_training = new QButtonGroup(box);
  m_training->addButton(m_trainHead, static_cast<int>(PretrainedTraining::Head));
  m_training->addButton(m_trainBodySlower, static_cast<int>(PretrainedTraining::BodySlower));
  m_training->addButton(m_trainWhole, static_cast<int>(PretrainedTraining::Whole));
  m_trainHead->setChecked(true);
  for (QRadioButton* button : {m_trainHead, m_trainBodySlower, m_trainWhole}) layout->addWidget(button);
  connect(m_training, &QButtonGroup::idClicked, this, &NewFromPretrainedDialog::scheduleCheck);
  return box;
}

void NewFromPretrainedDialog::browseWeights() {
  const QString start = m_weights->text().isEmpty() ? QDir::homePath() : QFileInfo(m_weights->text()).path();
  const QString file =
      QFileDialog::getOpenFileName(this, tr("Weights to start from"), start,
                                   tr("Weights files (*.safetensors *.pt *.pth *.bin);;All files (*)"));
  if (!file.isEmpty()) m_weights->setText(QDir::toNativeSeparators(file));
}

void NewFromPretrainedDialog::browseFolder() {
  const QString start = m_folder->text().isEmpty() ? QDir::homePath() : m_folder->text();
  const QString folder = QFileDialog::getExistingDirectory(this, tr("Image folder"), start);
  if (!folder.isEmpty()) m_folder->setText(QDir::toNativeSeparators(folder));
}

PretrainedDraft NewFromPretrainedDialog::draft() const {
  PretrainedDraft d;
  d.architecture = static_cast<ModelPreset>(m_architecture->currentData().toInt());
  // Absolute, so the experiment trains from wherever it is saved.
  const QString weights = m_weights->text().trimmed();
  if (!weights.isEmpty()) d.weights = QFileInfo(weights).absoluteFilePath().toStdString();
  const QString folder = m_folder->text().trimmed();
  if (!folder.isEmpty()) d.image_folder = QFileInfo(folder).absoluteFilePath().toStdString();
  d.training = static_cast<PretrainedTraining>(m_training->checkedId());
  d.head = m_check.head;
  return d;
}

Experiment NewFromPretrainedDialog::experiment() const {
  return draft().experiment();
}

void NewFromPretrainedDialog::scheduleCheck() {
  m_ok->setEnabled(false);
  m_status->setText(tr("Checking…"));
  m_debounce.start();
}

void NewFromPretrainedDialog::startCheck() {
  if (m_running) {
    m_rerun = true;
    return;
  }
  m_running = true;
  m_rerun = false;
  runOffThread(
      this, [d = draft()] { return checkPretrained(d); },
      [this](const PretrainedCheck& check) {
        m_running = false;
        if (m_debounce.isActive()) return;  // more typing: its own check follows
        if (m_rerun) {
          startCheck();
          return;
        }
        showCheck(check);
      });
}

void NewFromPretrainedDialog::showCheck(const PretrainedCheck& check) {
  m_check = check;
  m_classes->setText(check.folder_problem.empty() ? classesText(check) : QString());
  m_classes->setVisible(check.folder_problem.empty());
  QStringList lines;
  for (const std::string& line : check.weights_lines) lines << QString::fromStdString(line);
  if (m_weights->text().trimmed().isEmpty()) {
    lines << tr("No weights file: the model starts from a random initialization and trains from scratch.");
  }
  m_report->setPlainText(lines.join(QLatin1Char('\n')));
  QString problem;
  if (m_folder->text().trimmed().isEmpty()) {
    // Not a problem yet: what is still to do, in the status line.
  } else if (!check.folder_problem.empty()) {
    problem = tr("Image folder: %1").arg(QString::fromStdString(check.folder_problem));
  } else if (!check.model_problem.empty()) {
    problem = tr("Model: %1").arg(QString::fromStdString(check.model_problem));
  } else if (!check.weights_problem.empty()) {
    problem = tr("Weights: %1").arg(QString::fromStdString(check.weights_problem));
  }
  m_problem->setText(problem);
  m_problem->setVisible(!problem.isEmpty());
  m_status->setText(check.ok() ? tr("Ready: Create Experiment makes a new, unsaved experiment.")
                    : m_folder->text().trimmed().isEmpty()
                        ? tr("Choose the image folder: one subfolder of JPEG or PNG images per class.")
                        : QString());
  m_ok->setEnabled(check.ok());
  emit checked();
}

void NewFromPretrainedDialog::updateTrainingChoices() {
  const bool hasWeights = !m_weights->text().trimmed().isEmpty();
  m_trainHead->setEnabled(hasWeights);
  m_trainBodySlower->setEnabled(hasWeights);
  if (!hasWeights && !m_trainWhole->isChecked()) {
    m_trainWhole->setChecked(true);
    m_wholeForced = true;
  } else if (hasWeights && m_wholeForced) {
    m_trainHead->setChecked(true);
    m_wholeForced = false;
  }
}

}  // namespace wb::gui
