// What kube-controller-manager's persistent volume controller decides,
// as pure functions: which Available volume a claim binds to (same class,
// enough capacity, the access modes and volume mode asked for, the
// smallest that fits; a volume already promised to the claim first), what
// a bound pair looks like on both sides, and the volume a provisioner
// makes for a claim. Only provisioners this cluster runs are simulated:
// the EBS CSI driver (ebs.csi.aws.com, which the in-tree kubernetes.io/
// aws-ebs name migrates to).
//
// Thread safety: pure functions.
#ifndef KMOCK_CONTROLLERS_STORAGE_VOLUME_BINDING_H_
#define KMOCK_CONTROLLERS_STORAGE_VOLUME_BINDING_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "controllers/informer.h"

namespace kmock::controllers::storage {

using nlohmann::json;

inline constexpr char kSelectedNodeAnnotation[] =
    "volume.kubernetes.io/selected-node";
inline constexpr char kBindCompletedAnnotation[] =
    "pv.kubernetes.io/bind-completed";
inline constexpr char kBoundByControllerAnnotation[] =
    "pv.kubernetes.io/bound-by-controller";
inline constexpr char kProvisionedByAnnotation[] =
    "pv.kubernetes.io/provisioned-by";
inline constexpr char kStorageProvisionerAnnotation[] =
    "volume.kubernetes.io/storage-provisioner";
inline constexpr char kBetaStorageProvisionerAnnotation[] =
    "volume.beta.kubernetes.io/storage-provisioner";
inline constexpr char kEbsCsiDriver[] = "ebs.csi.aws.com";
// Recent EBS CSI drivers write the well-known zone label into the
// volumes' node affinity, the label every node of this cluster carries.
inline constexpr char kEbsZoneKey[] = "topology.kubernetes.io/zone";

// The class a claim asks for ("" = none).
std::string ClaimClass(const json& claim);
// The CSI driver that provisions a class's volumes here, or "" when none
// of this cluster's provisioners serves it.
std::string SimulatedDriver(const json& storage_class);

// Whether `volume` may be bound to `claim`.
bool VolumeFits(const json& volume, const json& claim);
// The volume `claim` binds to among `volumes`, or null.
ObjectPtr BestVolume(const std::vector<ObjectPtr>& volumes, const json& claim);

// The volume with its claimRef set to `claim` (Bound).
json BindVolume(json volume, const json& claim);
// The claim bound to `volume` (spec.volumeName and the annotations; the
// status is set apart, through /status).
json BindClaim(json claim, const json& volume);
// The claim's status once bound.
json BoundClaimStatus(const json& volume);

// The volume the provisioner makes for a claim: named pvc-<claim uid>,
// capacity as requested, bound in advance to the claim, in `zone`.
json ProvisionedVolume(const json& claim, const json& storage_class,
                       const std::string& driver, const std::string& zone,
                       const std::string& volume_handle);

}  // namespace kmock::controllers::storage

#endif  // KMOCK_CONTROLLERS_STORAGE_VOLUME_BINDING_H_
