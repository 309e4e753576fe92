// ComponentStatus, the deprecated health view of the control plane that
// `kubectl get componentstatuses` prints: kube-apiserver computes it on
// every read from its probes of the scheduler, the controller manager and
// etcd. All three run in this process and answer while it serves, so each
// reads Healthy with kube-apiserver's "ok".
//
// Thread safety: a pure function.
#ifndef KMOCK_API_KINDS_COMPONENT_STATUS_H_
#define KMOCK_API_KINDS_COMPONENT_STATUS_H_

#include <nlohmann/json.hpp>
#include <vector>

namespace kmock::api::kinds {

// The items in the order kube-apiserver lists them.
std::vector<nlohmann::json> ComponentStatuses();

}  // namespace kmock::api::kinds

#endif  // KMOCK_API_KINDS_COMPONENT_STATUS_H_
