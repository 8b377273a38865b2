#include "profiling/profile_events.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <string_view>
#include <tuple>
#include <unordered_map>

namespace wb {
namespace {

constexpr std::string_view kStepPrefix = "ProfilerStep#";

// The names PyTorch's table leaves out (profiler_util.py's filtered names): the profiler's own bookkeeping
// and the tiny autograd queries every Python training loop makes.
bool leftOut(const std::string& name) {
  static constexpr std::array<std::string_view, 8> names = {"[memory]",
                                                            "[OutOfMemory]",
                                                            "profiler::_record_function_enter",
                                                            "profiler::_record_function_enter_new",
                                                            "profiler::_record_function_exit",
                                                            "aten::is_leaf",
                                                            "aten::output_nr",
                                                            "aten::_version"};
  return std::find(names.begin(), names.end(), name) != names.end();
}

struct Node {
  const ProfiledEvent* event;
  int parent = -1;
  double children_cpu_ns = 0;
  double own_cuda_ns = 0;  // kernels it launched itself
  double cuda_total_ns = 0;
  int64_t cpu_memory = 0;  // allocated within its range on its thread, children included
  int64_t cuda_memory = 0;
  int64_t children_cpu_memory = 0;
  int64_t children_cuda_memory = 0;
};

// Ranges nested on each thread: sorted by start (the longer first on a tie), each one's parent is the
// innermost open range that contains it whole (profiler_util.py's _populate_cpu_children).
std::vector<Node> nestRanges(const std::vector<ProfiledEvent>& events) {
  std::vector<Node> nodes;
  for (const ProfiledEvent& e : events) {
    if (e.kind == ProfiledEvent::Kind::CpuRange && !e.async && !leftOut(e.name)) nodes.push_back({&e});
  }
  std::sort(nodes.begin(), nodes.end(), [](const Node& a, const Node& b) {
    return std::make_tuple(a.event->thread, a.event->start_ns, -a.event->end_ns) <
           std::make_tuple(b.event->thread, b.event->start_ns, -b.event->end_ns);
  });
  std::vector<int> open;
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
    const ProfiledEvent& e = *nodes[i].event;
    while (!open.empty()) {
      const ProfiledEvent& top = *nodes[open.back()].event;
      const bool contains = top.thread == e.thread && e.start_ns >= top.start_ns && e.end_ns <= top.end_ns;
      if (contains) break;
      open.pop_back();
    }
    if (!open.empty()) nodes[i].parent = open.back();
    open.push_back(i);
  }
  return nodes;
}

// Bytes allocated on each range's thread within its time (PyTorch's in_interval over the memory records).
void addMemory(std::vector<Node>& nodes, const std::vector<ProfiledEvent>& events) {
  std::map<uint64_t, std::vector<const ProfiledEvent*>> by_thread;
  for (const ProfiledEvent& e : events) {
    if (e.kind == ProfiledEvent::Kind::Memory) by_thread[e.thread].push_back(&e);
  }
  for (auto& [thread, records] : by_thread) {
    std::sort(records.begin(), records.end(),
              [](const ProfiledEvent* a, const ProfiledEvent* b) { return a->start_ns < b->start_ns; });
  }
  for (Node& node : nodes) {
    auto it = by_thread.find(node.event->thread);
    if (it == by_thread.end()) continue;
    const auto& records = it->second;
    auto first = std::lower_bound(records.begin(), records.end(), node.event->start_ns,
                                  [](const ProfiledEvent* r, int64_t t) { return r->start_ns < t; });
    for (auto r = first; r != records.end() && (*r)->start_ns <= node.event->end_ns; ++r) {
      ((*r)->cuda_memory ? node.cuda_memory : node.cpu_memory) += (*r)->bytes;
    }
  }
}

// Kernels to the operator whose correlation id they link to.
void addKernels(std::vector<Node>& nodes, const std::vector<ProfiledEvent>& events) {
  std::unordered_map<int64_t, int> by_correlation;
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
    if (nodes[i].event->correlation > 0) by_correlation.emplace(nodes[i].event->correlation, i);
  }
  for (const ProfiledEvent& e : events) {
    if (e.kind != ProfiledEvent::Kind::Device) continue;
    auto it = by_correlation.find(e.linked_correlation);
    if (it != by_correlation.end())
      nodes[it->second].own_cuda_ns += static_cast<double>(e.end_ns - e.start_ns);
  }
}

// Children after their parents (sorted by start): walking back sums each node into its parent.
void sumIntoParents(std::vector<Node>& nodes) {
  for (Node& node : nodes) node.cuda_total_ns = node.own_cuda_ns;
  for (int i = static_cast<int>(nodes.size()) - 1; i >= 0; --i) {
    const Node& child = nodes[i];
    if (child.parent < 0) continue;
    Node& parent = nodes[child.parent];
    parent.children_cpu_ns += static_cast<double>(child.event->end_ns - child.event->start_ns);
    parent.cuda_total_ns += child.cuda_total_ns;
    parent.children_cpu_memory += child.cpu_memory;
    parent.children_cuda_memory += child.cuda_memory;
  }
}

std::optional<StepPhase> phaseOf(const std::string& name) {
  for (StepPhase phase : {StepPhase::Data, StepPhase::Forward, StepPhase::Backward, StepPhase::Optimizer,
                          StepPhase::Allreduce}) {
    if (name == phaseRangeName(phase)) return phase;
  }
  return std::nullopt;
}

// Each phase's own time: a phase range nested in another (the allreduce waited for inside the optimizer's)
// counts for itself and not for the one around it, so the phases add up to the step.
void tabulatePhases(const std::vector<Node>& nodes, ProfileTable& table) {
  std::vector<double> own(nodes.size(), 0);
  std::vector<std::optional<StepPhase>> phase(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    phase[i] = phaseOf(nodes[i].event->name);
    if (phase[i]) own[i] = static_cast<double>(nodes[i].event->end_ns - nodes[i].event->start_ns);
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!phase[i]) continue;
    for (int p = nodes[i].parent; p >= 0; p = nodes[p].parent) {
      if (phase[p]) {
        own[p] -= static_cast<double>(nodes[i].event->end_ns - nodes[i].event->start_ns);
        break;
      }
    }
  }
  std::map<StepPhase, double> sums;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (phase[i]) sums[*phase[i]] += own[i];
  }
  const double steps = static_cast<double>(std::max<int64_t>(1, table.steps));
  for (const auto& [p, ns] : sums) table.phases.push_back({p, ns / steps / 1e6});
}

std::string rowName(const std::string& name) {
  return name.rfind(kStepPrefix, 0) == 0 ? "ProfilerStep*" : name;
}

}  // namespace

std::string profilerStepName(int64_t step) {
  return std::string(kStepPrefix) + std::to_string(step);
}

ProfileTable tabulateProfile(std::vector<ProfiledEvent> events, bool cuda) {
  std::vector<Node> nodes = nestRanges(events);
  addMemory(nodes, events);
  addKernels(nodes, events);
  sumIntoParents(nodes);
  ProfileTable table;
  double step_ns = 0;
  std::map<std::pair<std::string, std::string>, ProfileOperatorRow> rows;
  for (const Node& node : nodes) {
    const ProfiledEvent& e = *node.event;
    if (e.name.rfind(kStepPrefix, 0) == 0) {
      ++table.steps;
      step_ns += static_cast<double>(e.end_ns - e.start_ns);
    }
    ProfileOperatorRow& row = rows[{rowName(e.name), e.input_shapes}];
    if (row.calls == 0) {
      row.name = rowName(e.name);
      row.input_shapes = e.input_shapes;
      row.self_cuda_ms = cuda ? 0 : -1;
      row.cuda_total_ms = cuda ? 0 : -1;
      row.cuda_memory_bytes = cuda ? 0 : -1;
      row.self_cuda_memory_bytes = cuda ? 0 : -1;
    }
    const double total_ns = static_cast<double>(e.end_ns - e.start_ns);
    ++row.calls;
    row.cpu_total_ms += total_ns / 1e6;
    row.self_cpu_ms += (total_ns - node.children_cpu_ns) / 1e6;
    row.cpu_memory_bytes += node.cpu_memory;
    row.self_cpu_memory_bytes += node.cpu_memory - node.children_cpu_memory;
    if (cuda) {
      row.self_cuda_ms += node.own_cuda_ns / 1e6;
      row.cuda_total_ms += node.cuda_total_ns / 1e6;
      row.cuda_memory_bytes += node.cuda_memory;
      row.self_cuda_memory_bytes += node.cuda_memory - node.children_cuda_memory;
    }
  }
  if (table.steps > 0) table.step_ms = step_ns / static_cast<double>(table.steps) / 1e6;
  tabulatePhases(nodes, table);
  for (auto& [key, row] : rows) table.rows.push_back(std::move(row));
  std::stable_sort(
      table.rows.begin(), table.rows.end(),
      [](const ProfileOperatorRow& a, const ProfileOperatorRow& b) { return a.self_cpu_ms > b.self_cpu_ms; });
  return table;
}

}  // namespace wb
