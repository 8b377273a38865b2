#include "data_view/data_preview_view.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>

#include "app/off_thread.h"
#include "editor/experiment_editor.h"
#include "widgets/pixel_image.h"
#include "window/error_fixes.h"
#include "workbench/errors.h"

namespace wb::gui {
namespace {

constexpr int kDataPreviewDebounceMs = 400;
constexpr int kDataPreviewSamples = 12;
constexpr int kDataThumb = 96;
constexpr size_t kBadFilesNamed = 4;  // in the note; the tooltip lists them all with the decoder's reasons

// "Bag/truncated.jpg": a file as the note names it, its class folder with it.
QString shortFileName(const std::string& file) {
  const QFileInfo info(QString::fromStdString(file));
  return info.dir().dirName() + QLatin1Char('/') + info.fileName();
}

struct BadFilesOutcome {
  std::vector<UnreadableFile> bad;
  QString error;  // the preview names what cannot be read; this only keeps the note hidden
};

// The data section and the seed (the augmentation's draws) decide the preview; other edits leave it alone.
std::string dataPreviewKey(const Experiment& e) {
  const nlohmann::json doc = experimentToJson(e);
  return doc.value("data", nlohmann::json()).dump() + std::to_string(e.seed);
}

QString dataShapeText(const std::vector<int64_t>& shape) {
  QStringList parts;
  for (const int64_t d : shape) parts << QString::number(d);
  return parts.join(QStringLiteral(" × "));
}

}  // namespace

DataPreviewView::DataPreviewView(ExperimentEditor* editor, QWidget* parent)
    : QWidget(parent), m_editor(editor) {
  setObjectName(QStringLiteral("dataPreviewView"));
  m_summary = new QLabel(this);
  m_summary->setObjectName(QStringLiteral("dataSummary"));
  m_summary->setWordWrap(true);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_summary->setAlignment(Qt::AlignTop | Qt::AlignLeft);

  m_classes = new QTableWidget(0, 2, this);
  m_classes->setObjectName(QStringLiteral("dataClassTable"));
  m_classes->setHorizontalHeaderLabels({tr("Class"), tr("Samples")});
  m_classes->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_classes->verticalHeader()->setVisible(false);
  m_classes->horizontalHeader()->setStretchLastSection(true);
  m_classes->setAlternatingRowColors(true);

  m_samples = new QListWidget(this);
  m_samples->setObjectName(QStringLiteral("dataSampleStrip"));
  m_samples->setViewMode(QListView::IconMode);
  const QSize cell(kDataThumb + 8, kDataThumb);
  m_samples->setIconSize(cell);
  m_samples->setGridSize(QSize(cell.width() + 16, kDataThumb + fontMetrics().height() + 16));
  m_samples->setResizeMode(QListView::Adjust);
  m_samples->setMovement(QListView::Static);
  m_samples->setWrapping(true);
  m_samples->setUniformItemSizes(true);

  m_badFiles = new QLabel(this);
  m_badFiles->setObjectName(QStringLiteral("dataBadFiles"));
  m_badFiles->setWordWrap(true);
  m_badFiles->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_skipBadFiles = new QPushButton(tr("Skip Them"), this);
  m_skipBadFiles->setObjectName(QStringLiteral("dataSkipBadFiles"));
  m_skipBadFiles->setToolTip(tr(
      "Train without the files that cannot be read: sets data.images.bad_files to skip in the experiment"));
  connect(m_skipBadFiles, &QPushButton::clicked, this,
          [this] { m_editor->setValue("data.images.bad_files", wordString(BadFilePolicy::Skip)); });
  auto* badRow = new QHBoxLayout;
  badRow->addWidget(m_badFiles, 1);
  badRow->addWidget(m_skipBadFiles, 0, Qt::AlignTop);
  m_badFiles->hide();
  m_skipBadFiles->hide();

  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(m_classes);
  split->addWidget(m_samples);
  split->setStretchFactor(1, 3);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(8, 8, 8, 8);
  layout->addWidget(m_summary);
  layout->addLayout(badRow);
  layout->addWidget(split, 1);

  m_debounce.setSingleShot(true);
  m_debounce.setInterval(kDataPreviewDebounceMs);
  connect(&m_debounce, &QTimer::timeout, this, &DataPreviewView::compute);
  connect(&m_watcher, &QFutureWatcher<DataPreviewOutcome>::finished, this, &DataPreviewView::onComputed);
  connect(m_editor, &ExperimentEditor::edited, this, [this] { m_debounce.start(); });
  connect(m_editor, &ExperimentEditor::validated, this, [this] { m_debounce.start(); });
  m_debounce.start();
}

void DataPreviewView::compute() {
  const std::optional<Experiment> experiment = m_editor->experiment();
  if (!experiment) {
    showMessage(
        tr("The experiment has problems, marked at the fields of the Experiment form; the data preview "
           "follows once they are fixed."));
    emit previewShown();
    return;
  }
  std::string key = dataPreviewKey(*experiment);
  if (m_running) {
    m_again = key != m_runningKey;
    return;
  }
  if (key == m_shownKey) {
    emit previewShown();
    return;
  }
  m_running = true;
  m_runningKey = std::move(key);
  scanForBadFiles(*experiment);
  m_summary->setText(tr("Reading the data…"));
  m_watcher.setFuture(QtConcurrent::run([e = *experiment] {
    DataPreviewOutcome outcome;
    try {
      outcome.preview = previewData(e, kDataPreviewSamples);
    } catch (const UserError& error) {
      outcome.error = QString::fromStdString(error.what());
      if (!error.hint().empty())
        outcome.error += tr("\nWhat to do: %1").arg(QString::fromStdString(error.hint()));
    } catch (const std::exception& error) {  // the tab shows it; the window carries on
      outcome.error = QString::fromStdString(error.what());
    }
    return outcome;
  }));
}

void DataPreviewView::onComputed() {
  m_running = false;
  const DataPreviewOutcome outcome = m_watcher.result();
  if (m_again) {
    m_again = false;
    compute();  // an edit came meanwhile: this answer is stale
    return;
  }
  show(outcome);
  m_shownKey = outcome.error.isEmpty() ? m_runningKey : std::string();
  emit previewShown();
}

void DataPreviewView::show(const DataPreviewOutcome& outcome) {
  if (!outcome.error.isEmpty()) {
    showMessage(tr("The data cannot be read:\n%1").arg(outcome.error));
    return;
  }
  const DataPreview& p = outcome.preview;
  QString text = tr("<b>%1</b>").arg(QString::fromStdString(wordString(p.dataset)).toHtmlEscaped());
  if (!p.source.empty()) text += tr(" from %1").arg(QString::fromStdString(p.source).toHtmlEscaped());
  text +=
      tr(" · %1 training samples (before the limit and the validation share) · model input %2 · %3 classes")
          .arg(p.train_samples)
          .arg(dataShapeText(p.sample_shape))
          .arg(p.class_names.size());
  if (!p.preprocessing.empty()) {
    text += tr("<br>Preprocessing: %1").arg(QString::fromStdString(p.preprocessing).toHtmlEscaped());
  }
  text += tr("<br>Loader: %1").arg(QString::fromStdString(p.loader).toHtmlEscaped());
  m_summary->setText(text);

  m_classes->setRowCount(static_cast<int>(p.class_names.size()));
  for (size_t c = 0; c < p.class_names.size(); ++c) {
    const int row = static_cast<int>(c);
    m_classes->setItem(row, 0, new QTableWidgetItem(QString::fromStdString(p.class_names[c])));
    auto* count = new QTableWidgetItem(c < p.class_counts.size() ? QString::number(p.class_counts[c])
                                                                 : QStringLiteral("—"));
    count->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_classes->setItem(row, 1, count);
  }
  m_classes->resizeColumnsToContents();
  m_classes->show();

  m_samples->clear();
  for (const PreviewSample& s : p.samples) {
    auto* item = new QListWidgetItem(m_samples);
    item->setIcon(QIcon(thumbnailPixmap(imageFromPixels(s.pixels, s.width, s.height, s.channels), kDataThumb,
                                        m_samples->iconSize())));
    item->setText(QString::fromStdString(s.class_name));
    item->setToolTip(
        tr("%1\n%2 × %3 after preprocessing").arg(QString::fromStdString(s.file)).arg(s.width).arg(s.height));
    item->setTextAlignment(Qt::AlignHCenter | Qt::AlignTop);
  }
  m_samples->setVisible(!p.samples.empty());
}

void DataPreviewView::showMessage(const QString& text) {
  m_summary->setText(text.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>")));
  m_classes->hide();
  m_samples->hide();
  m_shownKey.clear();
}

void DataPreviewView::scanForBadFiles(const Experiment& experiment) {
  const int generation = ++m_scanGeneration;
  showBadFiles({}, QString(), false);
  if (experiment.data.dataset != DatasetName::ImageFolder) {
    m_scanning = false;
    return;
  }
  m_scanning = true;
  const bool skipped = experiment.data.images.bad_files == BadFilePolicy::Skip;
  runOffThread(
      this,
      [e = experiment] {
        BadFilesOutcome out;
        try {
          out.bad = findUnreadableFiles(e);
        } catch (const std::exception& error) {  // the preview says what cannot be read
          out.error = QString::fromStdString(error.what());
        }
        return out;
      },
      [this, generation, skipped](const BadFilesOutcome& out) {
        if (generation != m_scanGeneration) return;  // the data section changed meanwhile
        m_scanning = false;
        showBadFiles(out.bad, out.error, skipped);
      });
}

void DataPreviewView::showBadFiles(const std::vector<UnreadableFile>& bad, const QString& error,
                                   bool skipped) {
  const bool shown = error.isEmpty() && !bad.empty();
  m_badFiles->setVisible(shown);
  m_skipBadFiles->setVisible(shown && !skipped);
  if (!shown) {
    m_badFiles->clear();
    return;
  }
  QStringList names, reasons;
  for (size_t i = 0; i < bad.size(); ++i) {
    if (i < kBadFilesNamed) names << shortFileName(bad[i].file);
    reasons << QString::fromStdString(bad[i].reason);
  }
  QString list = names.join(QStringLiteral(", "));
  if (bad.size() > kBadFilesNamed) list += tr(" and %1 more").arg(bad.size() - kBadFilesNamed);
  const QString field = fieldLabel(m_editor, "data.images.bad_files");
  const QString count =
      bad.size() == 1 ? tr("1 file cannot be read") : tr("%1 files cannot be read").arg(bad.size());
  m_badFiles->setText(skipped ? tr("%1 and will be skipped (%2: skip): %3").arg(count, field, list)
                              : tr("%1: %2. A run stops on them; Skip Them sets %3 to skip.")
                                    .arg(count, list, field.isEmpty() ? tr("data.images.bad_files") : field));
  m_badFiles->setToolTip(reasons.join(QLatin1Char('\n')));
  m_badFiles->setStyleSheet(skipped ? QString() : QStringLiteral("color: #b45309;"));
}

QString DataPreviewView::summaryText() const {
  return m_summary->text();
}

}  // namespace wb::gui
