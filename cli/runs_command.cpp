#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "cli_commands.h"
#include "run_session.h"
#include "workbench/errors.h"
#include "workbench/run_history.h"
#include "workbench/run_index.h"
#include "workbench/run_info.h"

namespace wb::cli {
namespace {

struct RunsOptions {
  std::string runs_dir = "runs";
  bool given = false;  // --runs-dir, as opposed to the default
  bool json = false;
  std::string id, other, text;  // the actions' arguments
  std::vector<std::string> tags;
};

// A folder that does not exist is not an empty runs folder: a mistyped --runs-dir says so.
void requireRunsDir(const RunsOptions& o) {
  std::error_code ec;
  if (std::filesystem::is_directory(o.runs_dir, ec)) return;
  throw UserError("The runs folder " + o.runs_dir + " does not exist" +
                      (std::filesystem::exists(o.runs_dir, ec) ? " as a folder (it is a file)" : "") + ".",
                  "Give the folder that holds the runs (output.runs_dir of the experiments; default: runs).");
}

std::string metric(double value, const char* format = "%.4f") {
  if (value < 0) return "-";
  char text[32];
  std::snprintf(text, sizeof(text), format, value);
  return text;
}

// The figure a run is judged by: its task's headline (taskFigureSpecs puts it first).
FigureSpec headlineFigure(const RunHistory& history) {
  return taskFigureSpecs(history.experiment.task).front();
}

nlohmann::json recordToJson(const RunRecord& r) {
  return {{"id", r.id},
          {"name", r.name},
          {"status", wordString(r.status)},
          {"experiment_hash", r.experiment_hash},
          {"started_at", r.started_at},
          {"ended_at", r.ended_at},
          {"folder", r.folder},
          {"steps", r.steps},
          {"epochs", r.epochs},
          {"best_val_loss", r.best_val_loss},
          {"best_val_accuracy", r.best_val_accuracy},
          {"test_loss", r.test_loss},
          {"test_accuracy", r.test_accuracy},
          {"model", r.model},
          {"dataset", r.dataset},
          {"optimizer", r.optimizer},
          {"lr", r.lr},
          {"batch_size", r.batch_size},
          {"amp", r.amp},
          {"devices", r.devices},
          {"wall_s", r.wall_s},
          {"tags", r.tags},
          {"notes", r.notes}};
}

std::string joinTags(const std::vector<std::string>& tags) {
  std::string out;
  for (const std::string& t : tags) out += (out.empty() ? "" : ", ") + t;
  return out;
}

RunRecord requireRun(const std::string& runs_dir, const std::string& id);

// rename ID NAME, tag ID [TAG...], note ID TEXT.
int editRunInfo(const RunsOptions& o, const std::string& action) {
  requireRunsDir(o);
  const RunRecord r = requireRun(o.runs_dir, o.id);
  RunInfo info{r.name, r.tags, r.notes};
  if (action == "rename") {
    info.name = o.text;
  } else if (action == "tag") {
    info.tags = o.tags;
  } else {
    info.notes = o.text;
  }
  updateRunInfo(o.runs_dir, r.folder, info);
  const RunRecord updated = requireRun(o.runs_dir, std::to_string(r.id));
  std::printf("run %lld: %s  [%s]\n", static_cast<long long>(updated.id), updated.name.c_str(),
              joinTags(updated.tags).c_str());
  return kExitOk;
}

RunRecord requireRun(const std::string& runs_dir, const std::string& id) {
  std::optional<RunRecord> record = findRun(runs_dir, id);
  if (!record) {
    throw UserError("No run '" + id + "' in " + runs_dir + "/runs.sqlite.",
                    "`workbench-cli runs --runs-dir " + runs_dir + "` lists the ids and folders.");
  }
  return *record;
}

int listCommand(const RunsOptions& o) {
  const std::string& runs_dir = o.runs_dir;
  const bool json = o.json;
  // The default folder does not exist before the first run, and then there are simply no runs yet.
  std::error_code ec;
  if (!o.given && !std::filesystem::is_directory(runs_dir, ec)) {
    if (json) {
      std::cout << "[]" << std::endl;
    } else {
      std::printf("No runs yet: there is no %s folder (`workbench-cli train` starts the first run there).\n",
                  runs_dir.c_str());
    }
    return kExitOk;
  }
  requireRunsDir(o);
  const std::vector<RunRecord> runs = listRuns(runs_dir);
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const RunRecord& r : runs) out.push_back(recordToJson(r));
    std::cout << out.dump(2) << std::endl;
    return kExitOk;
  }
  if (runs.empty()) {
    std::printf("No runs in %s yet (`workbench-cli train` starts one).\n", runs_dir.c_str());
    return kExitOk;
  }
  std::printf("%4s  %-11s  %-24s  %-7s  %-20s  %7s  %8s  %8s  %-16s  %s\n", "id", "status", "name", "model",
              "started (UTC)", "steps", "best val", "test acc", "tags", "folder");
  for (const RunRecord& r : runs) {
    std::printf("%4lld  %-11s  %-24.24s  %-7.7s  %-20s  %7lld  %8s  %8s  %-16.16s  %s\n",
                static_cast<long long>(r.id), wordString(r.status).c_str(), r.name.c_str(), r.model.c_str(),
                r.started_at.c_str(), static_cast<long long>(r.steps), metric(r.best_val_accuracy).c_str(),
                metric(r.test_accuracy).c_str(), joinTags(r.tags).c_str(), r.folder.c_str());
  }
  return kExitOk;
}

int showCommand(const RunsOptions& o) {
  requireRunsDir(o);
  const bool json = o.json;
  const RunRecord r = requireRun(o.runs_dir, o.id);
  const RunHistory history = loadRunHistory(r.folder);
  if (json) {
    nlohmann::json out = recordToJson(r);
    out["epochs_detail"] = nlohmann::json::array();
    for (const EpochMetrics& e : history.epochs) {
      nlohmann::json epoch = {
          {"epoch", e.epoch}, {"step", e.step}, {"train_loss", e.train_loss}, {"val_loss", e.val_loss}};
      // The task's figures by name ("train_accuracy", "val_accuracy"); -1 for an epoch without validation.
      for (const TaskFigure& f : e.train_figures) {
        epoch["train_" + f.name] = f.value;
        epoch["val_" + f.name] = figureNamed(e.val_figures, f.name, -1);
      }
      out["epochs_detail"].push_back(epoch);
    }
    std::cout << out.dump(2) << std::endl;
    return kExitOk;
  }
  std::printf("run %lld: %s (%s)\n", static_cast<long long>(r.id), r.name.c_str(),
              wordString(r.status).c_str());
  std::printf("  folder       %s\n", r.folder.c_str());
  std::printf("  started      %s\n", r.started_at.c_str());
  std::printf("  ended        %s\n", r.ended_at.empty() ? "-" : r.ended_at.c_str());
  std::printf("  experiment   %s (hash %s)\n", (r.folder + "/experiment.json").c_str(),
              r.experiment_hash.c_str());
  std::printf("  trained      %s on %s, %s lr %g, batch %lld, amp %s, devices %s\n", r.model.c_str(),
              r.dataset.c_str(), r.optimizer.c_str(), r.lr, static_cast<long long>(r.batch_size),
              r.amp.c_str(), r.devices.c_str());
  if (!r.tags.empty()) std::printf("  tags         %s\n", joinTags(r.tags).c_str());
  if (!r.notes.empty()) std::printf("  notes        %s\n", r.notes.c_str());
  std::printf("  steps        %lld in %lld epoch(s)\n", static_cast<long long>(r.steps),
              static_cast<long long>(r.epochs));
  std::printf("  best val     loss %s, accuracy %s\n", metric(r.best_val_loss).c_str(),
              metric(r.best_val_accuracy).c_str());
  std::printf("  test         loss %s, accuracy %s\n", metric(r.test_loss).c_str(),
              metric(r.test_accuracy).c_str());
  if (!history.epochs.empty()) {
    // The task's headline figure (classification: "train acc", "val acc").
    const FigureSpec headline = headlineFigure(history);
    std::printf("\n  %5s  %7s  %10s  %9s  %8s  %7s\n", "epoch", "step", "train loss",
                ("train " + headline.short_name).c_str(), "val loss", ("val " + headline.short_name).c_str());
    for (const EpochMetrics& e : history.epochs) {
      std::printf("  %5lld  %7lld  %10.4f  %9.4f  %8s  %7s\n", static_cast<long long>(e.epoch),
                  static_cast<long long>(e.step), e.train_loss,
                  figureNamed(e.train_figures, headline.name, 0), metric(e.val_loss).c_str(),
                  metric(figureNamed(e.val_figures, headline.name, -1)).c_str());
    }
  }
  if (r.status == RunIndexStatus::Interrupted)
    std::printf("\n  continue it: workbench-cli resume %s\n", r.folder.c_str());
  return kExitOk;
}

int compareCommand(const RunsOptions& o) {
  requireRunsDir(o);
  const RunRecord a = requireRun(o.runs_dir, o.id);
  const RunRecord b = requireRun(o.runs_dir, o.other);
  const RunHistory ha = loadRunHistory(a.folder);
  const RunHistory hb = loadRunHistory(b.folder);
  const std::string la = "run " + std::to_string(a.id);
  const std::string lb = "run " + std::to_string(b.id);

  std::printf("Experiment differences (%s -> %s):\n", la.c_str(), lb.c_str());
  const auto changes = diffExperiments(experimentToJson(ha.experiment), experimentToJson(hb.experiment));
  if (changes.empty()) std::printf("  none: the same experiment\n");
  // A value left at its default says so: "0.9 -> 0 (default)" reads as "b never set it".
  bool anyDefault = false;
  auto shown = [&anyDefault](const std::string& value, const RunHistory& h, const std::string& path) {
    if (value.empty()) return std::string("(absent)");
    if (!std::binary_search(h.defaulted_keys.begin(), h.defaulted_keys.end(), path)) return value;
    anyDefault = true;
    return value + " (default)";
  };
  for (const ExperimentChange& c : changes) {
    std::printf("  %-36s %-20s %s\n", c.path.c_str(), shown(c.before, ha, c.path).c_str(),
                shown(c.after, hb, c.path).c_str());
  }
  if (anyDefault) std::printf("  (default): the key's default value, as docs/experiment.md lists it\n");

  std::printf("\nMetrics:\n  %-22s %-16s %-16s\n", "", la.c_str(), lb.c_str());
  auto row = [](const char* name, const std::string& x, const std::string& y) {
    std::printf("  %-22s %-16s %-16s\n", name, x.c_str(), y.c_str());
  };
  row("name", a.name, b.name);
  row("status", wordString(a.status), wordString(b.status));
  row("steps", std::to_string(a.steps), std::to_string(b.steps));
  row("epochs", std::to_string(a.epochs), std::to_string(b.epochs));
  row("best val loss", metric(a.best_val_loss), metric(b.best_val_loss));
  row("best val accuracy", metric(a.best_val_accuracy), metric(b.best_val_accuracy));
  row("test loss", metric(a.test_loss), metric(b.test_loss));
  row("test accuracy", metric(a.test_accuracy), metric(b.test_accuracy));
  row("samples/s", ha.summary ? metric(ha.summary->samples_per_sec, "%.0f") : "-",
      hb.summary ? metric(hb.summary->samples_per_sec, "%.0f") : "-");
  row("wall time (s)", ha.summary ? metric(ha.summary->wall_s, "%.1f") : "-",
      hb.summary ? metric(hb.summary->wall_s, "%.1f") : "-");

  const size_t epochs = std::max(ha.epochs.size(), hb.epochs.size());
  if (epochs > 0) {
    const FigureSpec headline = headlineFigure(ha);
    const auto val = [&headline](const RunHistory& h, size_t i) {
      return i < h.epochs.size() ? metric(figureNamed(h.epochs[i].val_figures, headline.name, -1)) : "";
    };
    std::string title = headline.title;
    if (!title.empty()) title[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(title[0])));
    std::printf("\nValidation %s by epoch:\n  %5s  %-16s %-16s\n", title.c_str(), "epoch", la.c_str(),
                lb.c_str());
    for (size_t i = 0; i < epochs; ++i)
      std::printf("  %5zu  %-16s %-16s\n", i + 1, val(ha, i).c_str(), val(hb, i).c_str());
  }
  return kExitOk;
}

// --runs-dir (and --json) on `runs` and on each of its actions, so that either order reads.
void addRunsOptions(CLI::App* command, RunsOptions& o, bool json) {
  command->add_option("--runs-dir", o.runs_dir, "the runs folder (default: runs)")
      ->type_name("DIR")
      ->each([&o](const std::string&) { o.given = true; });
  if (json) command->add_flag("--json", o.json, "print JSON instead of a table");
}

CLI::App* addRunsAction(CLI::App* runs, RunsOptions& o, const std::string& name, const std::string& about,
                        const std::string& first, const std::string& first_help) {
  CLI::App* action = addCommand(*runs, name, about);
  action->add_option(first, o.id, first_help)->required();
  addRunsOptions(action, o, name == "show");
  return action;
}

void addRunsActions(CLI::App* runs, const std::shared_ptr<RunsOptions>& o) {
  const std::string id_help = "the run: its id or its folder's name (`workbench-cli runs` lists them)";
  setAction(addRunsAction(runs, *o, "show", "one run, with its epochs", "ID", id_help),
            [o] { return showCommand(*o); });
  CLI::App* compare = addRunsAction(
      runs, *o, "compare", "what differs between two runs' experiments, and their metrics side by side", "A",
      id_help);
  compare->add_option("B", o->other, "the other run")->required();
  setAction(compare, [o] { return compareCommand(*o); });
  CLI::App* rename = addRunsAction(runs, *o, "rename", "give a run the name the lists show", "ID", id_help);
  rename->add_option("NAME", o->text, "its new name")->required();
  setAction(rename, [o] { return editRunInfo(*o, "rename"); });
  CLI::App* tag = addRunsAction(runs, *o, "tag", "replace a run's tags (none clears them)", "ID", id_help);
  tag->add_option("TAG", o->tags, "its tags");
  setAction(tag, [o] { return editRunInfo(*o, "tag"); });
  CLI::App* note = addRunsAction(runs, *o, "note", "replace a run's notes", "ID", id_help);
  note->add_option("TEXT", o->text, "its notes")->required();
  setAction(note, [o] { return editRunInfo(*o, "note"); });
}

}  // namespace

void addRunsCommand(CLI::App& program) {
  CLI::App* runs = addCommand(
      program, "runs",
      "list, show and compare runs\n"
      "Lists the runs of a runs folder (default: runs), newest first, from its index (runs.sqlite): id, "
      "status "
      "(running, finished, failed, interrupted — a run whose process died shows as interrupted), name, "
      "start, "
      "steps, best validation accuracy, test accuracy and folder. `show` prints one run (by id or folder "
      "name) "
      "with its epochs; `compare` prints what differs between two runs' experiment files and their metrics "
      "side "
      "by side. `rename`, `tag` (replaces the tags; none clears them) and `note` change what the window's "
      "runs "
      "list shows; they are kept in the run folder's run.json and in the index (the folder keeps its name).",
      "Examples:\n"
      "  workbench-cli runs\n"
      "  workbench-cli runs show 3\n"
      "  workbench-cli runs compare 3 4 --runs-dir /data/runs\n"
      "  workbench-cli runs tag 3 baseline adam\n");
  auto o = std::make_shared<RunsOptions>();
  addRunsOptions(runs, *o, true);
  setAction(runs, [o] { return listCommand(*o); });
  addRunsActions(runs, o);
}

}  // namespace wb::cli
