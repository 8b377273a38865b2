#include "editor/top_level_fields.h"

#include <QBoxLayout>
#include <QFormLayout>
#include <QLineEdit>

#include "editor/form_fields.h"
#include "workbench/task_words.h"

namespace wb::gui {

namespace {

QFormLayout* growingForm() {
  auto* form = new QFormLayout;
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  return form;
}

}  // namespace

TopLevelFields::TopLevelFields(FormFields& fields, QBoxLayout* header) {
  QFormLayout* form = growingForm();
  header->addLayout(form);
  FieldBinding* name =
      fields.addText(form, "name", tr("Name"),
                     tr("The run's name; each run's folder is named <date>-<name>. Empty: each run is "
                        "named after its model and data, numbered in the runs folder "
                        "(cnn-fashion-mnist-0007)."));
  if (auto* edit = qobject_cast<QLineEdit*>(name->input())) {
    edit->setPlaceholderText(tr("empty: named after the model and data (cnn-fashion-mnist-0007)"));
  }
  auto* line = new QHBoxLayout;
  header->addLayout(line);
  QFormLayout* seed = growingForm();
  QFormLayout* task = growingForm();
  line->addLayout(seed, 1);
  line->addLayout(task, 1);
  fields.addNumber(
      seed, "seed", tr("Seed"),
      tr("Seeds initialization, the validation split, shuffling and augmentation: the same seed on the same "
         "machine gives the same run."));
  fields.addChoice<TaskKind>(
      task, "task", tr("Task"), {{TaskKind::Classification, tr("classification")}},
      tr("What the run learns: its targets, loss and figures. Classification: one class "
         "per image or table row, cross-entropy, accuracy."));
}

}  // namespace wb::gui
