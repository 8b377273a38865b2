#pragma once
// A one-line label that never widens its window: it asks for a few characters of width at least (its size
// hint stays the whole text), shows as much of its text as fits with "…" at the end, and shows the whole text
// in its tooltip while cut, above the tooltip the caller set. text() stays the whole text. For status and
// header lines whose length depends on the run (a pass name, a step count, a folder). Rich text is cut as its
// plain text.

#include <QLabel>

namespace wb::gui {

class ElidingLabel : public QLabel {
  Q_OBJECT

 public:
  explicit ElidingLabel(QWidget* parent = nullptr);
  explicit ElidingLabel(const QString& text, QWidget* parent = nullptr);

  QSize minimumSizeHint() const override;
  bool isCut() const;  // the label is narrower than its text

 protected:
  bool event(QEvent* event) override;
  void paintEvent(QPaintEvent* event) override;
};

}  // namespace wb::gui
