#include "evaluate/misclassified_grid.h"

#include <algorithm>

#include <QPainter>

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
  const int cell = std::max(kThumb, fontMetrics().horizontalAdvance(QStringLiteral("Ankle boot 99.9 %"))) + 16;
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
  if (s.pixels.empty() || s.width <= 0 || s.height <= 0) return {};
  const QImage::Format format = s.channels == 3 ? QImage::Format_RGB888 : QImage::Format_Grayscale8;
  const int bytesPerLine = s.width * std::max(1, s.channels);
  // Wraps the report's bytes, then copies: the image outlives nothing it points into.
  return QImage(s.pixels.data(), s.width, s.height, bytesPerLine, format).copy();
}

void MisclassifiedGrid::setSamples(const std::vector<MisclassifiedSample>& samples, const QStringList& classNames) {
  clear();
  for (const MisclassifiedSample& s : samples) {
    const QString predicted = className(classNames, s.predicted);
    const QString truth = className(classNames, s.truth);
    auto* item = new QListWidgetItem(this);
    const QImage image = sampleImage(s);
    if (!image.isNull()) {
      // Nearest-neighbour: the pixels stay sharp squares, as the model saw them. Centred on a transparent
      // pixmap as wide as the cell: the label gets no wider than the icon's pixmap.
      const QImage thumb = image.scaled(kThumb, kThumb, Qt::KeepAspectRatio, Qt::FastTransformation);
      QPixmap padded(iconSize());
      padded.fill(Qt::transparent);
      QPainter painter(&padded);
      painter.drawImage((padded.width() - thumb.width()) / 2, (padded.height() - thumb.height()) / 2, thumb);
      painter.end();
      item->setIcon(QIcon(padded));
    }
    item->setText(tr("%1 %2 %\ntrue: %3").arg(predicted).arg(s.confidence * 100, 0, 'f', 1).arg(truth));
    item->setToolTip(tr("Test sample #%1\nPredicted %2 with probability %3 %\nTrue class %4 (probability %5 %)")
                         .arg(s.index)
                         .arg(predicted)
                         .arg(s.confidence * 100, 0, 'f', 1)
                         .arg(truth)
                         .arg(s.truth_probability * 100, 0, 'f', 1));
    item->setData(Qt::UserRole, static_cast<qlonglong>(s.index));
    item->setTextAlignment(Qt::AlignHCenter | Qt::AlignTop);
  }
}

}  // namespace wb::gui
