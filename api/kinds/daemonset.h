// apps/v1 DaemonSet: defaulting, validation in kube-apiserver's paths and
// words, and the template generation kube-apiserver keeps in the
// deprecated.daemonset.template.generation annotation (1 on create, one
// more each time the pod template changes), which the DaemonSet controller
// stamps on its pods as pod-template-generation.
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_API_KINDS_DAEMONSET_H_
#define KMOCK_API_KINDS_DAEMONSET_H_

#include <nlohmann/json.hpp>

#include "api/field_errors.h"

namespace kmock::api::kinds {

inline constexpr char kDaemonSetTemplateGenerationAnnotation[] =
    "deprecated.daemonset.template.generation";

// apps/v1 defaults (idempotent): updateStrategy RollingUpdate with
// maxUnavailable 1 and maxSurge 0, revisionHistoryLimit 10, the pod
// defaults on the template, and template generation 1 when none is set.
void DefaultDaemonSet(nlohmann::json& ds);

void ValidateDaemonSet(const nlohmann::json& ds, FieldErrors* errs);
// An update: the spec as on create, and the selector unchanged.
void ValidateDaemonSetUpdate(const nlohmann::json& ds,
                             const nlohmann::json& old, FieldErrors* errs);
// The template generation of an update: one more than old's when the pod
// template changed, else old's.
void KeepDaemonSetTemplateGeneration(nlohmann::json& ds,
                                     const nlohmann::json& old);

}  // namespace kmock::api::kinds

#endif  // KMOCK_API_KINDS_DAEMONSET_H_
