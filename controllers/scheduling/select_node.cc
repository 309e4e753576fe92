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

int64_t PreferNoSchedulePenalty(const PodInfo& pod, const NodeInfo& node) {
  if (!node.prefer_no_schedule) return 0;
  int64_t penalty = 0;
  for (const auto& taint : node.taints) {
    if (taint.value("effect", "") != "PreferNoSchedule") continue;
    bool tolerated = false;
    for (const auto& t : *pod.tolerations) {
      if (Tolerates(t, taint)) tolerated = true;
    }
    if (!tolerated) penalty += kPreferNoSchedulePenalty;
  }
  return penalty;
}

}  // namespace

size_t NumFeasibleNodesToFind(size_t all_nodes) {
  constexpr size_t kMinFeasibleNodes = 100;
  constexpr size_t kMinPercentage = 5;
  if (all_nodes < kMinFeasibleNodes) return all_nodes;
  size_t drop = all_nodes / 125;
  size_t percentage = drop >= 50 - kMinPercentage ? kMinPercentage : 50 - drop;
  return std::max(kMinFeasibleNodes, all_nodes * percentage / 100);
}

int64_t LeastRequestedScore(const PodInfo& pod, const NodeState& node) {
  const Resources& req = pod.scoring_request;
  const Resources& alloc = node.info->allocatable;
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
                    Rng* rng, size_t start) {
  PodInfo info = MakePodInfo(pod);
  std::map<std::string, FilterFailure> failures;
  std::vector<std::pair<std::string, int64_t>> feasible;
  size_t want = NumFeasibleNodesToFind(nodes.size());
  Decision d;
  for (size_t i = 0; i < nodes.size() && feasible.size() < want; ++i) {
    const NodeState& ns = nodes[(start + i) % nodes.size()];
    ++d.processed;
    if (auto f = RunFilters(info, *ns.info, ns.used)) {
      failures[ns.info->name] = *f;
      continue;
    }
    feasible.emplace_back(ns.info->name,
                          LeastRequestedScore(info, ns) -
                              PreferNoSchedulePenalty(info, *ns.info));
  }
  if (feasible.empty()) {
    d.message = FitErrorMessage(nodes.size(), failures, info.preemption_never);
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
