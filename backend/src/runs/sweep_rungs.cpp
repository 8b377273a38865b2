#include "workbench/sweep_rungs.h"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "runs/index_sqlite.h"

namespace wb {
namespace {

// The sweeps' tables in the index: each rung's results, and each sweep's early-stopping rule.
constexpr const char* kSweepRungsSchema =
    "CREATE TABLE IF NOT EXISTS sweep_rungs (sweep TEXT NOT NULL, rung INTEGER NOT NULL,"
    " trial INTEGER NOT NULL, value REAL NOT NULL, recorded_at TEXT NOT NULL,"
    " PRIMARY KEY (sweep, rung, trial));"
    "CREATE TABLE IF NOT EXISTS sweep_rules (sweep TEXT PRIMARY KEY, early_stopping TEXT NOT NULL)";

class SweepRungsDb : public IndexConnection {
 public:
  explicit SweepRungsDb(const std::string& runs_dir) : IndexConnection(runs_dir, kSweepRungsSchema) {}
};

std::string shownMetric(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.4g", value);
  return text;
}

}  // namespace

std::vector<int64_t> sweepRungEpochs(const SweepEarlyStopping& rule, int64_t epochs) {
  std::vector<int64_t> rungs;
  if (!rule.enabled()) return rungs;
  double at = static_cast<double>(std::max<int64_t>(1, rule.grace_epochs));
  while (true) {
    const auto epoch = static_cast<int64_t>(std::llround(at));
    if (epoch >= epochs) break;
    if (rungs.empty() || epoch > rungs.back()) rungs.push_back(epoch);
    at *= rule.eta;
  }
  return rungs;
}

RungDecision judgeSweepRung(const std::string& runs_dir, const std::string& sweep, int64_t trial,
                            int64_t rung, ValidationMetric metric, double value, double eta) {
  const bool maximize = metric == ValidationMetric::ValAccuracy;
  SweepRungsDb rungs(runs_dir);
  RungDecision d;
  // Recorded and read in one write transaction: two trials reaching the rung at once see each other in order.
  IndexTransaction transaction(rungs.db(), rungs.file());
  IndexStatement record(rungs.db(),
                        "INSERT OR REPLACE INTO sweep_rungs (sweep, rung, trial, value, recorded_at) "
                        "VALUES (?, ?, ?, ?, ?)",
                        rungs.file());
  record.bind(1, sweep).bind(2, rung).bind(3, trial).bind(4, value).bind(5, utcNow());
  record.step();
  IndexStatement others(rungs.db(), "SELECT trial, value FROM sweep_rungs WHERE sweep = ? AND rung = ?",
                        rungs.file());
  others.bind(1, sweep).bind(2, rung);
  d.reached = 0;
  d.place = 1;
  while (others.step()) {
    ++d.reached;
    const double v = others.real(1);
    if (others.integer(0) != trial && (maximize ? v > value : v < value)) ++d.place;
  }
  transaction.commit();
  d.kept = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(static_cast<double>(d.reached) / eta - 1e-9)));
  d.stop = d.place > d.kept;
  d.reason = "ASHA rung at epoch " + std::to_string(rung) + ": " + wordString(metric) + " " +
             shownMetric(value) + " places " + std::to_string(d.place) + " of the " +
             std::to_string(d.reached) + " trial" + (d.reached == 1 ? "" : "s") +
             " that reached it; the top " + std::to_string(d.kept) + " (1/" + shownMetric(eta) + ") go on" +
             (d.stop ? ", so this trial stops here" : "");
  return d;
}

void recordSweepRule(const std::string& runs_dir, const std::string& sweep, const SweepEarlyStopping& rule) {
  std::error_code ignored;
  std::filesystem::create_directories(runs_dir,
                                      ignored);  // a first sweep makes the runs folder (else: refused below)
  SweepRungsDb rungs(runs_dir);
  IndexStatement record(
      rungs.db(), "INSERT OR REPLACE INTO sweep_rules (sweep, early_stopping) VALUES (?, ?)", rungs.file());
  record.bind(1, sweep).bind(2, rule.toJson().dump());
  record.step();
}

std::optional<SweepEarlyStopping> sweepRule(const std::string& runs_dir, const std::string& sweep) {
  SweepRungsDb rungs(runs_dir);
  IndexStatement select(rungs.db(), "SELECT early_stopping FROM sweep_rules WHERE sweep = ?", rungs.file());
  select.bind(1, sweep);
  if (!select.step()) return std::nullopt;
  const nlohmann::json doc = nlohmann::json::parse(select.text(0), nullptr, false);
  const SweepEarlyStopping rule = SweepEarlyStopping::fromJson(doc);
  if (!rule.enabled()) return std::nullopt;
  return rule;
}

std::vector<RungResult> sweepRungResults(const std::string& runs_dir, const std::string& sweep) {
  SweepRungsDb rungs(runs_dir);
  IndexStatement select(rungs.db(),
                        "SELECT trial, rung, value FROM sweep_rungs WHERE sweep = ? ORDER BY rung, trial",
                        rungs.file());
  select.bind(1, sweep);
  std::vector<RungResult> out;
  while (select.step()) out.push_back({select.integer(0), select.integer(1), select.real(2)});
  return out;
}

}  // namespace wb
