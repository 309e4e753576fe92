// Pod strategies: create/update preparation, update rules, graceful
// deletion and the status subresource.
#include <set>
#include <string>

#include "api/kinds/pod.h"
#include "api/kinds/util.h"
#include "common/json_view.h"

namespace kmock::api::kinds {

namespace {

const char kPodUpdateForbidden[] =
    "pod updates may not change fields other than "
    "`spec.containers[*].image`,`spec.initContainers[*].image`,"
    "`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to "
    "existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to "
    "be set to 1 if it was previously negative)";

json DefaultedSpec(const json& pod) {
  json copy = {{"spec", pod.contains("spec") ? pod["spec"] : json::object()}};
  DefaultPod(copy);
  return copy["spec"];
}

// A short, cmp.Diff-like listing of the top-level spec fields that differ.
std::string SpecDiff(const json& old_spec, const json& new_spec) {
  std::string out = "  core.PodSpec{\n";
  std::set<std::string> keys;
  for (auto it = old_spec.begin(); it != old_spec.end(); ++it)
    keys.insert(it.key());
  for (auto it = new_spec.begin(); it != new_spec.end(); ++it)
    keys.insert(it.key());
  for (const std::string& k : keys) {
    json o = old_spec.contains(k) ? old_spec[k] : json();
    json n = new_spec.contains(k) ? new_spec[k] : json();
    if (o == n) continue;
    if (!o.is_null()) out += "- \t" + k + ": " + o.dump() + ",\n";
    if (!n.is_null()) out += "+ \t" + k + ": " + n.dump() + ",\n";
  }
  out += "  }\n";
  return out;
}

bool TolerationsOnlyAdded(const json& old_t, const json& new_t) {
  if (!old_t.is_array()) return true;
  if (!new_t.is_array()) return old_t.empty();
  for (const json& o : old_t) {
    bool found = false;
    for (const json& n : new_t) {
      json a = o, b = n;
      // tolerationSeconds may change on an existing NoExecute toleration.
      a.erase("tolerationSeconds");
      b.erase("tolerationSeconds");
      if (a == b) found = true;
    }
    if (!found) return false;
  }
  return true;
}

class PodStrategyImpl : public Strategy {
 public:
  void PrepareForCreate(json& obj) const override {
    AdmitPod(obj, TokenVolumeSuffix(obj));
    DefaultPod(obj);
    ObjectAt(obj, "metadata")["generation"] = 1;
    obj["status"] = {{"phase", "Pending"}, {"qosClass", PodQosClass(obj)}};
  }

  void PrepareForUpdate(json& obj, const json& old) const override {
    if (old.contains("status")) {
      obj["status"] = old["status"];
    } else {
      obj.erase("status");
    }
    int64_t generation = Int(old, {"metadata", "generation"});
    if (DefaultedSpec(obj) != DefaultedSpec(old)) ++generation;
    ObjectAt(obj, "metadata")["generation"] = generation;
  }

  void Default(json& obj) const override { DefaultPod(obj); }

  void Validate(const json& obj, FieldErrors* errs) const override {
    ValidatePod(obj, errs);
  }

  void ValidateUpdate(const json& obj, const json& old,
                      FieldErrors* errs) const override {
    ValidatePodUpdate(obj, old, errs);
  }

  std::optional<int64_t> GracePeriodSeconds(
      const json& obj, std::optional<int64_t> requested) const override {
    int64_t period = 0;
    if (requested) {
      period = *requested;
    } else if (const json* t =
                   Find(obj, {"spec", "terminationGracePeriodSeconds"});
               t && t->is_number()) {
      period = t->get<int64_t>();
    }
    // Unscheduled and finished pods have nothing to stop.
    if (Str(obj, {"spec", "nodeName"}).empty()) period = 0;
    std::string phase = Str(obj, {"status", "phase"});
    if (phase == "Failed" || phase == "Succeeded") period = 0;
    if (period < 0) period = 1;
    if (period == 0) return std::nullopt;
    return period;
  }
};

class PodStatusStrategyImpl : public StatusStrategy {
 public:
  explicit PodStatusStrategyImpl(const Strategy* main) : StatusStrategy(main) {}

  void PrepareForUpdate(json& obj, const json& old) const override {
    std::string qos = Str(obj, {"status", "qosClass"});
    StatusStrategy::PrepareForUpdate(obj, old);
    // The QoS class is fixed at creation; a writer that drops it keeps it.
    if (qos.empty() && !Str(old, {"status", "qosClass"}).empty() &&
        obj.contains("status") && obj["status"].is_object()) {
      obj["status"]["qosClass"] = old["status"]["qosClass"];
    }
  }
};

}  // namespace

void ValidatePodUpdate(const json& pod, const json& old, FieldErrors* errs) {
  json new_spec = DefaultedSpec(pod);
  json old_spec = DefaultedSpec(old);
  json munged = new_spec;
  // Images may change, container by container.
  for (const char* list : {"containers", "initContainers"}) {
    if (munged.contains(list) && old_spec.contains(list) &&
        munged[list].is_array() && old_spec[list].is_array() &&
        munged[list].size() == old_spec[list].size()) {
      for (size_t i = 0; i < munged[list].size(); ++i) {
        if (munged[list][i].is_object() && old_spec[list][i].is_object() &&
            old_spec[list][i].contains("image")) {
          munged[list][i]["image"] = old_spec[list][i]["image"];
        }
      }
    }
  }
  // activeDeadlineSeconds may be set or lowered.
  if (old_spec.contains("activeDeadlineSeconds")) {
    munged["activeDeadlineSeconds"] = old_spec["activeDeadlineSeconds"];
  } else {
    munged.erase("activeDeadlineSeconds");
  }
  // Tolerations may only be added to.
  if (TolerationsOnlyAdded(ValueAt(old_spec, "tolerations"),
                           ValueAt(new_spec, "tolerations"))) {
    if (old_spec.contains("tolerations")) {
      munged["tolerations"] = old_spec["tolerations"];
    } else {
      munged.erase("tolerations");
    }
  }
  // A negative grace period may be raised to 1.
  if (Int(old_spec, {"terminationGracePeriodSeconds"}, 0) < 0 &&
      Int(new_spec, {"terminationGracePeriodSeconds"}, 0) == 1) {
    munged["terminationGracePeriodSeconds"] =
        old_spec["terminationGracePeriodSeconds"];
  }
  // Scheduling gates may be removed.
  if (munged.contains("schedulingGates") ||
      old_spec.contains("schedulingGates")) {
    if (old_spec.contains("schedulingGates")) {
      munged["schedulingGates"] = old_spec["schedulingGates"];
    } else {
      munged.erase("schedulingGates");
    }
  }
  if (munged != old_spec) {
    errs->Forbidden("spec", std::string(kPodUpdateForbidden) + "\n" +
                                SpecDiff(old_spec, munged));
  }
  if (const json* ads = Find(pod, {"spec", "activeDeadlineSeconds"});
      ads && ads->is_number()) {
    int64_t v = ads->get<int64_t>();
    int64_t ov = Int(old, {"spec", "activeDeadlineSeconds"}, 0);
    if (v < 1 || v > 2147483647) {
      errs->Invalid("spec.activeDeadlineSeconds", v,
                    "must be between 1 and 2147483647, inclusive");
    } else if (ov != 0 && v > ov) {
      errs->Invalid("spec.activeDeadlineSeconds", v,
                    "must be less than or equal to previous value");
    }
  } else if (Find(old, {"spec", "activeDeadlineSeconds"})) {
    errs->Invalid("spec.activeDeadlineSeconds", nullptr,
                  "must not update from a positive integer to nil value");
  }
  const json& containers = Array(pod, {"spec", "containers"});
  for (size_t i = 0; i < containers.size(); ++i) {
    if (Str(containers[i], {"image"}).empty()) {
      errs->Required("spec.containers[" + std::to_string(i) + "].image");
    }
  }
}

const Strategy* PodStrategy() {
  static const PodStrategyImpl kStrategy;
  return &kStrategy;
}

const Strategy* PodStatusStrategy() {
  static const PodStatusStrategyImpl kStrategy(PodStrategy());
  return &kStrategy;
}

}  // namespace kmock::api::kinds
