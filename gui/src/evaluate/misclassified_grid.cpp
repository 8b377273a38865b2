#include "evaluate/misclassified_grid.h"

#include <algorithm>

#include "widgets/pixel_image.h"

namespace wb::gui {
namespace {

constexpr int kThumb = 84;  // 28 px Fashion-MNIST images at 3x, 32 px CIFAR-10 at ~2.6x

QString className(const QStringList& names, int64_t c) {
  return c >= 0 && c < names.size() ? names[static_cast<int>(c)] : QString::number(c);
}

}  // namespace

MisclassifiedGrid::MisclassifiedGrid(QWidget* parent) : QListWidget(parent) {
  setObjectName(QStringLiteral("misclassifiedGrid"));
  setViewMode(QListView::IconMode);
  // Icon mode lays a label out no wider than the icon: the icon is as wide as the cell (the thumbnail centred
  // in it, see setSamples), so "Ankle boot 99.8 %" and "true: T-shirt/top" fit on a line each.
  const int cell =
      std::max(kThumb, fontMetrics().horizontalAdvance(QStringLiteral("Ankle boot 99.9 %"))) + 16;
  setIconSize(QSize(cell, kThumb));
  setGridSize(QSize(cell + 12, kThumb + 2 * fontMetrics().height() + 14));
  setResizeMode(QListView::Adjust);
  setMovement(QListView::Static);
  setWrapping(true);
  setWordWrap(true);
  setUniformItemSizes(true);
  setSelectionMode(QAbstractItemView::SingleSelection);
  setSpacing(2);
}

QImage MisclassifiedGrid::sampleImage(const MisclassifiedSample& s) {
  return imageFromPixels(s.pixels, s.width, s.height, s.channels);
}

void MisclassifiedGrid::setSamples(const std::vector<MisclassifiedSample>& samples,
                                   const QStringList& classNames) {
  clear();
  for (const MisclassifiedSample& s : samples) {
    const QString predicted = className(classNames, s.predicted);
    const QString truth = className(classNames, s.truth);
    auto* item = new QListWidgetItem(this);
    const QImage image = sampleImage(s);
    if (!image.isNull()) item->setIcon(QIcon(thumbnailPixmap(image, kThumb, iconSize())));
    item->setText(tr("%1 %2 %\ntrue: %3").arg(predicted).arg(s.confidence * 100, 0, 'f', 1).arg(truth));
    QString tip = tr("Test sample #%1\nPredicted %2 with probability %3 %\nTrue class %4 (probability %5 %)")
                      .arg(s.index)
                      .arg(predicted)
                      .arg(s.confidence * 100, 0, 'f', 1)
                      .arg(truth)
                      .arg(s.truth_probability * 100, 0, 'f', 1);
    if (!s.file.empty()) tip += QLatin1Char('\n') + QString::fromStdString(s.file);
    item->setToolTip(tip);
    item->setData(Qt::UserRole, static_cast<qlonglong>(s.index));
    item->setTextAlignment(Qt::AlignHCenter | Qt::AlignTop);
  }
}

}  // namespace wb::gui
