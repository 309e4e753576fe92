#include "controllers/storage/pvc_protection_controller.h"

#include <functional>

#include "common/json_view.h"
#include "controllers/controller_write.h"
#include "controllers/storage/in_use_protection.h"
#include "registry/admission/storage_object_in_use_protection.h"

namespace kmock::controllers {

using nlohmann::json;
using registry::kPvcProtectionFinalizer;

namespace {

registry::WriteOptions Write() {
  return ControllerWrite("pvc-protection-controller");
}

std::vector<std::string> PodClaimKeys(const json& pod) {
  const std::string& ns = StringAt(ObjectAt(pod, "metadata"), "namespace");
  std::vector<std::string> keys;
  for (const std::string& name : storage::PodClaimNames(pod)) {
    keys.push_back(ns + "/" + name);
  }
  return keys;
}

const std::string& UidOf(const json& obj) {
  return StringAt(ObjectAt(obj, "metadata"), "uid");
}

}  // namespace

PvcProtectionController::PvcProtectionController(registry::Registry* registry,
                                                 const Clock* clock,
                                                 const CoreResources& res,
                                                 Informer* pods,
                                                 Informer* claims)
    : registry_(registry),
      res_(res),
      pods_(pods),
      claims_(claims),
      queue_(clock),
      loop_("pvc-protection", &queue_, 1,
            [this](const std::string& key) { return Sync(key); }) {
  pods_->AddIndex(kPodsByClaimIndex, PodClaimKeys);
  auto queue_claim = [this](const json& claim) {
    if (storage::NeedsFinalizer(claim, kPvcProtectionFinalizer) ||
        storage::IsDeletionCandidate(claim, kPvcProtectionFinalizer)) {
      queue_.Add(KeyOf(claim));
    }
  };
  claims_->AddHandlers(
      {queue_claim,
       [queue_claim](const json&, const json& claim) { queue_claim(claim); },
       nullptr});
  pods_->AddHandlers({[this](const json& pod) {
                        if (storage::PodMayReleaseClaims(pod))
                          QueuePodClaims(pod);
                      },
                      [this](const json& old_pod, const json& pod) {
                        if (storage::PodMayReleaseClaims(pod))
                          QueuePodClaims(pod);
                        // An update may hide the deletion of a pod and the
                        // creation of another of the same name: the first one's
                        // claims may be free.
                        if (UidOf(old_pod) != UidOf(pod))
                          QueuePodClaims(old_pod);
                      },
                      [this](const json& pod) { QueuePodClaims(pod); }});
}

PvcProtectionController::~PvcProtectionController() { Stop(); }

void PvcProtectionController::Start() { loop_.Start({}); }

void PvcProtectionController::Stop() { loop_.Stop(); }

void PvcProtectionController::QueuePodClaims(const json& pod) {
  for (const std::string& key : PodClaimKeys(pod)) queue_.Add(key);
}

Result<bool> PvcProtectionController::InUse(const json& claim) {
  for (const ObjectPtr& pod : pods_->ByIndex(kPodsByClaimIndex, KeyOf(claim))) {
    if (storage::PodUsesClaim(*pod, claim)) return true;
  }
  // The cache may not hold a pod made just now: ask the store.
  const std::string& ns = StringAt(ObjectAt(claim, "metadata"), "namespace");
  KMOCK_ASSIGN_OR_RETURN(json live, registry_->List(*res_.pods, ns, {}));
  for (const json& pod : ArrayAt(live, "items")) {
    if (storage::PodUsesClaim(pod, claim)) return true;
  }
  return false;
}

Status PvcProtectionController::Sync(const std::string& key) {
  KMOCK_RETURN_IF_ERROR(WaitForInformers({claims_, pods_}));
  ObjectPtr cached = claims_->Get(key);
  if (cached == nullptr) return Status::Ok();
  const json& claim = *cached;
  const std::string uid = UidOf(claim);
  std::function<Status(json&)> mutate;
  if (storage::IsDeletionCandidate(claim, kPvcProtectionFinalizer)) {
    KMOCK_ASSIGN_OR_RETURN(bool used, InUse(claim));
    if (used) return Status::Ok();  // the pod's going brings the key back
    mutate = [&uid](json& live) -> Status {
      if (UidOf(live) != uid) {
        return Status(StatusCode::kNotFound, "the claim was replaced");
      }
      storage::RemoveFinalizer(live, kPvcProtectionFinalizer);
      return Status::Ok();
    };
  } else if (storage::NeedsFinalizer(claim, kPvcProtectionFinalizer)) {
    // A claim made before the admission plugin added the finalizer.
    mutate = [&uid](json& live) -> Status {
      if (UidOf(live) != uid) {
        return Status(StatusCode::kNotFound, "the claim was replaced");
      }
      if (storage::NeedsFinalizer(live, kPvcProtectionFinalizer)) {
        storage::AddFinalizer(live, kPvcProtectionFinalizer);
      }
      return Status::Ok();
    };
  } else {
    return Status::Ok();
  }
  std::string ns, name;
  SplitKey(key, &ns, &name);
  auto written = registry_->GuaranteedUpdate(*res_.persistentvolumeclaims, ns,
                                             name, "", mutate, Write());
  return written.ok() ? Status::Ok()
                      : IgnoreRoutineWriteErrors(written.status());
}

}  // namespace kmock::controllers
