// kube-apiserver's DefaultStorageClass admission: a
// PersistentVolumeClaim created without spec.storageClassName (absent, not
// "") gets the cluster's default StorageClass, the one annotated
// storageclass.kubernetes.io/is-default-class=true (or the beta
// annotation); with several, the newest.
//
// Thread safety: stateless; safe from any thread.
#ifndef KMOCK_REGISTRY_ADMISSION_DEFAULT_STORAGE_CLASS_H_
#define KMOCK_REGISTRY_ADMISSION_DEFAULT_STORAGE_CLASS_H_

#include <optional>
#include <string>
#include <vector>

#include "registry/admission/admission_plugin.h"

namespace kmock::registry {

// The name of the default class among `classes` (StorageClass objects).
std::optional<std::string> DefaultStorageClassName(
    const std::vector<nlohmann::json>& classes);

class DefaultStorageClassAdmission : public AdmissionPlugin {
 public:
  bool Handles(const api::ResourceInfo& res) const override;
  Status AdmitCreate(Registry& registry, const AdmissionRequest& req,
                     nlohmann::json& obj) const override;
};

}  // namespace kmock::registry

#endif  // KMOCK_REGISTRY_ADMISSION_DEFAULT_STORAGE_CLASS_H_
