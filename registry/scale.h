// The scale subresource: an autoscaling/v1 Scale view of any kind that
// declares ResourceInfo::scale (where its replica counts and selector live).
//
// Thread safety: pure functions.
#ifndef KMOCK_REGISTRY_SCALE_H_
#define KMOCK_REGISTRY_SCALE_H_

#include <nlohmann/json.hpp>

#include "api/resource.h"
#include "common/status.h"

namespace kmock::registry {

// The Scale of obj: metadata (name, namespace, uid, resourceVersion,
// creationTimestamp), spec.replicas, status.replicas and status.selector.
// REQUIRES: res.scale.
nlohmann::json ScaleOf(const api::ResourceInfo& res, const nlohmann::json& obj);

// Checks a Scale sent by a client: 422 for negative or non-integer
// spec.replicas, with kube-apiserver's message.
Status ValidateScale(const nlohmann::json& scale);

// Sets the object's desired replicas from the Scale. REQUIRES: res.scale.
void ApplyScale(const api::ResourceInfo& res, const nlohmann::json& scale,
                nlohmann::json* obj);

}  // namespace kmock::registry

#endif  // KMOCK_REGISTRY_SCALE_H_
