// The neutral Strategy defaults and the generic status-subresource strategy.
#include "api/resource.h"

namespace kmock::api {

void Strategy::PrepareForCreate(json& /*obj*/) const {}

void Strategy::PrepareForUpdate(json& /*obj*/, const json& /*old*/) const {}

void Strategy::Default(json& /*obj*/) const {}

void Strategy::Validate(const json& /*obj*/, FieldErrors* /*errs*/) const {}

void Strategy::ValidateUpdate(const json& /*obj*/, const json& /*old*/,
                              FieldErrors* /*errs*/) const {}

Status Strategy::ValidateDelete(const json& /*obj*/) const {
  return Status::Ok();
}

void Strategy::PrepareForDelete(json& /*obj*/) const {}

bool Strategy::DeletionBlocked(const json& /*obj*/) const { return false; }

std::optional<int64_t> Strategy::GracePeriodSeconds(
    const json& /*obj*/, std::optional<int64_t> /*requested*/) const {
  // Kinds without graceful deletion go at once.
  return std::nullopt;
}

void StatusStrategy::PrepareForUpdate(json& obj, const json& old) const {
  // Everything comes from the stored object except the status and the
  // metadata a status writer may change (labels, annotations) or that the
  // pipeline needs (resourceVersion for the precondition, managedFields).
  json result = old;
  if (obj.contains("status")) {
    result["status"] = obj["status"];
  } else {
    result.erase("status");
  }
  if (obj.contains("metadata") && obj["metadata"].is_object()) {
    const json& nm = obj["metadata"];
    json& rm = result["metadata"];
    for (const char* key :
         {"labels", "annotations", "resourceVersion", "managedFields"}) {
      auto it = nm.find(key);
      if (it != nm.end()) {
        rm[key] = *it;
      } else {
        rm.erase(key);
      }
    }
  }
  obj = std::move(result);
}

void StatusStrategy::ValidateUpdate(const json& obj, const json& old,
                                    FieldErrors* errs) const {
  // The spec is the stored one, so only status rules could fail; kinds with
  // status rules subclass this. The main strategy is kept for them.
  (void)obj;
  (void)old;
  (void)errs;
  (void)main_;
}

}  // namespace kmock::api
