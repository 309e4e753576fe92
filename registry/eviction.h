// pods/eviction: a delete that respects PodDisruptionBudgets, as
// kube-apiserver's eviction subresource does it (what `kubectl drain`
// calls). A pod that is finished, pending or already terminating is
// deleted at once; else the one budget selecting it must allow a
// disruption, which the eviction spends (status.disruptionsAllowed - 1,
// the pod recorded in status.disruptedPods for the disruption controller)
// before the pod gets its DisruptionTarget condition and is deleted. A
// budget that forbids it answers 429 with a DisruptionBudget cause.
//
// Thread safety: as Registry; concurrent evictions under one budget are
// serialized by the budget's resourceVersion (a conflict retries).
#ifndef KMOCK_REGISTRY_EVICTION_H_
#define KMOCK_REGISTRY_EVICTION_H_

#include <string_view>

#include "registry/registry.h"

namespace kmock::registry {

// `eviction` is the policy/v1 (or v1beta1) Eviction body; `opts` the
// request's delete options, which the body's deleteOptions override.
// Returns the Success Status kube-apiserver answers (code 201).
Result<json> EvictPod(Registry& registry, std::string_view ns,
                      std::string_view pod_name, const json& eviction,
                      DeleteOptions opts);

}  // namespace kmock::registry

#endif  // KMOCK_REGISTRY_EVICTION_H_
