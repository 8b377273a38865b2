#pragma once
// The fix of a key the experiment does not have ("trian"), under the issue list: no field shows such a key,
// so this bar says which it is and offers to rename it to the engine's suggestion or to remove it. It shows
// one key at a time.

#include <QString>
#include <QWidget>
#include <optional>
#include <vector>

#include "editor/unknown_key.h"

class QLabel;
class QPushButton;

namespace wb::gui {

class UnknownKeyBar : public QWidget {
  Q_OBJECT

 public:
  explicit UnknownKeyBar(QWidget* parent = nullptr);

  // Keeps the key it shows while that key is still unknown, else shows the first of `unknown`; hides with
  // none.
  void offer(const std::vector<UnknownKey>& unknown);
  // Shows `key` and focuses its fix: the rename where there is a suggestion, else the removal.
  void focusKey(const UnknownKey& key);

 signals:
  void renameRequested(const QString& path);
  void removeRequested(const QString& path);

 private:
  void showKey(const std::optional<UnknownKey>& key);

  QLabel* m_text;
  QPushButton* m_rename;
  QPushButton* m_remove;
  std::optional<UnknownKey> m_key;
};

}  // namespace wb::gui
