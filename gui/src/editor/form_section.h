#pragma once
// One part of the experiment form: the fields of one section of the file (its tab: data_section.h, ...) or of
// a group of keys inside one (the model's source, the pipeline), and the rules that only those fields follow.
// The editor builds the parts in the form's order, which is the order of their rows, and asks each of them
// after every load and edit; a new section or key group is a new part, not another member of the editor.

#include <nlohmann/json.hpp>
#include <optional>

namespace wb::gui {

class FieldBinding;

class FormSection {
 public:
  FormSection() = default;
  virtual ~FormSection() = default;
  FormSection(const FormSection&) = delete;
  FormSection& operator=(const FormSection&) = delete;

  // Whether `field` applies to the experiment as the form stands, where this part decides that itself (the
  // model's source, the pipeline's switch); nullopt: the schema's applies_when decides (experiment_keys.h).
  virtual std::optional<bool> applies(const FieldBinding& field) const {
    (void)field;
    return std::nullopt;
  }
  // Which of its inputs take edits, and what its notes say, as the form stands (after each load and edit).
  virtual void updateInputs() {}
  // Before the fields load `doc` (the file with the defaults filled in): what no field holds is set here (the
  // model's source), and `forFields` is what the fields will load.
  virtual void beforeLoad(const nlohmann::json& doc, nlohmann::json& forFields) {
    (void)doc;
    (void)forFields;
  }
  virtual void afterLoad() {}
  // After an edit typed into the form, before anything else sees it.
  virtual void afterEdit() {}
  // Inputs of its own beyond its fields' rows (which the form locks) take no edits while locked.
  virtual void setLocked(bool locked) { (void)locked; }
};

}  // namespace wb::gui
