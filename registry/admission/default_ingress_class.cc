#include "registry/admission/default_ingress_class.h"

#include "common/json_view.h"
#include "registry/admission/default_class.h"

namespace kmock::registry {

using nlohmann::json;

bool DefaultIngressClassAdmission::Handles(const api::ResourceInfo& res) const {
  return res.group == "networking.k8s.io" && res.plural == "ingresses";
}

Status DefaultIngressClassAdmission::AdmitCreate(Registry& registry,
                                                 const AdmissionRequest&,
                                                 json& obj) const {
  auto spec = obj.find("spec");
  if (spec != obj.end() && !spec->is_object() && !spec->is_null()) {
    return Status::Ok();  // validation refuses it
  }
  if (spec != obj.end() && spec->is_object() &&
      spec->contains("ingressClassName")) {
    return Status::Ok();
  }
  const json& ann = ObjectAt(ObjectAt(obj, "metadata"), "annotations");
  if (ann.contains("kubernetes.io/ingress.class")) return Status::Ok();
  KMOCK_ASSIGN_OR_RETURN(
      std::optional<std::string> name,
      ServedDefaultClass(registry, "networking.k8s.io", "ingressclasses",
                         {"ingressclass.kubernetes.io/is-default-class"}));
  if (name) obj["spec"]["ingressClassName"] = *name;
  return Status::Ok();
}

}  // namespace kmock::registry
