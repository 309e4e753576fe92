// apps/v1 Deployment: Table columns and cells (as kube-apiserver's
// deployment printer), apps/v1 defaulting, validation in kube-apiserver's
// paths and words, and the main and status strategies.
//
// Thread safety: pure functions and stateless strategies; safe from any
// thread.
#ifndef KMOCK_API_KINDS_DEPLOYMENT_H_
#define KMOCK_API_KINDS_DEPLOYMENT_H_

#include <nlohmann/json.hpp>
#include <vector>

#include "api/field_errors.h"
#include "api/resource.h"
#include "common/clock.h"

namespace kmock::api::kinds {

// apps/v1 defaults (idempotent): replicas 1, strategy RollingUpdate with
// maxUnavailable and maxSurge 25% (Recreate gets no rollingUpdate),
// revisionHistoryLimit 10, progressDeadlineSeconds 600, and the pod
// defaults on the template.
void DefaultDeployment(json& deployment);

// The spec of a defaulted deployment.
void ValidateDeployment(const json& deployment, FieldErrors* errs);
// What an update may not do besides: change the selector.
void ValidateDeploymentUpdate(const json& deployment, const json& old,
                              FieldErrors* errs);
// A status write: counts non-negative and consistent, collisionCount never
// decremented.
void ValidateDeploymentStatusUpdate(const json& deployment, const json& old,
                                    FieldErrors* errs);

// Create clears the status and sets generation 1; update keeps the status
// and bumps the generation when the spec or the annotations change.
const Strategy* DeploymentStrategy();
// Status writes keep the spec and the labels.
const Strategy* DeploymentStatusStrategy();

}  // namespace kmock::api::kinds

#endif  // KMOCK_API_KINDS_DEPLOYMENT_H_
