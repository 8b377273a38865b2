#pragma once
// The Data tab: which dataset and where it lies, augmentation, the loader, and the settings of each kind of
// dataset (an image folder's, a CSV table's, the synthetic data's). A switch of dataset puts the settings
// only the previous one read back to their defaults, and the augmentation's settings take edits only while it
// is on.

#include <QCoreApplication>
#include <QString>

#include "editor/form_section.h"

class QFormLayout;

namespace wb::gui {

class FormFields;

class DataSection : public FormSection {
  Q_DECLARE_TR_FUNCTIONS(DataSection)

 public:
  explicit DataSection(FormFields& fields);

  void updateInputs() override;
  void afterLoad() override;
  // After a switch of data.dataset: the settings only the previous dataset read go back to their defaults.
  void afterEdit() override;

 private:
  void addSourceFields(QFormLayout* form);
  void addAugmentationFields(QFormLayout* form);
  void addLoaderFields(QFormLayout* form);
  void addImageFolderFields(QFormLayout* form);
  void addTableFields(QFormLayout* form);
  void addTextFields(QFormLayout* form);
  void addSyntheticFields(QFormLayout* form);
  bool isCsv() const;
  bool pathIsFile() const;

  FormFields& m_fields;
  QString m_dataset;  // data.dataset as last seen, to notice a switch
};

}  // namespace wb::gui
