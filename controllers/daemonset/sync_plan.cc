#include "controllers/daemonset/sync_plan.h"

#include <algorithm>
#include <cmath>

#include "api/kinds/daemonset.h"
#include "api/kinds/workload_common.h"
#include "common/json_view.h"
#include "controllers/apps/object_util.h"

namespace kmock::controllers::daemonset {

namespace {

const std::string& Phase(const json& pod) {
  return StringAt(ObjectAt(pod, "status"), "phase");
}

const std::string& HashOf(const json& pod) {
  return StringAt(ObjectAt(ObjectAt(pod, "metadata"), "labels"),
                  kRevisionHashLabel);
}

int64_t MinReadySeconds(const json& ds) {
  return apps::IntAt(ds, {"spec", "minReadySeconds"});
}

const json& RollingParams(const json& ds) {
  const json& strategy = ObjectAt(ObjectAt(ds, "spec"), "updateStrategy");
  if (StringAt(strategy, "type") != "RollingUpdate") {
    static const json kNone = json::object();
    return kNone;
  }
  return ObjectAt(strategy, "rollingUpdate");
}

// The one updated and the one old pod on a node that is not being deleted;
// false when there are more of either (the manage step cleans up first).
bool FindUpdatedPods(const json& ds, const NodeState& node,
                     const std::string& hash, const json** new_pod,
                     const json** old_pod) {
  *new_pod = *old_pod = nullptr;
  for (const json* p : node.pods) {
    if (apps::IsBeingDeleted(*p)) continue;
    const json** slot = IsPodUpdated(ds, *p, hash) ? new_pod : old_pod;
    if (*slot != nullptr) return false;
    *slot = p;
  }
  return true;
}

}  // namespace

void SortDaemonPods(std::vector<const json*>* pods) {
  std::stable_sort(pods->begin(), pods->end(),
                   [](const json* a, const json* b) {
                     const bool a_bound =
                         !StringAt(ObjectAt(*a, "spec"), "nodeName").empty();
                     const bool b_bound =
                         !StringAt(ObjectAt(*b, "spec"), "nodeName").empty();
                     if (a_bound != b_bound) return a_bound;
                     const TimePoint ta = apps::CreationTime(*a);
                     const TimePoint tb = apps::CreationTime(*b);
                     if (ta != tb) return ta < tb;
                     return apps::NameOf(*a) < apps::NameOf(*b);
                   });
}

bool IsPodUpdated(const json& ds, const json& pod, const std::string& hash) {
  const json& labels = ObjectAt(ObjectAt(pod, "metadata"), "labels");
  if (!hash.empty() && StringAt(labels, kRevisionHashLabel) == hash) {
    return true;
  }
  const std::string& generation =
      StringAt(ObjectAt(ObjectAt(ds, "metadata"), "annotations"),
               api::kinds::kDaemonSetTemplateGenerationAnnotation);
  return !generation.empty() &&
         StringAt(labels, kTemplateGenerationLabel) == generation;
}

bool AllowsSurge(const json& ds) {
  return ScaledValue(ValueAt(RollingParams(ds), "maxSurge"), 1, true) > 0;
}

int64_t ScaledValue(const json& v, int64_t total, bool round_up) {
  if (v.is_number_integer()) return v.get<int64_t>();
  if (auto pct = api::kinds::Percent(&v)) {
    const double scaled = static_cast<double>(*pct) * total / 100.0;
    return static_cast<int64_t>(round_up ? std::ceil(scaled)
                                         : std::floor(scaled));
  }
  return api::kinds::IntOrPercentValue(&v);
}

Plan ManageNodes(const json& ds, const std::vector<NodeState>& nodes,
                 const std::string& hash) {
  Plan plan;
  const bool surge = AllowsSurge(ds);
  for (const NodeState& node : nodes) {
    const NodeFit& fit = node.fit;
    if (fit.should_run && node.pods.empty()) {
      plan.create_on.push_back(node.name);
      continue;
    }
    if (fit.should_continue_running) {
      std::vector<const json*> running;
      for (const json* p : node.pods) {
        if (apps::IsBeingDeleted(*p)) continue;
        if (Phase(*p) == "Failed") {
          plan.failed_pods.push_back(p);
        } else if (Phase(*p) == "Succeeded") {
          plan.delete_pods.push_back(p);
        } else {
          running.push_back(p);
        }
      }
      if (!surge) {
        for (size_t i = 1; i < running.size(); ++i) {
          plan.delete_pods.push_back(running[i]);
        }
        continue;
      }
      if (running.size() <= 1) {
        if (running.empty() && fit.should_run) {
          plan.create_on.push_back(node.name);
        }
        continue;
      }
      // Two pods may share a node only while the oldest updated one is not
      // ready and the oldest old one is.
      const json* oldest_new = nullptr;
      const json* oldest_old = nullptr;
      for (const json* p : running) {
        const json** slot = HashOf(*p) == hash ? &oldest_new : &oldest_old;
        if (*slot == nullptr) {
          *slot = p;
        } else {
          plan.delete_pods.push_back(p);
        }
      }
      if (oldest_new != nullptr && oldest_old != nullptr &&
          (!apps::IsPodReady(*oldest_old) || apps::IsPodReady(*oldest_new))) {
        plan.delete_pods.push_back(oldest_old);
      }
      continue;
    }
    for (const json* p : node.pods) {
      if (!apps::IsBeingDeleted(*p)) plan.delete_pods.push_back(p);
    }
  }
  return plan;
}

Plan RollingUpdate(const json& ds, const std::vector<NodeState>& nodes,
                   const std::string& hash, TimePoint now) {
  Plan plan;
  int64_t desired = 0;
  for (const NodeState& n : nodes) desired += n.fit.should_run ? 1 : 0;
  const json& params = RollingParams(ds);
  int64_t max_unavailable =
      ScaledValue(ValueAt(params, "maxUnavailable"), desired, true);
  const int64_t max_surge =
      ScaledValue(ValueAt(params, "maxSurge"), desired, true);
  if (desired > 0 && max_unavailable == 0 && max_surge == 0) {
    max_unavailable = 1;
  }
  const int64_t min_ready = MinReadySeconds(ds);
  auto available = [&](const json* p) {
    return apps::IsPodAvailable(*p, min_ready, now);
  };
  if (max_surge == 0) {
    int64_t unavailable = 0;
    std::vector<const json*> replace;
    std::vector<const json*> candidates;
    for (const NodeState& node : nodes) {
      if (!node.fit.should_run && node.pods.empty()) continue;
      const json* new_pod = nullptr;
      const json* old_pod = nullptr;
      if (!FindUpdatedPods(ds, node, hash, &new_pod, &old_pod)) {
        ++unavailable;
        continue;
      }
      if ((old_pod == nullptr) == (new_pod == nullptr)) {
        ++unavailable;  // the manage step creates or deletes here
      } else if (new_pod != nullptr) {
        if (!available(new_pod)) ++unavailable;
      } else if (!available(old_pod)) {
        replace.push_back(old_pod);
      } else if (unavailable < max_unavailable) {
        candidates.push_back(old_pod);
      }
    }
    int64_t remaining = std::max<int64_t>(max_unavailable - unavailable, 0);
    remaining = std::min<int64_t>(remaining, candidates.size());
    plan.delete_pods = replace;
    plan.delete_pods.insert(plan.delete_pods.end(), candidates.begin(),
                            candidates.begin() + remaining);
    return plan;
  }
  int64_t surged = 0;
  std::vector<std::string> allowed;
  std::vector<std::string> candidates;
  for (const NodeState& node : nodes) {
    if (!node.fit.should_run && node.pods.empty()) continue;
    const json* new_pod = nullptr;
    const json* old_pod = nullptr;
    if (!FindUpdatedPods(ds, node, hash, &new_pod, &old_pod)) {
      ++surged;
      continue;
    }
    if (old_pod == nullptr) continue;
    if (new_pod == nullptr) {
      if (!available(old_pod)) {
        if (node.fit.should_run) allowed.push_back(node.name);
      } else if (surged < max_surge) {
        candidates.push_back(node.name);
      }
      continue;
    }
    if (!available(new_pod)) {
      ++surged;
      continue;
    }
    plan.delete_pods.push_back(old_pod);
  }
  int64_t remaining = std::max<int64_t>(max_surge - surged, 0);
  remaining = std::min<int64_t>(remaining, candidates.size());
  plan.create_on = allowed;
  plan.create_on.insert(plan.create_on.end(), candidates.begin(),
                        candidates.begin() + remaining);
  return plan;
}

json ComputeStatus(const json& ds, const std::vector<NodeState>& nodes,
                   const std::string& hash, TimePoint now) {
  int64_t desired = 0, current = 0, misscheduled = 0, ready = 0, available = 0,
          updated = 0;
  const int64_t min_ready = MinReadySeconds(ds);
  for (const NodeState& node : nodes) {
    const bool scheduled = !node.pods.empty();
    if (!node.fit.should_run) {
      if (scheduled) ++misscheduled;
      continue;
    }
    ++desired;
    if (!scheduled) continue;
    ++current;
    const json& pod = *node.pods.front();
    if (apps::IsPodReady(pod)) {
      ++ready;
      if (apps::IsPodAvailable(pod, min_ready, now)) ++available;
    }
    if (IsPodUpdated(ds, pod, hash)) ++updated;
  }
  json status = {{"currentNumberScheduled", current},
                 {"desiredNumberScheduled", desired},
                 {"numberMisscheduled", misscheduled},
                 {"numberReady", ready}};
  if (available > 0) status["numberAvailable"] = available;
  if (desired - available > 0)
    status["numberUnavailable"] = desired - available;
  if (updated > 0) status["updatedNumberScheduled"] = updated;
  return status;
}

}  // namespace kmock::controllers::daemonset
