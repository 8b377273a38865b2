#pragma once
// Events as JSON objects: one line each in a run's metrics.jsonl, and `--json` output of the CLI.
// Reading them back lets the window plot a past run from its folder.

#include <nlohmann/json_fwd.hpp>
#include <optional>

#include "workbench/events.h"

namespace wb {

nlohmann::json eventToJson(const Event& event);
// nullopt for a line that is not an event this version knows (a newer file, or a damaged line).
std::optional<Event> eventFromJson(const nlohmann::json& object);

nlohmann::json summaryToJson(const RunSummary& summary);
RunSummary summaryFromJson(const nlohmann::json& object);

// One artifact's figures as compress.json lists them (without the "event" key).
nlohmann::json artifactFiguresToJson(const ArtifactFigures& figures);
ArtifactFigures artifactFiguresFromJson(const nlohmann::json& object);

}  // namespace wb
