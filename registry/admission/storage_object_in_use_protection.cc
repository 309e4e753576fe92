#include "registry/admission/storage_object_in_use_protection.h"

namespace kmock::registry {

using nlohmann::json;

bool StorageObjectInUseProtectionAdmission::Handles(
    const api::ResourceInfo& res) const {
  return res.group.empty() && (res.plural == "persistentvolumeclaims" ||
                               res.plural == "persistentvolumes");
}

Status StorageObjectInUseProtectionAdmission::AdmitCreate(
    Registry&, const AdmissionRequest& req, json& obj) const {
  const char* finalizer = req.resource->plural == "persistentvolumes"
                              ? kPvProtectionFinalizer
                              : kPvcProtectionFinalizer;
  json& meta = obj["metadata"];
  if (!meta.is_object()) return Status::Ok();  // validation refuses it
  json& finalizers = meta["finalizers"];
  if (finalizers.is_null()) finalizers = json::array();
  if (!finalizers.is_array()) return Status::Ok();
  for (const json& f : finalizers) {
    if (f.is_string() && f.get_ref<const std::string&>() == finalizer) {
      return Status::Ok();
    }
  }
  finalizers.push_back(finalizer);
  return Status::Ok();
}

}  // namespace kmock::registry
