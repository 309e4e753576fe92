// v1 ReplicationController: defaulting (the selector and the object's labels
// from the template's labels when unset, replicas 1, the pod defaults on the
// template) and validation in kube-apiserver's paths and words (a selector
// is required, is a plain label map and must match the template's labels).
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_API_KINDS_REPLICATION_CONTROLLER_H_
#define KMOCK_API_KINDS_REPLICATION_CONTROLLER_H_

#include <nlohmann/json.hpp>

#include "api/field_errors.h"

namespace kmock::api::kinds {

void DefaultReplicationController(nlohmann::json& rc);
void ValidateReplicationController(const nlohmann::json& rc, FieldErrors* errs);

}  // namespace kmock::api::kinds

#endif  // KMOCK_API_KINDS_REPLICATION_CONTROLLER_H_
