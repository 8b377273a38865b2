#include "editor/unknown_key_bar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace wb::gui {

UnknownKeyBar::UnknownKeyBar(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("unknownKeyBar"));
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(0, 0, 0, 0);
  m_text = new QLabel(this);
  m_text->setWordWrap(true);
  m_rename = new QPushButton(this);
  m_rename->setObjectName(QStringLiteral("renameUnknownKey"));
  m_remove = new QPushButton(this);
  m_remove->setObjectName(QStringLiteral("removeUnknownKey"));
  row->addWidget(m_text, 1);
  row->addWidget(m_rename);
  row->addWidget(m_remove);
  setVisible(false);
  connect(m_rename, &QPushButton::clicked, this, [this] {
    if (m_key) emit renameRequested(QString::fromStdString(m_key->path));
  });
  connect(m_remove, &QPushButton::clicked, this, [this] {
    if (m_key) emit removeRequested(QString::fromStdString(m_key->path));
  });
}

void UnknownKeyBar::offer(const std::vector<UnknownKey>& unknown) {
  std::optional<UnknownKey> key;
  for (const UnknownKey& k : unknown) {
    if (!key || (m_key && k.path == m_key->path)) key = k;
  }
  showKey(key);
}

void UnknownKeyBar::focusKey(const UnknownKey& key) {
  showKey(key);
  (key.suggestion.empty() ? m_remove : m_rename)->setFocus(Qt::OtherFocusReason);
}

void UnknownKeyBar::showKey(const std::optional<UnknownKey>& key) {
  m_key = key;
  setVisible(key.has_value());
  if (!key) return;
  m_text->setText(
      tr("Unknown key \"%1\"%2: the engine refuses the file until it is renamed or removed.")
          .arg(QString::fromStdString(key->path),
               key->parent.empty() ? QString() : tr(" in %1").arg(QString::fromStdString(key->parent))));
  m_rename->setVisible(!key->suggestion.empty());
  m_rename->setText(tr("Rename to \"%1\"").arg(QString::fromStdString(key->suggestion)));
  m_rename->setToolTip(tr("Its values move to \"%1\" (they win over the form's current ones).")
                           .arg(QString::fromStdString(key->suggestion)));
  m_remove->setText(tr("Remove \"%1\"").arg(QString::fromStdString(key->key)));
  m_remove->setToolTip(tr("Drop the key and everything under it."));
}

}  // namespace wb::gui
