// kube-apiserver's LimitRanger admission for pods and claims: the
// LimitRanges of the pod's namespace fill in containers' missing requests
// and limits from their Container defaults (defaultRequest, default; the
// pod is annotated kubernetes.io/limit-ranger saying what was set), then
// every container (init containers too) and the pod as a whole are held to
// the ranges' min, max and maxLimitRequestRatio, and a
// PersistentVolumeClaim's storage request to the PersistentVolumeClaim
// min and max. The first range broken refuses with kube-apiserver's 403
// ("maximum cpu usage per Container is 800m, but limit is 1500m").
//
// Thread safety: safe from any thread (ranges are read through a
// CachedList).
#ifndef KMOCK_REGISTRY_ADMISSION_LIMIT_RANGER_H_
#define KMOCK_REGISTRY_ADMISSION_LIMIT_RANGER_H_

#include <string>
#include <vector>

#include "registry/admission/admission_plugin.h"
#include "registry/admission/cached_list.h"

namespace kmock::registry {

// The defaults of `range` applied to `pod` (mutating).
void ApplyLimitRangeDefaults(const nlohmann::json& range, nlohmann::json& pod);
// What `obj`, a pod or (resource "persistentvolumeclaims") a claim,
// breaks of `range`, one message each.
std::vector<std::string> LimitRangeViolations(const nlohmann::json& range,
                                              const nlohmann::json& obj,
                                              std::string_view resource);

class LimitRangerAdmission : public AdmissionPlugin {
 public:
  LimitRangerAdmission();
  bool Handles(const api::ResourceInfo& res) const override;
  Status AdmitCreate(Registry& registry, const AdmissionRequest& req,
                     nlohmann::json& obj) const override;
  Status ValidateCreate(Registry& registry, const AdmissionRequest& req,
                        const nlohmann::json& obj) const override;

 private:
  // The namespace's LimitRanges, by name.
  Result<std::vector<nlohmann::json>> RangesIn(Registry& registry,
                                               std::string_view ns) const;
  CachedList ranges_;
};

}  // namespace kmock::registry

#endif  // KMOCK_REGISTRY_ADMISSION_LIMIT_RANGER_H_
