#include "controllers/deployment/rollout_math.h"

#include <algorithm>
#include <cmath>

#include "common/json_view.h"
#include "controllers/apps/object_util.h"
#include "controllers/deployment/revision.h"

namespace kmock::controllers::deployment {

using apps::IntAt;

std::optional<int64_t> ScaledValue(const json& v, int64_t total,
                                   bool round_up) {
  if (v.is_number_integer()) return v.get<int64_t>();
  if (!v.is_string()) return std::nullopt;
  std::string s = v.get<std::string>();
  if (s.empty() || s.back() != '%') return std::nullopt;
  s.pop_back();
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  int64_t pct = std::stoll(s);
  int64_t num = pct * total;
  return round_up ? (num + 99) / 100 : num / 100;
}

Fenceposts ResolveFenceposts(const json& max_surge, const json& max_unavailable,
                             int64_t desired) {
  Fenceposts f;
  f.surge =
      ScaledValue(max_surge.is_null() ? json(0) : max_surge, desired, true)
          .value_or(0);
  f.unavailable =
      ScaledValue(max_unavailable.is_null() ? json(0) : max_unavailable,
                  desired, false)
          .value_or(0);
  // Both zero would make no progress: allow one unavailable pod.
  if (f.surge == 0 && f.unavailable == 0) f.unavailable = 1;
  return f;
}

bool IsRollingUpdate(const json& d) {
  return apps::StrAt(d, {"spec", "strategy", "type"}) != "Recreate";
}

int64_t Replicas(const json& obj) {
  return IntAt(obj, {"spec", "replicas"}, 1);
}

namespace {

Fenceposts DeploymentFenceposts(const json& d) {
  json ru =
      ObjectAt(ObjectAt(ObjectAt(d, "spec"), "strategy"), "rollingUpdate");
  return ResolveFenceposts(ru.value("maxSurge", json("25%")),
                           ru.value("maxUnavailable", json("25%")),
                           Replicas(d));
}

}  // namespace

bool OlderThan(const json& a, const json& b) {
  TimePoint ta = apps::CreationTime(a), tb = apps::CreationTime(b);
  if (ta != tb) return ta < tb;
  return apps::NameOf(a) < apps::NameOf(b);
}

int64_t MaxSurge(const json& d) {
  if (!IsRollingUpdate(d)) return 0;
  return DeploymentFenceposts(d).surge;
}

int64_t MaxUnavailable(const json& d) {
  int64_t replicas = Replicas(d);
  if (!IsRollingUpdate(d) || replicas == 0) return 0;
  return std::min(DeploymentFenceposts(d).unavailable, replicas);
}

int64_t SumReplicas(const std::vector<json>& rses) {
  int64_t n = 0;
  for (const auto& rs : rses) n += IntAt(rs, {"spec", "replicas"}, 1);
  return n;
}

int64_t SumStatus(const std::vector<json>& rses, const char* field) {
  int64_t n = 0;
  for (const auto& rs : rses) n += IntAt(rs, {"status", field});
  return n;
}

std::vector<json> FilterActive(const std::vector<json>& rses) {
  std::vector<json> out;
  for (const auto& rs : rses) {
    if (IntAt(rs, {"spec", "replicas"}, 1) > 0) out.push_back(rs);
  }
  return out;
}

void SortByCreation(std::vector<json>* rses) {
  std::stable_sort(rses->begin(), rses->end(), OlderThan);
}

void SortBySizeOlder(std::vector<json>* rses) {
  std::stable_sort(rses->begin(), rses->end(),
                   [](const json& a, const json& b) {
                     int64_t ra = Replicas(a), rb = Replicas(b);
                     if (ra != rb) return ra > rb;
                     return OlderThan(a, b);
                   });
}

void SortBySizeNewer(std::vector<json>* rses) {
  std::stable_sort(rses->begin(), rses->end(),
                   [](const json& a, const json& b) {
                     int64_t ra = Replicas(a), rb = Replicas(b);
                     if (ra != rb) return ra > rb;
                     return OlderThan(b, a);
                   });
}

int64_t NewReplicaSetReplicas(const json& d, const std::vector<json>& all,
                              const json& new_rs) {
  int64_t replicas = Replicas(d);
  if (!IsRollingUpdate(d)) return replicas;
  int64_t current = Replicas(new_rs);
  int64_t max_total = replicas + MaxSurge(d);
  int64_t total = SumReplicas(all);
  if (total >= max_total) return current;
  int64_t up = std::min(max_total - total, replicas - current);
  return current + up;
}

int64_t MaxScaledDown(const json& d, const std::vector<json>& all,
                      const json& new_rs) {
  int64_t min_available = Replicas(d) - MaxUnavailable(d);
  int64_t new_unavailable =
      Replicas(new_rs) - IntAt(new_rs, {"status", "availableReplicas"});
  return SumReplicas(all) - min_available - new_unavailable;
}

bool IsSaturated(const json& d, const std::optional<json>& rs) {
  if (!rs) return false;
  auto desired = DesiredReplicasAnnotation(*rs);
  int64_t replicas = Replicas(d);
  return Replicas(*rs) == replicas && desired && *desired == replicas &&
         IntAt(*rs, {"status", "availableReplicas"}) == replicas;
}

std::optional<json> FindActiveOrLatest(const std::optional<json>& new_rs,
                                       std::vector<json> old_rses) {
  if (!new_rs && old_rses.empty()) return std::nullopt;
  SortByCreation(&old_rses);
  std::reverse(old_rses.begin(), old_rses.end());  // newest first
  std::vector<json> all = old_rses;
  if (new_rs) all.push_back(*new_rs);
  std::vector<json> active = FilterActive(all);
  if (active.size() == 1) return active[0];
  if (active.empty()) {
    if (new_rs) return new_rs;
    return old_rses[0];
  }
  return std::nullopt;
}

namespace {

int64_t ReplicaSetFraction(const json& rs, const json& d) {
  int64_t replicas = Replicas(d);
  if (replicas == 0) return -Replicas(rs);
  int64_t deployment_replicas = replicas + MaxSurge(d);
  int64_t annotated =
      MaxReplicasAnnotation(rs).value_or(IntAt(d, {"status", "replicas"}));
  if (annotated == 0) return 0;
  double size = static_cast<double>(Replicas(rs) * deployment_replicas) /
                static_cast<double>(annotated);
  return static_cast<int64_t>(std::round(size)) - Replicas(rs);
}

int64_t Proportion(const json& rs, const json& d, int64_t to_add,
                   int64_t added) {
  if (Replicas(rs) == 0 || to_add == 0 || to_add == added) return 0;
  int64_t fraction = ReplicaSetFraction(rs, d);
  int64_t allowed = to_add - added;
  return to_add > 0 ? std::min(fraction, allowed) : std::max(fraction, allowed);
}

}  // namespace

std::map<std::string, int64_t> ProportionalSizes(const json& d,
                                                 std::vector<json>* active) {
  std::map<std::string, int64_t> sizes;
  int64_t allowed = Replicas(d) > 0 ? Replicas(d) + MaxSurge(d) : 0;
  int64_t to_add = allowed - SumReplicas(*active);
  if (to_add > 0) {
    SortBySizeNewer(active);
  } else if (to_add < 0) {
    SortBySizeOlder(active);
  }
  int64_t added = 0;
  for (const auto& rs : *active) {
    int64_t p = to_add != 0 ? Proportion(rs, d, to_add, added) : 0;
    sizes[apps::NameOf(rs)] = Replicas(rs) + p;
    added += p;
  }
  if (!active->empty() && to_add != 0) {
    int64_t& first = sizes[apps::NameOf((*active)[0])];
    first = std::max<int64_t>(0, first + to_add - added);
  }
  return sizes;
}

}  // namespace kmock::controllers::deployment
