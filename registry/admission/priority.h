// kube-apiserver's Priority admission: a pod created with a
// priorityClassName gets that PriorityClass's value and preemption policy
// (403 when no such class exists), a pod without one the global default
// class's (the lowest-valued, if several) or priority 0; a priority or
// preemption policy written in the pod that differs from the computed one
// is refused.
//
// Thread safety: safe from any thread (the class list is a CachedList).
#ifndef KMOCK_REGISTRY_ADMISSION_PRIORITY_H_
#define KMOCK_REGISTRY_ADMISSION_PRIORITY_H_

#include "registry/admission/admission_plugin.h"
#include "registry/admission/cached_list.h"

namespace kmock::registry {

class PriorityAdmission : public AdmissionPlugin {
 public:
  PriorityAdmission();
  bool Handles(const api::ResourceInfo& res) const override;
  Status AdmitCreate(Registry& registry, const AdmissionRequest& req,
                     nlohmann::json& obj) const override;

 private:
  CachedList classes_;
};

}  // namespace kmock::registry

#endif  // KMOCK_REGISTRY_ADMISSION_PRIORITY_H_
