// The neutral Strategy defaults and the generic status-subresource strategy.
#include <initializer_list>
#include <string_view>

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

namespace {

bool IsOneOf(const std::string& key,
             std::initializer_list<std::string_view> keys) {
  for (std::string_view k : keys) {
    if (key == k) return true;
  }
  return false;
}

// Makes the members of `obj` those of `stored`, except the `kept` ones,
// which stay as they are in obj. Members that already agree are left in
// place: a status write's spec is compared, not copied and freed.
void RestoreMembers(json& obj, const json& stored,
                    std::initializer_list<std::string_view> kept) {
  static const json kNone = json::object();
  const json& from = stored.is_object() ? stored : kNone;
  for (auto it = obj.begin(); it != obj.end();) {
    if (!IsOneOf(it.key(), kept) && !from.contains(it.key())) {
      it = obj.erase(it);
    } else {
      ++it;
    }
  }
  for (auto it = from.begin(); it != from.end(); ++it) {
    if (IsOneOf(it.key(), kept)) continue;
    auto mine = obj.find(it.key());
    if (mine == obj.end()) {
      obj[it.key()] = *it;
    } else if (*mine != *it) {
      *mine = *it;
    }
  }
}

}  // namespace

void StatusStrategy::PrepareForUpdate(json& obj, const json& old) const {
  // Everything comes from the stored object except the status and the
  // metadata a status writer may change (labels, annotations) or that the
  // pipeline needs (resourceVersion for the precondition, managedFields).
  if (!obj.is_object()) obj = json::object();
  json* metadata = nullptr;
  auto md = obj.find("metadata");
  if (md != obj.end() && md->is_object()) metadata = &*md;
  RestoreMembers(obj, old, {"status", "metadata"});
  const json* old_metadata = nullptr;
  if (old.is_object()) {
    auto it = old.find("metadata");
    if (it != old.end()) old_metadata = &*it;
  }
  if (metadata == nullptr) {
    // Nothing of the writer's to keep: the stored metadata as it is.
    if (old_metadata != nullptr) {
      obj["metadata"] = *old_metadata;
    } else {
      obj.erase("metadata");
    }
    return;
  }
  static const json kNone = json::object();
  RestoreMembers(*metadata,
                 old_metadata != nullptr && old_metadata->is_object()
                     ? *old_metadata
                     : kNone,
                 {"labels", "annotations", "resourceVersion", "managedFields"});
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
