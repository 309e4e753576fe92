// Small readers and builders shared by the ReplicaSet and Deployment
// controllers: typed access to fields of objects held as JSON, controller
// ownerReferences, and the pod states the workload controllers count
// (active, ready, available).
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_CONTROLLERS_APPS_OBJECT_UTIL_H_
#define KMOCK_CONTROLLERS_APPS_OBJECT_UTIL_H_

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "common/clock.h"
#include "common/status.h"

namespace kmock::controllers::apps {

using nlohmann::json;

// The "namespace/name" key of obj's controller of the given kind of
// `group` (apps, batch; "" for the core group's v1) when `lookup(key)` finds
// that owner with the referenced uid; nullopt otherwise (no controller, another
// kind, or a stale reference).
std::optional<std::string> ControllerOwnerKey(
    const json& obj, const std::string& kind,
    const std::function<std::shared_ptr<const json>(const std::string&)>&
        lookup,
    const std::string& group = "apps");

// spec.selector as a metav1.LabelSelector: a ReplicationController's plain
// label map becomes its matchLabels.
json SelectorJsonOf(const json& owner);

// The integer at `path`, or `def` when absent or not a number.
int64_t IntAt(const json& obj, std::initializer_list<const char*> path,
              int64_t def = 0);
// The string at `path`, or "" when absent or not a string.
std::string StrAt(const json& obj, std::initializer_list<const char*> path);

std::string NameOf(const json& obj);
std::string NamespaceOf(const json& obj);
std::string UidOf(const json& obj);
bool IsBeingDeleted(const json& obj);
// Ok when `current` (the stored object an update is about to change) is
// still at `view_rv`, the resourceVersion of the cached copy the change was
// decided on; otherwise the Conflict kube-apiserver answers an Update
// carrying that resourceVersion, so a decision made on a stale cache is
// retried on a fresh one instead of overwriting newer state. An empty
// view_rv accepts any version. `resource` names it in the message
// ("replicasets.apps").
Status RequireUnchangedSince(const json& current, const std::string& view_rv,
                             const std::string& resource);
// metadata.creationTimestamp (epoch when absent or malformed).
TimePoint CreationTime(const json& obj);

// The ownerReference with controller: true, if any (null if none); points
// into obj.
const json* ControllerRefOf(const json& obj);
// {apiVersion, kind, name, uid, controller: true, blockOwnerDeletion: true}.
json MakeControllerRef(const json& owner, const std::string& api_version,
                       const std::string& kind);

// Adds `ref` (a controller reference) to obj's ownerReferences: how a
// controller adopts an orphan. Conflict when obj has a controller already
// or is being deleted.
Status AddControllerRef(json* obj, const json& ref);
// Removes the ownerReferences entry with this uid (the field goes when it
// was the last): how a controller releases an object it no longer selects.
void DropOwnerRef(json* obj, const std::string& uid);

// Pods: not terminal (Succeeded/Failed) and not being deleted.
bool IsPodActive(const json& pod);
// The Ready condition is True.
bool IsPodReady(const json& pod);
// Ready for at least min_ready_seconds by `now` (a 0 means ready).
bool IsPodAvailable(const json& pod, int64_t min_ready_seconds, TimePoint now);
// When the Ready condition last turned True (nullopt when not ready or no
// time recorded).
std::optional<TimePoint> PodReadyTime(const json& pod);

}  // namespace kmock::controllers::apps

#endif  // KMOCK_CONTROLLERS_APPS_OBJECT_UTIL_H_
