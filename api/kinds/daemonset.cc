// DaemonSet defaulting, validation and template generation.
#include "api/kinds/daemonset.h"

#include <string>

#include "api/kinds/util.h"
#include "api/kinds/workload_common.h"

namespace kmock::api::kinds {

namespace {

constexpr char kRollingUpdatePath[] = "spec.updateStrategy.rollingUpdate.";

void ValidateUpdateStrategy(const json& spec, FieldErrors* errs) {
  const json* strategy = Find(spec, {"updateStrategy"});
  if (strategy == nullptr || !strategy->is_object()) return;
  const std::string type = Str(*strategy, {"type"});
  const json* ru = Find(*strategy, {"rollingUpdate"});
  if (ru != nullptr && ru->is_null()) ru = nullptr;
  if (type == "OnDelete") return;
  if (type != "RollingUpdate") {
    // Go's %#v of the internal struct; a set pointer prints as an address.
    std::string rendered =
        "apps.DaemonSetUpdateStrategy{Type:" + FieldValueString(json(type)) +
        ", RollingUpdate:(*apps.RollingUpdateDaemonSet)(" +
        (ru ? "0xc000b2a3c0" : "nil") + ")}";
    errs->Add(StatusCause{"FieldValueNotSupported",
                          "Unsupported value: " + rendered +
                              ": supported values: \"RollingUpdate\", "
                              "\"OnDelete\"",
                          "spec.updateStrategy"});
    return;
  }
  if (ru == nullptr) {
    errs->Required(
        std::string(kRollingUpdatePath, sizeof(kRollingUpdatePath) - 2));
    return;
  }
  bool has_unavailable = false;
  bool has_surge = false;
  for (const char* name : {"maxUnavailable", "maxSurge"}) {
    const json* v = Find(*ru, {name});
    if (v == nullptr || v->is_null() || IntOrPercentValue(v) == 0) continue;
    const std::string path = std::string(kRollingUpdatePath) + name;
    (std::string(name) == "maxSurge" ? has_surge : has_unavailable) = true;
    ValidatePositiveIntOrPercent(v, path, errs);
    if (auto p = Percent(v); p && *p > 100) {
      InvalidRendered(errs, path, GoIntOrString(v),
                      "must not be greater than 100%");
    }
  }
  if (has_unavailable && has_surge) {
    InvalidRendered(errs, std::string(kRollingUpdatePath) + "maxSurge",
                    GoIntOrString(Find(*ru, {"maxSurge"})),
                    "may not be set when maxUnavailable is non-zero");
  } else if (!has_unavailable && !has_surge) {
    errs->Required(std::string(kRollingUpdatePath) + "maxUnavailable",
                   "cannot be 0 when maxSurge is 0");
  }
}

int64_t TemplateGeneration(const json& ds) {
  const std::string v = Str(
      ds, {"metadata", "annotations", kDaemonSetTemplateGenerationAnnotation});
  int64_t n = 0;
  for (char c : v) {
    if (c < '0' || c > '9' || n > (int64_t{1} << 50)) return 0;
    n = n * 10 + (c - '0');
  }
  return n;
}

void SetTemplateGeneration(json& ds, int64_t generation) {
  ObjectAt(ObjectAt(ds, "metadata"),
           "annotations")[kDaemonSetTemplateGenerationAnnotation] =
      std::to_string(generation);
}

}  // namespace

void DefaultDaemonSet(json& ds) {
  json& spec = ObjectAt(ds, "spec");
  json& strategy = ObjectAt(spec, "updateStrategy");
  if (Str(strategy, {"type"}).empty()) strategy["type"] = "RollingUpdate";
  if (strategy["type"] == "RollingUpdate") {
    json& ru = ObjectAt(strategy, "rollingUpdate");
    if (!ru.contains("maxUnavailable") || ru["maxUnavailable"].is_null()) {
      ru["maxUnavailable"] = 1;
    }
    if (!ru.contains("maxSurge") || ru["maxSurge"].is_null()) {
      ru["maxSurge"] = 0;
    }
  }
  if (!spec.contains("revisionHistoryLimit") ||
      spec["revisionHistoryLimit"].is_null()) {
    spec["revisionHistoryLimit"] = 10;
  }
  DefaultPodTemplate(ObjectAt(spec, "template"));
  if (TemplateGeneration(ds) < 1) SetTemplateGeneration(ds, 1);
}

void ValidateDaemonSet(const json& ds, FieldErrors* errs) {
  json empty = json::object();
  const json* specp = Find(ds, {"spec"});
  const json& spec = specp && specp->is_object() ? *specp : empty;
  ValidateSelectorAndTemplate(spec, errs, "daemonset");
  ValidateNonNegative(spec, {"minReadySeconds"}, "spec.minReadySeconds", errs);
  ValidateUpdateStrategy(spec, errs);
  ValidateNonNegative(spec, {"revisionHistoryLimit"},
                      "spec.revisionHistoryLimit", errs);
}

void ValidateDaemonSetUpdate(const json& ds, const json& old,
                             FieldErrors* errs) {
  ValidateSelectorUnchanged(ds, old, errs);
  ValidateDaemonSet(ds, errs);
}

void KeepDaemonSetTemplateGeneration(json& ds, const json& old) {
  const json* now = Find(ds, {"spec", "template"});
  const json* was = Find(old, {"spec", "template"});
  const bool changed =
      (now == nullptr) != (was == nullptr) || (now != nullptr && *now != *was);
  const int64_t before = std::max<int64_t>(TemplateGeneration(old), 1);
  SetTemplateGeneration(ds, changed ? before + 1 : before);
}

}  // namespace kmock::api::kinds
