#include "controllers/storage/volume_binding.h"

#include <algorithm>

#include "common/json_view.h"
#include "controllers/quantity.h"

namespace kmock::controllers::storage {

namespace {

int64_t Bytes(const json& q) {
  auto v = ParseValue(q);
  return v.ok() ? *v : 0;
}

int64_t RequestedBytes(const json& claim) {
  return Bytes(ValueAt(
      ObjectAt(ObjectAt(ObjectAt(claim, "spec"), "resources"), "requests"),
      "storage"));
}

int64_t CapacityBytes(const json& volume) {
  return Bytes(
      ValueAt(ObjectAt(ObjectAt(volume, "spec"), "capacity"), "storage"));
}

std::string VolumeMode(const json& obj) {
  std::string mode = StringAt(ObjectAt(obj, "spec"), "volumeMode");
  return mode.empty() ? "Filesystem" : mode;
}

bool Deleting(const json& obj) {
  return ObjectAt(obj, "metadata").contains("deletionTimestamp");
}

}  // namespace

std::string ClaimClass(const json& claim) {
  return StringAt(ObjectAt(claim, "spec"), "storageClassName");
}

std::string SimulatedDriver(const json& storage_class) {
  const std::string p = StringAt(storage_class, "provisioner");
  if (p == kEbsCsiDriver || p == "kubernetes.io/aws-ebs") return kEbsCsiDriver;
  return "";
}

bool VolumeFits(const json& volume, const json& claim) {
  if (Deleting(volume)) return false;
  const json& spec = ObjectAt(volume, "spec");
  const json& ref = ObjectAt(spec, "claimRef");
  const json& claim_meta = ObjectAt(claim, "metadata");
  if (!ref.empty()) {
    if (StringAt(ref, "name") != StringAt(claim_meta, "name") ||
        StringAt(ref, "namespace") != StringAt(claim_meta, "namespace")) {
      return false;
    }
    const std::string uid = StringAt(ref, "uid");
    if (!uid.empty() && uid != StringAt(claim_meta, "uid")) return false;
  } else if (StringAt(ObjectAt(volume, "status"), "phase") != "Available") {
    return false;
  }
  if (StringAt(spec, "storageClassName") != ClaimClass(claim)) return false;
  if (VolumeMode(volume) != VolumeMode(claim)) return false;
  if (CapacityBytes(volume) < RequestedBytes(claim)) return false;
  const json& offered = ArrayAt(spec, "accessModes");
  for (const json& mode : ArrayAt(ObjectAt(claim, "spec"), "accessModes")) {
    if (std::find(offered.begin(), offered.end(), mode) == offered.end())
      return false;
  }
  return true;
}

ObjectPtr BestVolume(const std::vector<ObjectPtr>& volumes, const json& claim) {
  ObjectPtr best;
  for (const ObjectPtr& v : volumes) {
    if (!VolumeFits(*v, claim)) continue;
    // A volume already promised to this claim wins outright.
    if (!ObjectAt(ObjectAt(*v, "spec"), "claimRef").empty()) return v;
    if (best == nullptr || CapacityBytes(*v) < CapacityBytes(*best)) best = v;
  }
  return best;
}

json BindVolume(json volume, const json& claim) {
  const json& meta = ObjectAt(claim, "metadata");
  json& ref = volume["spec"]["claimRef"];
  const bool promised = ref.is_object() && !ref.empty();
  ref = {{"kind", "PersistentVolumeClaim"},
         {"namespace", StringAt(meta, "namespace")},
         {"name", StringAt(meta, "name")},
         {"uid", StringAt(meta, "uid")},
         {"apiVersion", "v1"},
         {"resourceVersion", StringAt(meta, "resourceVersion")}};
  if (!promised)
    volume["metadata"]["annotations"][kBoundByControllerAnnotation] = "yes";
  return volume;
}

json BindClaim(json claim, const json& volume) {
  claim["spec"]["volumeName"] = StringAt(ObjectAt(volume, "metadata"), "name");
  json& annotations = claim["metadata"]["annotations"];
  annotations[kBindCompletedAnnotation] = "yes";
  annotations[kBoundByControllerAnnotation] = "yes";
  return claim;
}

json BoundClaimStatus(const json& volume) {
  const json& spec = ObjectAt(volume, "spec");
  return {{"phase", "Bound"},
          {"accessModes", ArrayAt(spec, "accessModes")},
          {"capacity", ObjectAt(spec, "capacity")}};
}

json ProvisionedVolume(const json& claim, const json& storage_class,
                       const std::string& driver, const std::string& zone,
                       const std::string& volume_handle) {
  const json& meta = ObjectAt(claim, "metadata");
  const json& spec = ObjectAt(claim, "spec");
  std::string reclaim = StringAt(storage_class, "reclaimPolicy");
  if (reclaim.empty()) reclaim = "Delete";
  std::string fs_type =
      StringAt(ObjectAt(storage_class, "parameters"), "fsType");
  if (fs_type.empty()) fs_type = "ext4";
  json volume = {
      {"apiVersion", "v1"},
      {"kind", "PersistentVolume"},
      {"metadata",
       {{"name", "pvc-" + StringAt(meta, "uid")},
        {"annotations",
         {{kProvisionedByAnnotation, driver},
          {"volume.kubernetes.io/provisioner-deletion-secret-name", ""},
          {"volume.kubernetes.io/provisioner-deletion-secret-namespace",
           ""}}}}},
      {"spec",
       {{"accessModes", ArrayAt(spec, "accessModes")},
        {"capacity",
         {{"storage", ValueAt(ObjectAt(ObjectAt(spec, "resources"), "requests"),
                              "storage")}}},
        {"claimRef",
         {{"kind", "PersistentVolumeClaim"},
          {"namespace", StringAt(meta, "namespace")},
          {"name", StringAt(meta, "name")},
          {"uid", StringAt(meta, "uid")},
          {"apiVersion", "v1"},
          {"resourceVersion", StringAt(meta, "resourceVersion")}}},
        {"csi",
         {{"driver", driver},
          {"fsType", fs_type},
          {"volumeHandle", volume_handle}}},
        {"persistentVolumeReclaimPolicy", reclaim},
        {"storageClassName",
         StringAt(ObjectAt(claim, "spec"), "storageClassName")},
        {"volumeMode", VolumeMode(claim)}}}};
  if (!zone.empty()) {
    volume["spec"]["nodeAffinity"] = {{"required",
                                       {{"nodeSelectorTerms",
                                         {{{"matchExpressions",
                                            {{{"key", kEbsZoneKey},
                                              {"operator", "In"},
                                              {"values", {zone}}}}}}}}}}};
  }
  return volume;
}

}  // namespace kmock::controllers::storage
