#include "controllers/scheduling/select_node.h"

#include <algorithm>

#include "common/json_view.h"

namespace kmock::controllers::scheduling {

namespace {

constexpr int64_t kMaxScore = 100;
// Points lost per untolerated PreferNoSchedule taint.
constexpr int64_t kPreferNoSchedulePenalty = 50;

int64_t FreeScore(int64_t requested, int64_t capacity) {
  if (capacity <= 0 || requested > capacity) return 0;
  return (capacity - requested) * kMaxScore / capacity;
}

std::string Histogram(const std::map<std::string, int>& counts) {
  std::vector<std::string> parts;
  for (const auto& [reason, n] : counts) {
    parts.push_back(std::to_string(n) + " " + reason);
  }
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += ", ";
    out += parts[i];
  }
  return out;
}

int64_t PreferNoSchedulePenalty(const json& pod, const json& node) {
  const json& tolerations = ArrayAt(ObjectAt(pod, "spec"), "tolerations");
  int64_t penalty = 0;
  for (const auto& taint : ArrayAt(ObjectAt(node, "spec"), "taints")) {
    if (taint.value("effect", "") != "PreferNoSchedule") continue;
    bool tolerated = false;
    for (const auto& t : tolerations) {
      if (Tolerates(t, taint)) tolerated = true;
    }
    if (!tolerated) penalty += kPreferNoSchedulePenalty;
  }
  return penalty;
}

}  // namespace

int64_t LeastRequestedScore(const json& pod, const NodeState& node) {
  Resources req = PodRequestsForScoring(pod);
  Resources alloc = NodeAllocatable(*node.node);
  int64_t cpu = FreeScore(node.used_for_scoring.milli_cpu + req.milli_cpu,
                          alloc.milli_cpu);
  int64_t mem =
      FreeScore(node.used_for_scoring.memory + req.memory, alloc.memory);
  return (cpu + mem) / 2;
}

std::string FitErrorMessage(
    size_t num_nodes, const std::map<std::string, FilterFailure>& failures,
    bool preemption_never) {
  if (num_nodes == 0) return "no nodes available to schedule pods";
  std::map<std::string, int> reasons;
  std::map<std::string, int> preemption;
  for (const auto& [node, f] : failures) {
    for (const auto& r : f.reasons) ++reasons[r];
    ++preemption[f.resolvable ? "No preemption victims found for incoming pod"
                              : "Preemption is not helpful for scheduling"];
  }
  std::string n = std::to_string(num_nodes);
  std::string msg =
      "0/" + n + " nodes are available: " + Histogram(reasons) + ".";
  if (preemption_never) {
    msg += " preemption: not eligible due to preemptionPolicy=Never.";
  } else {
    msg += " preemption: 0/" + n +
           " nodes are available: " + Histogram(preemption) + ".";
  }
  return msg;
}

Decision SelectNode(const json& pod, const std::vector<NodeState>& nodes,
                    Rng* rng) {
  std::map<std::string, FilterFailure> failures;
  std::vector<std::pair<std::string, int64_t>> feasible;
  for (const auto& ns : nodes) {
    std::string name = ObjectAt(*ns.node, "metadata").value("name", "");
    if (auto f = RunFilters(pod, *ns.node, ns.used)) {
      failures[name] = *f;
      continue;
    }
    feasible.emplace_back(name, LeastRequestedScore(pod, ns) -
                                    PreferNoSchedulePenalty(pod, *ns.node));
  }
  Decision d;
  if (feasible.empty()) {
    bool never = ObjectAt(pod, "spec").value("preemptionPolicy", "") == "Never";
    d.message = FitErrorMessage(nodes.size(), failures, never);
    return d;
  }
  std::sort(feasible.begin(), feasible.end());
  int64_t best = feasible[0].second;
  for (const auto& f : feasible) best = std::max(best, f.second);
  std::vector<std::string> top;
  for (const auto& f : feasible) {
    if (f.second == best) top.push_back(f.first);
  }
  size_t pick = rng != nullptr ? rng->Uniform(top.size()) : 0;
  d.scheduled = true;
  d.node = top[pick];
  return d;
}

}  // namespace kmock::controllers::scheduling
