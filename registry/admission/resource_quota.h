// kube-apiserver's ResourceQuota admission: a create in a namespace with
// quotas is refused (403 "exceeded quota: <name>, requested: ..., used:
// ..., limited: ...") when it would take a quota past its hard limits, and
// otherwise charged to status.used of every quota it counts against,
// written with the quota's resourceVersion so that concurrent creates
// cannot both take the last unit. A quota whose usage has not been
// computed yet refuses ("status unknown for quota"). The resource quota
// controller recomputes usage, giving back what deleted objects held.
//
// Thread safety: safe from any thread (quotas are read through a
// CachedList, charged through the registry).
#ifndef KMOCK_REGISTRY_ADMISSION_RESOURCE_QUOTA_H_
#define KMOCK_REGISTRY_ADMISSION_RESOURCE_QUOTA_H_

#include "registry/admission/admission_plugin.h"
#include "registry/admission/cached_list.h"

namespace kmock::registry {

class ResourceQuotaAdmission : public AdmissionPlugin {
 public:
  ResourceQuotaAdmission();
  bool Handles(const api::ResourceInfo& res) const override;
  Status ValidateCreate(Registry& registry, const AdmissionRequest& req,
                        const nlohmann::json& obj) const override;

 private:
  CachedList quotas_;
};

}  // namespace kmock::registry

#endif  // KMOCK_REGISTRY_ADMISSION_RESOURCE_QUOTA_H_
