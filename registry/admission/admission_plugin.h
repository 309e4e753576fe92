// Admission that reads the cluster's other objects, as kube-apiserver's
// built-in admission plugins do (LimitRanger, Priority,
// DefaultStorageClass, StorageObjectInUseProtection, DefaultIngressClass,
// ResourceQuota). Each
// plugin says which resources it looks at; the registry runs them on
// create in kube-apiserver's two phases: mutating after defaulting and
// before validation (a plugin's change is validated with the rest), then
// validating after validation, just before the store (ResourceQuota
// charges the quota there).
//
// Thread safety: plugins are stateless or internally locked and may be
// called from many threads at once.
#ifndef KMOCK_REGISTRY_ADMISSION_ADMISSION_PLUGIN_H_
#define KMOCK_REGISTRY_ADMISSION_ADMISSION_PLUGIN_H_

#include <memory>
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "api/resource.h"
#include "common/status.h"

namespace kmock::registry {

class Registry;

struct AdmissionRequest {
  const api::ResourceInfo* resource = nullptr;
  std::string_view ns;
  const api::UserInfo* user = nullptr;
  bool dry_run = false;
};

class AdmissionPlugin {
 public:
  virtual ~AdmissionPlugin() = default;
  // Whether the plugin looks at writes of `res`.
  virtual bool Handles(const api::ResourceInfo& res) const = 0;
  // On create, before validation (the mutating phase): may change obj; an
  // error refuses the create with it.
  virtual Status AdmitCreate(Registry& registry, const AdmissionRequest& req,
                             nlohmann::json& obj) const {
    (void)registry, (void)req, (void)obj;
    return Status::Ok();
  }
  // On create, after validation, just before the store (the validating
  // phase): may only refuse.
  virtual Status ValidateCreate(Registry& registry, const AdmissionRequest& req,
                                const nlohmann::json& obj) const {
    (void)registry, (void)req, (void)obj;
    return Status::Ok();
  }
};

// The plugins a kube-apiserver 1.33 enables by default that this server
// implements, in its order.
std::vector<std::shared_ptr<const AdmissionPlugin>> BuiltinAdmissionPlugins();

}  // namespace kmock::registry

#endif  // KMOCK_REGISTRY_ADMISSION_ADMISSION_PLUGIN_H_
