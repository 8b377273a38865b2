#pragma once
// A grid of test images the model got wrong: each thumbnail (the pixels as the file holds them, enlarged
// without smoothing) with what the model predicted, how sure it was, and the true class.

#include <QImage>
#include <QListWidget>
#include <QStringList>
#include <vector>

#include "workbench/evaluation_report.h"

namespace wb::gui {

class MisclassifiedGrid : public QListWidget {
  Q_OBJECT

 public:
  explicit MisclassifiedGrid(QWidget* parent = nullptr);

  void setSamples(const std::vector<MisclassifiedSample>& samples, const QStringList& classNames);
  // The sample's pixels as an image (grayscale or RGB); null when the data are not images.
  static QImage sampleImage(const MisclassifiedSample& sample);
};

}  // namespace wb::gui
