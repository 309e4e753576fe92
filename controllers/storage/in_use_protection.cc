#include "controllers/storage/in_use_protection.h"

#include "common/json_view.h"

namespace kmock::controllers::storage {

namespace {

bool IsDeleting(const json& obj) {
  const json& deletion =
      ValueAt(ObjectAt(obj, "metadata"), "deletionTimestamp");
  return deletion.is_string();
}

// Deleted with a zero grace period: the kubelet is done with it, or it was
// deleted by force.
bool PodIsShutDown(const json& pod) {
  const json& meta = ObjectAt(pod, "metadata");
  const json& grace = ValueAt(meta, "deletionGracePeriodSeconds");
  return IsDeleting(pod) && grace.is_number_integer() &&
         grace.get<int64_t>() == 0;
}

// The claim is controlled by the pod (what an ephemeral volume's claim is).
bool ControlledBy(const json& claim, const json& pod) {
  const std::string& uid = StringAt(ObjectAt(pod, "metadata"), "uid");
  for (const json& ref :
       ArrayAt(ObjectAt(claim, "metadata"), "ownerReferences")) {
    const json& controller = ValueAt(ref, "controller");
    if (controller.is_boolean() && controller.get<bool>()) {
      return !uid.empty() && StringAt(ref, "uid") == uid;
    }
  }
  return false;
}

}  // namespace

bool HasFinalizer(const json& obj, std::string_view finalizer) {
  for (const json& f : ArrayAt(ObjectAt(obj, "metadata"), "finalizers")) {
    if (f.is_string() && f.get_ref<const std::string&>() == finalizer) {
      return true;
    }
  }
  return false;
}

bool IsDeletionCandidate(const json& obj, std::string_view finalizer) {
  return IsDeleting(obj) && HasFinalizer(obj, finalizer);
}

bool NeedsFinalizer(const json& obj, std::string_view finalizer) {
  return !IsDeleting(obj) && !HasFinalizer(obj, finalizer);
}

void RemoveFinalizer(json& obj, std::string_view finalizer) {
  json& meta = obj["metadata"];
  auto it = meta.find("finalizers");
  if (it == meta.end() || !it->is_array()) return;
  json kept = json::array();
  for (json& f : *it) {
    if (!f.is_string() || f.get_ref<const std::string&>() != finalizer) {
      kept.push_back(std::move(f));
    }
  }
  *it = std::move(kept);
}

void AddFinalizer(json& obj, std::string_view finalizer) {
  if (HasFinalizer(obj, finalizer)) return;
  json& finalizers = obj["metadata"]["finalizers"];
  if (!finalizers.is_array()) finalizers = json::array();
  finalizers.push_back(std::string(finalizer));
}

std::vector<std::string> PodClaimNames(const json& pod) {
  std::vector<std::string> out;
  const std::string& pod_name = StringAt(ObjectAt(pod, "metadata"), "name");
  for (const json& v : ArrayAt(ObjectAt(pod, "spec"), "volumes")) {
    const std::string& claim =
        StringAt(ObjectAt(v, "persistentVolumeClaim"), "claimName");
    if (!claim.empty()) {
      out.push_back(claim);
    } else if (v.is_object() && v.contains("ephemeral")) {
      out.push_back(pod_name + "-" + StringAt(v, "name"));
    }
  }
  return out;
}

bool PodUsesClaim(const json& pod, const json& claim) {
  const json& pod_meta = ObjectAt(pod, "metadata");
  const json& claim_meta = ObjectAt(claim, "metadata");
  if (StringAt(pod_meta, "namespace") != StringAt(claim_meta, "namespace")) {
    return false;
  }
  // The kubelet sees a pod only once it is scheduled, and does not start
  // one whose claim is being deleted.
  if (StringAt(ObjectAt(pod, "spec"), "nodeName").empty()) return false;
  const std::string& claim_name = StringAt(claim_meta, "name");
  const std::string& pod_name = StringAt(pod_meta, "name");
  for (const json& v : ArrayAt(ObjectAt(pod, "spec"), "volumes")) {
    if (StringAt(ObjectAt(v, "persistentVolumeClaim"), "claimName") ==
            claim_name &&
        !claim_name.empty()) {
      return true;
    }
    if (v.is_object() && v.contains("ephemeral") && !PodIsShutDown(pod) &&
        pod_name + "-" + StringAt(v, "name") == claim_name &&
        ControlledBy(claim, pod)) {
      return true;
    }
  }
  return false;
}

bool PodMayReleaseClaims(const json& pod) {
  if (StringAt(ObjectAt(pod, "spec"), "nodeName").empty()) return true;
  const json& status = ObjectAt(pod, "status");
  const std::string& phase = StringAt(status, "phase");
  if (phase == "Succeeded" || phase == "Failed") return true;
  // Terminated as the kubelet counts it: being deleted with no container
  // running any more.
  if (!IsDeleting(pod)) return false;
  for (const json& c : ArrayAt(status, "containerStatuses")) {
    if (ObjectAt(c, "state").contains("running")) return false;
  }
  return true;
}

bool VolumeInUse(const json& volume) {
  return StringAt(ObjectAt(volume, "status"), "phase") == "Bound";
}

}  // namespace kmock::controllers::storage
