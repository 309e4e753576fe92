#include "controllers/replicaset/pod_ranking.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "common/json_view.h"
#include "controllers/apps/object_util.h"

namespace kmock::controllers::replicaset {

namespace {

using apps::IntAt;
using apps::StrAt;

int PhaseOrdinal(const json& pod) {
  std::string phase = StrAt(pod, {"status", "phase"});
  if (phase == "Unknown") return 1;
  if (phase == "Running") return 2;
  return 0;  // Pending and anything else
}

int64_t DeletionCost(const json& pod) {
  std::string v = StrAt(pod, {"metadata", "annotations",
                              "controller.kubernetes.io/pod-deletion-cost"});
  if (v.empty()) return 0;
  try {
    size_t used = 0;
    int64_t n = std::stoll(v, &used);
    return used == v.size() ? n : 0;
  } catch (...) {
    return 0;
  }
}

int64_t MaxRestarts(const json& pod) {
  int64_t max = 0;
  for (const char* field : {"containerStatuses", "initContainerStatuses"}) {
    const json& st = ObjectAt(pod, "status");
    if (!st.contains(field) || !st[field].is_array()) continue;
    for (const auto& cs : st[field]) {
      max = std::max<int64_t>(max, IntAt(cs, {"restartCount"}));
    }
  }
  return max;
}

// log2 of the age in ns, -1 for no age.
int64_t LogAge(TimePoint t, TimePoint now) {
  auto d = std::chrono::duration_cast<std::chrono::nanoseconds>(now - t);
  if (d.count() <= 0) return -1;
  return static_cast<int64_t>(std::log2(static_cast<double>(d.count())));
}

bool IsZero(TimePoint t) { return t == TimePoint{}; }

// a's time is after b's, a zero time first.
bool AfterOrZero(TimePoint a, TimePoint b) {
  if (IsZero(a) || IsZero(b)) return IsZero(a);
  return a > b;
}

// True when a (the time of pod pa) goes first: the younger in log2 buckets
// of age, equal buckets broken by uid.
bool NewerFirst(TimePoint a, TimePoint b, const json& pa, const json& pb,
                TimePoint now) {
  if (IsZero(now) || IsZero(a) || IsZero(b)) return AfterOrZero(a, b);
  int64_t diff = LogAge(a, now) - LogAge(b, now);
  if (diff == 0) return apps::UidOf(pa) < apps::UidOf(pb);
  return diff < 0;
}

std::string NodeOf(const json& pod) { return StrAt(pod, {"spec", "nodeName"}); }

}  // namespace

bool DeleteBefore(const RankedPod& a, const RankedPod& b, TimePoint now) {
  const json& pa = *a.pod;
  const json& pb = *b.pod;
  std::string na = NodeOf(pa), nb = NodeOf(pb);
  if (na != nb && (na.empty() || nb.empty())) return na.empty();
  int oa = PhaseOrdinal(pa), ob = PhaseOrdinal(pb);
  if (oa != ob) return oa < ob;
  bool ra = apps::IsPodReady(pa), rb = apps::IsPodReady(pb);
  if (ra != rb) return !ra;
  int64_t ca = DeletionCost(pa), cb = DeletionCost(pb);
  if (ca != cb) return ca < cb;
  if (a.rank != b.rank) return a.rank > b.rank;
  if (ra && rb) {
    TimePoint ta = apps::PodReadyTime(pa).value_or(TimePoint{});
    TimePoint tb = apps::PodReadyTime(pb).value_or(TimePoint{});
    if (ta != tb) return NewerFirst(ta, tb, pa, pb, now);
  }
  int64_t xa = MaxRestarts(pa), xb = MaxRestarts(pb);
  if (xa != xb) return xa > xb;
  TimePoint ca_t = apps::CreationTime(pa), cb_t = apps::CreationTime(pb);
  if (ca_t != cb_t) return NewerFirst(ca_t, cb_t, pa, pb, now);
  return false;
}

std::vector<json> PodsToDelete(const std::vector<json>& pods,
                               const std::vector<json>& related, size_t count,
                               TimePoint now) {
  if (count >= pods.size()) return pods;
  std::map<std::string, int> per_node;
  for (const auto& p : related) {
    if (!apps::IsPodActive(p)) continue;
    std::string n = NodeOf(p);
    if (!n.empty()) per_node[n]++;
  }
  std::vector<RankedPod> ranked;
  for (const auto& p : pods) {
    std::string n = NodeOf(p);
    ranked.push_back(RankedPod{&p, n.empty() ? 0 : per_node[n]});
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [now](const RankedPod& a, const RankedPod& b) {
                     return DeleteBefore(a, b, now);
                   });
  std::vector<json> out;
  for (size_t i = 0; i < count; ++i) out.push_back(*ranked[i].pod);
  return out;
}

}  // namespace kmock::controllers::replicaset
