// What kube-apiserver checks of PodDisruptionBudgets, with its messages:
// minAvailable and maxUnavailable not both set, each an integer not below
// 0 or a percentage not above 100%, a valid label selector, and a known
// unhealthyPodEvictionPolicy.
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_API_KINDS_POLICY_CHECKS_H_
#define KMOCK_API_KINDS_POLICY_CHECKS_H_

#include <nlohmann/json.hpp>

#include "api/field_errors.h"

namespace kmock::api::kinds {

void ValidatePodDisruptionBudget(const nlohmann::json& obj, FieldErrors* errs);

}  // namespace kmock::api::kinds

#endif  // KMOCK_API_KINDS_POLICY_CHECKS_H_
