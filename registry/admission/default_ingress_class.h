// kube-apiserver's DefaultIngressClass admission: an Ingress created
// without spec.ingressClassName and without the older
// kubernetes.io/ingress.class annotation gets the cluster's default
// IngressClass, the one annotated
// ingressclass.kubernetes.io/is-default-class=true (with several, the
// newest: default_class.h); with none it is left without a class.
//
// Thread safety: stateless; safe from any thread.
#ifndef KMOCK_REGISTRY_ADMISSION_DEFAULT_INGRESS_CLASS_H_
#define KMOCK_REGISTRY_ADMISSION_DEFAULT_INGRESS_CLASS_H_

#include "registry/admission/admission_plugin.h"

namespace kmock::registry {

class DefaultIngressClassAdmission : public AdmissionPlugin {
 public:
  bool Handles(const api::ResourceInfo& res) const override;
  Status AdmitCreate(Registry& registry, const AdmissionRequest& req,
                     nlohmann::json& obj) const override;
};

}  // namespace kmock::registry

#endif  // KMOCK_REGISTRY_ADMISSION_DEFAULT_INGRESS_CLASS_H_
