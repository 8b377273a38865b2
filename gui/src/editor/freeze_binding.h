#pragma once
// model.freeze as the choice a user makes: nothing frozen ([]), the body — every parameter but the head
// ("body") — or the parameters some name patterns pick (["conv1.*", "layer1.*"], typed comma-separated).
// A value the form cannot show as one of these (a list holding a number) is kept as written until the user
// chooses, for the engine to name at this field.

#include <QWidget>

#include "editor/field_binding.h"

class QComboBox;
class QLineEdit;

namespace wb::gui {

class FreezeBinding : public FieldBinding {
 public:
  enum Choice { Nothing = 0, Body = 1, Patterns = 2 };

  explicit FreezeBinding(std::string path);

  QComboBox* choice() const { return m_choice; }
  QLineEdit* patterns() const { return m_patterns; }
  // Whether the field freezes anything (model.unfreeze matters only then).
  bool freezesSomething() const;

 protected:
  void loadValue(const nlohmann::json& value) override;
  nlohmann::json storeValue() const override;

 private:
  void showPatterns();

  QComboBox* m_choice;
  QLineEdit* m_patterns;
};

}  // namespace wb::gui
