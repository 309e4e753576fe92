// apps/v1 ReplicaSet: Table columns and cells (as kube-apiserver's replica
// set printer), the status.replicas field selector, apps/v1 defaulting,
// validation in kube-apiserver's paths and words, and the main and status
// strategies.
//
// Thread safety: pure functions and stateless strategies; safe from any
// thread.
#ifndef KMOCK_API_KINDS_REPLICASET_H_
#define KMOCK_API_KINDS_REPLICASET_H_

#include <nlohmann/json.hpp>
#include <vector>

#include "api/field_errors.h"
#include "api/resource.h"
#include "common/clock.h"

namespace kmock::api::kinds {

// status.replicas.
std::vector<SelectableField> ReplicaSetSelectableFields();

// apps/v1 defaults (idempotent): replicas 1 and the pod defaults on the
// template.
void DefaultReplicaSet(json& rs);

void ValidateReplicaSet(const json& rs, FieldErrors* errs);
// What an update may not do besides: change the selector.
void ValidateReplicaSetUpdate(const json& rs, const json& old,
                              FieldErrors* errs);
// A status write: counts non-negative and consistent.
void ValidateReplicaSetStatusUpdate(const json& rs, const json& old,
                                    FieldErrors* errs);

// Create sets status {replicas: 0} and generation 1; update keeps the
// status and bumps the generation when the spec changes.
const Strategy* ReplicaSetStrategy();
// Status writes keep the spec.
const Strategy* ReplicaSetStatusStrategy();

}  // namespace kmock::api::kinds

#endif  // KMOCK_API_KINDS_REPLICASET_H_
