// The load report's words (workbench/weights_load_report.h): one summary line and the head's for the run
// log, the lists for `check`, everything for weights_load.json.
#include "workbench/weights_load_report.h"

namespace wb {
namespace {

std::string wrShapeText(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

std::string wrNames(const std::vector<std::string>& names, size_t limit) {
  std::string text;
  for (size_t i = 0; i < names.size() && i < limit; ++i) text += (i ? ", " : "") + names[i];
  if (names.size() > limit) text += ", … (" + std::to_string(names.size() - limit) + " more)";
  return text;
}

}  // namespace

std::string weightsLoadSummary(const WeightsLoadReport& r) {
  std::string text = "weights: loaded " + std::to_string(r.loaded.size()) + " of " +
                     std::to_string(r.model_tensors) + " tensors of the model from " + r.file + " (" +
                     r.format + ", " + std::to_string(r.file_tensors) + " tensors)";
  if (!r.prefix.empty())
    text += ", prefix \"" + r.prefix + "\" stripped" + (r.prefix_detected ? " (detected)" : "");
  const size_t skipped = r.missing.size() + r.unexpected.size() + r.mismatched.size();
  if (skipped > 0) {
    text += "; skipped: " + std::to_string(r.missing.size()) + " missing, " +
            std::to_string(r.unexpected.size()) + " unexpected, " + std::to_string(r.mismatched.size()) +
            " of another shape";
  }
  return text;
}

std::string weightsLoadHeadLine(const WeightsLoadReport& r) {
  if (r.new_head.empty()) return "";
  return "new head: " + std::to_string(r.head_classes) + " classes (" +
         (r.file_head_classes > 0 ? "the file's has " + std::to_string(r.file_head_classes)
                                  : std::string("the file has none")) +
         "), initialized fresh: " + wrNames(r.new_head, 4);
}

std::vector<std::string> weightsLoadLines(const WeightsLoadReport& r, size_t limit) {
  std::vector<std::string> lines{weightsLoadSummary(r)};
  if (const std::string head = weightsLoadHeadLine(r); !head.empty()) lines.push_back("  " + head);
  for (const auto& note : r.notes) lines.push_back("  note: " + note);
  if (!r.missing.empty())
    lines.push_back("  missing from the file (kept as initialized): " + wrNames(r.missing, limit));
  if (!r.unexpected.empty())
    lines.push_back("  in the file, not in the model (not used): " + wrNames(r.unexpected, limit));
  for (size_t i = 0; i < r.mismatched.size() && i < limit; ++i) {
    const auto& m = r.mismatched[i];
    lines.push_back("  another shape (kept as initialized): " + m.name + " the model's " +
                    wrShapeText(m.ours) + ", the file's " + wrShapeText(m.file));
  }
  if (r.mismatched.size() > limit)
    lines.push_back("  … " + std::to_string(r.mismatched.size() - limit) + " more of another shape");
  return lines;
}

nlohmann::json weightsLoadToJson(const WeightsLoadReport& r) {
  nlohmann::json mismatched = nlohmann::json::array();
  for (const auto& m : r.mismatched)
    mismatched.push_back({{"name", m.name}, {"ours", m.ours}, {"file", m.file}});
  return {{"weights", r.weights},
          {"file", r.file},
          {"format", r.format},
          {"notes", r.notes},
          {"prefix", r.prefix},
          {"prefix_detected", r.prefix_detected},
          {"model_tensors", r.model_tensors},
          {"file_tensors", r.file_tensors},
          {"loaded", r.loaded},
          {"missing", r.missing},
          {"unexpected", r.unexpected},
          {"mismatched", mismatched},
          {"new_head",
           {{"tensors", r.new_head}, {"classes", r.head_classes}, {"file_classes", r.file_head_classes}}},
          {"summary", weightsLoadSummary(r)},
          {"head", weightsLoadHeadLine(r)}};
}

}  // namespace wb
