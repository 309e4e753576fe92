#include "api/kinds/policy_checks.h"

#include "api/kinds/util.h"
#include "api/kinds/workload_common.h"
#include "common/json_view.h"

namespace kmock::api::kinds {

using nlohmann::json;

namespace {

// A set pointer in Go's %#v of the spec; the address is the process's own.
std::string GoIntOrStringPointer(const json* v) {
  return v ? "(*intstr.IntOrString)(0xc000b2e5a0)"
           : "(*intstr.IntOrString)(nil)";
}

void ValidateIntOrPercentBound(const json* v, const std::string& field,
                               FieldErrors* errs) {
  if (v == nullptr) return;
  ValidatePositiveIntOrPercent(v, field, errs);
  if (auto p = Percent(v); p && *p > 100) {
    InvalidRendered(errs, field, GoIntOrString(v),
                    "must not be greater than 100%");
  }
}

}  // namespace

void ValidatePodDisruptionBudget(const json& obj, FieldErrors* errs) {
  const json& spec = kmock::ObjectAt(obj, "spec");
  const json* min = Find(spec, {"minAvailable"});
  const json* max = Find(spec, {"maxUnavailable"});
  if (min && min->is_null()) min = nullptr;
  if (max && max->is_null()) max = nullptr;
  if (min && max) {
    const json* selector = Find(spec, {"selector"});
    InvalidRendered(errs, "spec",
                    "policy.PodDisruptionBudgetSpec{MinAvailable:" +
                        GoIntOrStringPointer(min) + ", Selector:" +
                        (selector && selector->is_object()
                             ? std::string("(*v1.LabelSelector)(0xc000b2e5c0)")
                             : std::string("(*v1.LabelSelector)(nil)")) +
                        ", MaxUnavailable:" + GoIntOrStringPointer(max) +
                        ", UnhealthyPodEvictionPolicy:(*policy."
                        "UnhealthyPodEvictionPolicyType)(nil)}",
                    "minAvailable and maxUnavailable cannot be both set");
  }
  ValidateIntOrPercentBound(min, "spec.minAvailable", errs);
  ValidateIntOrPercentBound(max, "spec.maxUnavailable", errs);
  const json& selector = ValueAt(spec, "selector");
  if (selector.is_object()) {
    ValidateLabelSelector(selector, "spec.selector", errs);
  }
  const json& policy = ValueAt(spec, "unhealthyPodEvictionPolicy");
  if (policy.is_string() && policy != "AlwaysAllow" &&
      policy != "IfHealthyBudget") {
    errs->NotSupported("spec.unhealthyPodEvictionPolicy", policy,
                       {"AlwaysAllow", "IfHealthyBudget"});
  }
}

}  // namespace kmock::api::kinds
