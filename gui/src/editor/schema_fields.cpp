#include "editor/schema_fields.h"

#include <QFormLayout>
#include <QLineEdit>

#include "editor/form_fields.h"
#include "editor/json_path.h"
#include "workbench/experiment_keys.h"

namespace wb::gui {
namespace schema_fields {

// Whether a field edits the key, a key above it or one below it.
bool covered(const FormFields& fields, const std::string& path) {
  for (const auto& b : fields.bindings()) {
    if (pathIsUnder(b->path(), path) || pathIsUnder(path, b->path())) return true;
  }
  return false;
}

}  // namespace schema_fields

SchemaFields::SchemaFields(FormFields& fields) {
  for (const ExperimentKey& key : experimentKeys()) {
    const std::string& leaf = key.path;
    if (schema_fields::covered(fields, leaf)) continue;
    QFormLayout* form = fields.sectionForm(leaf.substr(0, leaf.find('.')));
    if (form == nullptr) form = fields.sectionForm("output");
    QString label = QString::fromStdString(leaf.substr(leaf.rfind('.') + 1));
    label.replace(QLatin1Char('_'), QLatin1Char(' '));
    label[0] = label[0].toUpper();
    const QString help = tr("See docs/experiment.md for %1.").arg(QString::fromStdString(leaf));
    switch (key.kind) {
      case ExperimentKeyKind::Boolean:
        fields.addBool(form, leaf, label, help);
        break;
      case ExperimentKeyKind::Integer:
        fields.addInteger(form, leaf, label, help);
        break;
      case ExperimentKeyKind::Number:
        fields.addNumber(form, leaf, label, help);
        break;
      case ExperimentKeyKind::String:
        if (key.choices.empty()) {
          fields.addText(form, leaf, label, help);
        } else {
          fields.addChoice(form, leaf, label, {}, help);
        }
        break;
      case ExperimentKeyKind::List:
      case ExperimentKeyKind::Layers:
        fields.add(form, label, std::make_unique<JsonBinding>(leaf, new QLineEdit), help);
        break;
    }
  }
}

}  // namespace wb::gui
