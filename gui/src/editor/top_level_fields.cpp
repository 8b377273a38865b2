#include "editor/top_level_fields.h"

#include <QLineEdit>

#include "editor/form_fields.h"

namespace wb::gui {

TopLevelFields::TopLevelFields(FormFields& fields, QFormLayout* form) {
  FieldBinding* name =
      fields.addText(form, "name", tr("Name"),
                     tr("The run's name; each run's folder is named <date>-<name>. Empty: each run is "
                        "named after its model and data, numbered in the runs folder "
                        "(cnn-fashion-mnist-0007)."));
  if (auto* edit = qobject_cast<QLineEdit*>(name->input())) {
    edit->setPlaceholderText(tr("empty: named after the model and data (cnn-fashion-mnist-0007)"));
  }
  fields.addNumber(
      form, "seed", tr("Seed"),
      tr("Seeds initialization, the validation split, shuffling and augmentation: the same seed on the same "
         "machine gives the same run."));
}

}  // namespace wb::gui
