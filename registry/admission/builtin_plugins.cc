#include "registry/admission/admission_plugin.h"
#include "registry/admission/default_ingress_class.h"
#include "registry/admission/default_storage_class.h"
#include "registry/admission/limit_ranger.h"
#include "registry/admission/priority.h"
#include "registry/admission/resource_quota.h"
#include "registry/admission/storage_object_in_use_protection.h"

namespace kmock::registry {

std::vector<std::shared_ptr<const AdmissionPlugin>> BuiltinAdmissionPlugins() {
  // kube-apiserver 1.33's order: LimitRanger, Priority, DefaultStorageClass,
  // StorageObjectInUseProtection, DefaultIngressClass, ResourceQuota last.
  return {std::make_shared<LimitRangerAdmission>(),
          std::make_shared<PriorityAdmission>(),
          std::make_shared<DefaultStorageClassAdmission>(),
          std::make_shared<StorageObjectInUseProtectionAdmission>(),
          std::make_shared<DefaultIngressClassAdmission>(),
          std::make_shared<ResourceQuotaAdmission>()};
}

}  // namespace kmock::registry
