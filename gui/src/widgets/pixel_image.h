#pragma once
// The engine's 8-bit pixels (height x width x channels, 1 grey or 3 RGB) as Qt images, and the thumbnails the
// evaluation's mistakes and the Data tab's samples show them as.

#include <QImage>
#include <QPixmap>
#include <QSize>
#include <cstdint>
#include <vector>

namespace wb::gui {

// A copy of the pixels; a null image when there are none.
QImage imageFromPixels(const std::vector<uint8_t>& pixels, int width, int height, int channels);

// `image` scaled to fit `side` x `side` (nearest neighbour: pixels stay sharp squares, as the model saw
// them), centred on a transparent pixmap of `cell` (an icon-mode list lays its label out no wider than the
// icon).
QPixmap thumbnailPixmap(const QImage& image, int side, const QSize& cell);

}  // namespace wb::gui
