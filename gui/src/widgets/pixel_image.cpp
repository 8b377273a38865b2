#include "widgets/pixel_image.h"

#include <QPainter>
#include <algorithm>

namespace wb::gui {

QImage imageFromPixels(const std::vector<uint8_t>& pixels, int width, int height, int channels) {
  if (pixels.empty() || width <= 0 || height <= 0) return {};
  const QImage::Format format = channels == 3 ? QImage::Format_RGB888 : QImage::Format_Grayscale8;
  const int bytesPerLine = width * std::max(1, channels);
  // Wraps the bytes, then copies: the image outlives nothing it points into.
  return QImage(pixels.data(), width, height, bytesPerLine, format).copy();
}

QPixmap thumbnailPixmap(const QImage& image, int side, const QSize& cell) {
  QPixmap padded(cell);
  padded.fill(Qt::transparent);
  if (image.isNull()) return padded;
  const QImage thumb = image.scaled(side, side, Qt::KeepAspectRatio, Qt::FastTransformation);
  QPainter painter(&padded);
  painter.drawImage((padded.width() - thumb.width()) / 2, (padded.height() - thumb.height()) / 2, thumb);
  painter.end();
  return padded;
}

}  // namespace wb::gui
