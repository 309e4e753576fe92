// ReplicaSet printer, field selectors, defaulting, validation and
// strategies.
#include "api/kinds/replicaset.h"

#include <string>

#include "api/kinds/util.h"
#include "api/kinds/workload_common.h"

namespace kmock::api::kinds {

namespace {

json DefaultedSpec(const json& rs) {
  json copy = {{"spec", rs.contains("spec") ? rs["spec"] : json::object()}};
  DefaultReplicaSet(copy);
  return copy["spec"];
}

class ReplicaSetStrategyImpl : public Strategy {
 public:
  void PrepareForCreate(json& obj) const override {
    obj["status"] = {{"replicas", 0}};
    ObjectAt(obj, "metadata")["generation"] = 1;
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

  void Default(json& obj) const override { DefaultReplicaSet(obj); }

  void Validate(const json& obj, FieldErrors* errs) const override {
    ValidateReplicaSet(obj, errs);
  }

  void ValidateUpdate(const json& obj, const json& old,
                      FieldErrors* errs) const override {
    ValidateReplicaSetUpdate(obj, old, errs);
  }
};

class ReplicaSetStatusStrategyImpl : public StatusStrategy {
 public:
  explicit ReplicaSetStatusStrategyImpl(const Strategy* main)
      : StatusStrategy(main) {}

  void ValidateUpdate(const json& obj, const json& old,
                      FieldErrors* errs) const override {
    ValidateReplicaSetStatusUpdate(obj, old, errs);
  }
};

}  // namespace

std::vector<SelectableField> ReplicaSetSelectableFields() {
  return {
      SelectableField{"status.replicas",
                      [](const json& rs) {
                        return std::to_string(Int(rs, {"status", "replicas"}));
                      },
                      {"status"}}};
}

void DefaultReplicaSet(json& rs) {
  json& spec = ObjectAt(rs, "spec");
  if (!spec.contains("replicas") || spec["replicas"].is_null()) {
    spec["replicas"] = 1;
  }
  DefaultPodTemplate(ObjectAt(spec, "template"));
}

void ValidateReplicaSet(const json& rs, FieldErrors* errs) {
  json empty = json::object();
  const json* specp = Find(rs, {"spec"});
  const json& spec = specp && specp->is_object() ? *specp : empty;
  ValidateNonNegative(spec, {"replicas"}, "spec.replicas", errs);
  ValidateNonNegative(spec, {"minReadySeconds"}, "spec.minReadySeconds", errs);
  ValidateSelectorAndTemplate(spec, errs);
}

void ValidateReplicaSetUpdate(const json& rs, const json& old,
                              FieldErrors* errs) {
  ValidateSelectorUnchanged(rs, old, errs);
}

void ValidateReplicaSetStatusUpdate(const json& rs, const json& /*old*/,
                                    FieldErrors* errs) {
  for (const char* f :
       {"replicas", "fullyLabeledReplicas", "readyReplicas",
        "availableReplicas", "terminatingReplicas", "observedGeneration"}) {
    ValidateNonNegative(rs, {"status", f}, std::string("status.") + f, errs);
  }
  int64_t replicas = Int(rs, {"status", "replicas"});
  int64_t ready = Int(rs, {"status", "readyReplicas"});
  int64_t available = Int(rs, {"status", "availableReplicas"});
  const char kMsg[] = "cannot be greater than status.replicas";
  for (const char* f :
       {"fullyLabeledReplicas", "readyReplicas", "availableReplicas"}) {
    int64_t v = Int(rs, {"status", f});
    if (v > replicas) errs->Invalid(std::string("status.") + f, v, kMsg);
  }
  if (available > ready) {
    errs->Invalid("status.availableReplicas", available,
                  "cannot be greater than readyReplicas");
  }
}

const Strategy* ReplicaSetStrategy() {
  static const ReplicaSetStrategyImpl kStrategy;
  return &kStrategy;
}

const Strategy* ReplicaSetStatusStrategy() {
  static const ReplicaSetStatusStrategyImpl kStrategy(ReplicaSetStrategy());
  return &kStrategy;
}

}  // namespace kmock::api::kinds
