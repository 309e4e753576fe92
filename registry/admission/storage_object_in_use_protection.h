// kube-apiserver's StorageObjectInUseProtection admission: every
// PersistentVolumeClaim gets the finalizer kubernetes.io/pvc-protection and
// every PersistentVolume kubernetes.io/pv-protection when it is created (not
// when it is updated), appended after the finalizers it came with, so that
// kube-controller-manager's pvc-protection and pv-protection controllers
// (controllers/storage/in_use_protection.h) decide when it may go: a claim
// once no pod uses it, a volume once it is no longer Bound.
//
// Thread safety: stateless; safe from any thread.
#ifndef KMOCK_REGISTRY_ADMISSION_STORAGE_OBJECT_IN_USE_PROTECTION_H_
#define KMOCK_REGISTRY_ADMISSION_STORAGE_OBJECT_IN_USE_PROTECTION_H_

#include "registry/admission/admission_plugin.h"

namespace kmock::registry {

inline constexpr char kPvcProtectionFinalizer[] =
    "kubernetes.io/pvc-protection";
inline constexpr char kPvProtectionFinalizer[] = "kubernetes.io/pv-protection";

class StorageObjectInUseProtectionAdmission : public AdmissionPlugin {
 public:
  bool Handles(const api::ResourceInfo& res) const override;
  Status AdmitCreate(Registry& registry, const AdmissionRequest& req,
                     nlohmann::json& obj) const override;
};

}  // namespace kmock::registry

#endif  // KMOCK_REGISTRY_ADMISSION_STORAGE_OBJECT_IN_USE_PROTECTION_H_
