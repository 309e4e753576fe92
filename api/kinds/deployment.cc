// Deployment printer, defaulting, validation and strategies.
#include "api/kinds/deployment.h"

#include <string>

#include "api/kinds/util.h"
#include "api/kinds/workload_common.h"

namespace kmock::api::kinds {

namespace {

void SetIfAbsent(json& obj, const char* key, json value) {
  if (!obj.contains(key) || obj[key].is_null()) obj[key] = std::move(value);
}

void ValidateStrategy(const json& spec, FieldErrors* errs) {
  std::string type = Str(spec, {"strategy", "type"});
  const json* ru = Find(spec, {"strategy", "rollingUpdate"});
  if (ru && ru->is_null()) ru = nullptr;
  if (type == "Recreate") {
    if (ru) {
      errs->Forbidden("spec.strategy.rollingUpdate",
                      "may not be specified when strategy `type` is "
                      "'Recreate'");
    }
  } else if (type == "RollingUpdate") {
    if (!ru) {
      errs->Required("spec.strategy.rollingUpdate",
                     "this should be defaulted and never be nil");
      return;
    }
    const std::string path = "spec.strategy.rollingUpdate.";
    const json* mu = Find(*ru, {"maxUnavailable"});
    const json* ms = Find(*ru, {"maxSurge"});
    ValidatePositiveIntOrPercent(mu, path + "maxUnavailable", errs);
    ValidatePositiveIntOrPercent(ms, path + "maxSurge", errs);
    if (IntOrPercentValue(mu) == 0 && IntOrPercentValue(ms) == 0) {
      InvalidRendered(errs, path + "maxUnavailable", GoIntOrString(mu),
                      "may not be 0 when `maxSurge` is 0");
    }
    if (auto p = Percent(mu); p && *p > 100) {
      InvalidRendered(errs, path + "maxUnavailable", GoIntOrString(mu),
                      "must not be greater than 100%");
    }
  } else {
    // Go's %#v of the internal struct; a set pointer prints as an address.
    std::string rendered =
        "apps.DeploymentStrategy{Type:" + FieldValueString(json(type)) +
        ", RollingUpdate:(*apps.RollingUpdateDeployment)(" +
        (ru ? "0xc000a1c0f0" : "nil") + ")}";
    errs->Add(
        StatusCause{"FieldValueNotSupported",
                    "Unsupported value: " + rendered +
                        ": supported values: \"Recreate\", \"RollingUpdate\"",
                    "spec.strategy"});
  }
}

json DefaultedSpec(const json& d) {
  json copy = {{"spec", d.contains("spec") ? d["spec"] : json::object()}};
  DefaultDeployment(copy);
  return copy["spec"];
}

json Annotations(const json& d) {
  const json* a = Find(d, {"metadata", "annotations"});
  return a && a->is_object() && !a->empty() ? *a : json::object();
}

class DeploymentStrategyImpl : public Strategy {
 public:
  void PrepareForCreate(json& obj) const override {
    obj["status"] = json::object();
    ObjectAt(obj, "metadata")["generation"] = 1;
  }

  void PrepareForUpdate(json& obj, const json& old) const override {
    if (old.contains("status")) {
      obj["status"] = old["status"];
    } else {
      obj.erase("status");
    }
    // Annotations count too: the controller copies them to replica sets.
    int64_t generation = Int(old, {"metadata", "generation"});
    if (DefaultedSpec(obj) != DefaultedSpec(old) ||
        Annotations(obj) != Annotations(old)) {
      ++generation;
    }
    ObjectAt(obj, "metadata")["generation"] = generation;
  }

  void Default(json& obj) const override { DefaultDeployment(obj); }

  void Validate(const json& obj, FieldErrors* errs) const override {
    ValidateDeployment(obj, errs);
  }

  void ValidateUpdate(const json& obj, const json& old,
                      FieldErrors* errs) const override {
    ValidateDeploymentUpdate(obj, old, errs);
  }
};

class DeploymentStatusStrategyImpl : public StatusStrategy {
 public:
  explicit DeploymentStatusStrategyImpl(const Strategy* main)
      : StatusStrategy(main) {}

  void PrepareForUpdate(json& obj, const json& old) const override {
    StatusStrategy::PrepareForUpdate(obj, old);
    // A status writer may change annotations but not labels.
    const json* labels = Find(old, {"metadata", "labels"});
    if (labels) {
      ObjectAt(obj, "metadata")["labels"] = *labels;
    } else if (obj.contains("metadata") && obj["metadata"].is_object()) {
      obj["metadata"].erase("labels");
    }
  }

  void ValidateUpdate(const json& obj, const json& old,
                      FieldErrors* errs) const override {
    ValidateDeploymentStatusUpdate(obj, old, errs);
  }
};

}  // namespace

void DefaultDeployment(json& d) {
  json& spec = ObjectAt(d, "spec");
  SetIfAbsent(spec, "replicas", 1);
  json& strategy = ObjectAt(spec, "strategy");
  if (!strategy.contains("type") || strategy["type"].is_null() ||
      strategy["type"] == "") {
    strategy["type"] = "RollingUpdate";
  }
  if (strategy["type"] == "RollingUpdate") {
    json& ru = ObjectAt(strategy, "rollingUpdate");
    SetIfAbsent(ru, "maxUnavailable", "25%");
    SetIfAbsent(ru, "maxSurge", "25%");
  }
  SetIfAbsent(spec, "revisionHistoryLimit", 10);
  SetIfAbsent(spec, "progressDeadlineSeconds", 600);
  DefaultPodTemplate(ObjectAt(spec, "template"));
}

void ValidateDeployment(const json& d, FieldErrors* errs) {
  json empty = json::object();
  const json* specp = Find(d, {"spec"});
  const json& spec = specp && specp->is_object() ? *specp : empty;
  ValidateNonNegative(spec, {"replicas"}, "spec.replicas", errs);
  ValidateSelectorAndTemplate(spec, errs);
  ValidateStrategy(spec, errs);
  ValidateNonNegative(spec, {"minReadySeconds"}, "spec.minReadySeconds", errs);
  ValidateNonNegative(spec, {"revisionHistoryLimit"},
                      "spec.revisionHistoryLimit", errs);
  if (const json* pds = Find(spec, {"progressDeadlineSeconds"});
      pds && pds->is_number()) {
    ValidateNonNegative(spec, {"progressDeadlineSeconds"},
                        "spec.progressDeadlineSeconds", errs);
    if (pds->get<int64_t>() <= Int(spec, {"minReadySeconds"})) {
      errs->Invalid("spec.progressDeadlineSeconds", pds->get<int64_t>(),
                    "must be greater than minReadySeconds");
    }
  }
}

void ValidateDeploymentUpdate(const json& d, const json& old,
                              FieldErrors* errs) {
  ValidateSelectorUnchanged(d, old, errs);
}

void ValidateDeploymentStatusUpdate(const json& d, const json& old,
                                    FieldErrors* errs) {
  for (const char* f :
       {"observedGeneration", "replicas", "updatedReplicas", "readyReplicas",
        "availableReplicas", "unavailableReplicas", "terminatingReplicas",
        "collisionCount"}) {
    ValidateNonNegative(d, {"status", f}, std::string("status.") + f, errs);
  }
  int64_t replicas = Int(d, {"status", "replicas"});
  int64_t ready = Int(d, {"status", "readyReplicas"});
  int64_t available = Int(d, {"status", "availableReplicas"});
  const char kMsg[] = "cannot be greater than status.replicas";
  for (const char* f :
       {"updatedReplicas", "readyReplicas", "availableReplicas"}) {
    int64_t v = Int(d, {"status", f});
    if (v > replicas) errs->Invalid(std::string("status.") + f, v, kMsg);
  }
  if (available > ready) {
    errs->Invalid("status.availableReplicas", available,
                  "cannot be greater than readyReplicas");
  }
  const json* now = Find(d, {"status", "collisionCount"});
  const json* before = Find(old, {"status", "collisionCount"});
  if (before && before->is_number()) {
    int64_t n = now && now->is_number() ? now->get<int64_t>() : 0;
    if (!now || !now->is_number() || n < before->get<int64_t>()) {
      errs->Invalid("status.collisionCount", n, "cannot be decremented");
    }
  }
}

const Strategy* DeploymentStrategy() {
  static const DeploymentStrategyImpl kStrategy;
  return &kStrategy;
}

const Strategy* DeploymentStatusStrategy() {
  static const DeploymentStatusStrategyImpl kStrategy(DeploymentStrategy());
  return &kStrategy;
}

}  // namespace kmock::api::kinds
