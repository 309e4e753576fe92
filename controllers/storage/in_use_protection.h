// What kube-controller-manager's pvc-protection and pv-protection
// controllers decide, as pure functions over objects (the controllers are
// pvc_protection_controller.h and pv_protection_controller.h; the
// finalizers come from the StorageObjectInUseProtection admission plugin,
// registry/admission/storage_object_in_use_protection.h):
//
// - a claim in use keeps kubernetes.io/pvc-protection while it is being
//   deleted. A pod uses it when the pod is scheduled (spec.nodeName set:
//   an unscheduled pod never starts, as the kubelet refuses a claim being
//   deleted) and has a persistentVolumeClaim volume naming it, whatever
//   the pod's phase (a Succeeded or Failed pod still holds its claim until
//   the pod is deleted), or an ephemeral volume whose generated claim
//   "<pod>-<volume>" it is (and the pod controls the claim) unless the pod
//   is shut down (deleted with a zero grace period);
// - a volume keeps kubernetes.io/pv-protection while it is Bound;
// - an object not being deleted that lacks its finalizer gets it (objects
//   made before the admission plugin).
//
// Thread safety: pure functions.
#ifndef KMOCK_CONTROLLERS_STORAGE_IN_USE_PROTECTION_H_
#define KMOCK_CONTROLLERS_STORAGE_IN_USE_PROTECTION_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace kmock::controllers::storage {

using nlohmann::json;

bool HasFinalizer(const json& obj, std::string_view finalizer);
// Being deleted and still holding `finalizer`.
bool IsDeletionCandidate(const json& obj, std::string_view finalizer);
// Not being deleted and lacking `finalizer`.
bool NeedsFinalizer(const json& obj, std::string_view finalizer);

// Removes every `finalizer` from obj's metadata.finalizers; appends it
// once when absent.
void RemoveFinalizer(json& obj, std::string_view finalizer);
void AddFinalizer(json& obj, std::string_view finalizer);

// The names (in the pod's namespace) of the claims the pod's volumes refer
// to: persistentVolumeClaim.claimName, and "<pod>-<volume>" for ephemeral
// volumes. What the pods are indexed by.
std::vector<std::string> PodClaimNames(const json& pod);

// Whether `pod` keeps `claim` (same namespace) from going.
bool PodUsesClaim(const json& pod, const json& claim);

// Whether a pod's add or update may let a claim go (the pod is not
// scheduled, or has terminated: Succeeded, Failed, or being deleted with
// no container running), so its claims are worth a look.
bool PodMayReleaseClaims(const json& pod);

// Whether the volume keeps kubernetes.io/pv-protection: it is Bound.
bool VolumeInUse(const json& volume);

}  // namespace kmock::controllers::storage

#endif  // KMOCK_CONTROLLERS_STORAGE_IN_USE_PROTECTION_H_
