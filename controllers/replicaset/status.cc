#include "controllers/replicaset/status.h"

#include "common/json_view.h"
#include "controllers/apps/object_util.h"

namespace kmock::controllers::replicaset {

using apps::IntAt;

namespace {

const json* TemplateLabels(const json& rs) {
  return &ObjectAt(
      ObjectAt(ObjectAt(ObjectAt(rs, "spec"), "template"), "metadata"),
      "labels");
}

std::vector<PodFacts> FactsOfAll(const json& rs, const PodRefs& pods) {
  SetView set;
  set.template_labels = TemplateLabels(rs);
  std::vector<PodFacts> out;
  out.reserve(pods.size());
  for (const json* p : pods) out.push_back(FactsOf(*p, set));
  return out;
}

bool Available(const PodFacts& f, int64_t min_ready, TimePoint now) {
  if (!f.ready) return false;
  if (min_ready <= 0) return true;
  return f.ready_since &&
         *f.ready_since + std::chrono::seconds(min_ready) < now;
}

}  // namespace

json CalculateStatus(const json& rs, const PodRefs& pods,
                     const std::optional<std::string>& manage_error,
                     TimePoint now) {
  return CalculateStatus(rs, FactsOfAll(rs, pods), manage_error, now);
}

std::optional<TimePoint> NextAvailableAt(const json& rs, const PodRefs& pods,
                                         TimePoint now) {
  return NextAvailableAt(rs, FactsOfAll(rs, pods), now);
}

json CalculateStatus(const json& rs, const std::vector<PodFacts>& pods,
                     const std::optional<std::string>& manage_error,
                     TimePoint now) {
  json status = ObjectAt(rs, "status");
  if (!status.is_object()) status = json::object();
  int64_t min_ready = IntAt(rs, {"spec", "minReadySeconds"});
  int64_t labeled = 0, ready = 0, available = 0;
  for (const PodFacts& f : pods) {
    if (f.labeled) labeled++;
    if (f.ready) {
      ready++;
      if (Available(f, min_ready, now)) available++;
    }
  }

  json conds = ArrayAt(status, "conditions");
  bool has_failure = false;
  for (const auto& c : conds) {
    if (c.value("type", "") == "ReplicaFailure") has_failure = true;
  }
  if (manage_error && !has_failure) {
    int64_t diff =
        static_cast<int64_t>(pods.size()) - IntAt(rs, {"spec", "replicas"}, 1);
    std::string reason = diff < 0   ? "FailedCreate"
                         : diff > 0 ? "FailedDelete"
                                    : "";
    conds.push_back({{"type", "ReplicaFailure"},
                     {"status", "True"},
                     {"lastTransitionTime", FormatRfc3339(now)},
                     {"reason", reason},
                     {"message", *manage_error}});
  } else if (!manage_error && has_failure) {
    json kept = json::array();
    for (const auto& c : conds) {
      if (c.value("type", "") != "ReplicaFailure") kept.push_back(c);
    }
    conds = kept;
  }
  if (conds.empty()) {
    status.erase("conditions");
  } else {
    status["conditions"] = conds;
  }
  status["replicas"] = static_cast<int64_t>(pods.size());
  // Zero counts are omitted, as the API's omitempty fields are.
  for (auto [field, n] :
       {std::pair<const char*, int64_t>{"fullyLabeledReplicas", labeled},
        {"readyReplicas", ready},
        {"availableReplicas", available}}) {
    if (n == 0) {
      status.erase(field);
    } else {
      status[field] = n;
    }
  }
  return status;
}

std::optional<TimePoint> NextAvailableAt(const json& rs,
                                         const std::vector<PodFacts>& pods,
                                         TimePoint now) {
  int64_t min_ready = IntAt(rs, {"spec", "minReadySeconds"});
  if (min_ready <= 0) return std::nullopt;
  std::optional<TimePoint> best;
  for (const PodFacts& f : pods) {
    if (!f.ready || Available(f, min_ready, now) || !f.ready_since) continue;
    TimePoint at = *f.ready_since + std::chrono::seconds(min_ready);
    if (!best || at < *best) best = at;
  }
  return best;
}

}  // namespace kmock::controllers::replicaset
