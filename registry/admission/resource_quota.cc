#include "registry/admission/resource_quota.h"

#include <algorithm>

#include "common/json_view.h"
#include "registry/admission/quota_usage.h"
#include "registry/api_errors.h"
#include "registry/registry.h"

namespace kmock::registry {

using nlohmann::json;

namespace {

std::string Amounts(const std::vector<std::pair<std::string, int64_t>>& list) {
  std::string out;
  for (const auto& [name, milli] : list) {
    out += (out.empty() ? "" : ",") + name + "=" + FormatQuantity(name, milli);
  }
  return out;
}

}  // namespace

ResourceQuotaAdmission::ResourceQuotaAdmission()
    : quotas_("", "v1", "resourcequotas") {}

bool ResourceQuotaAdmission::Handles(const api::ResourceInfo& res) const {
  return res.namespaced && !res.key_prefix.empty();
}

Status ResourceQuotaAdmission::ValidateCreate(Registry& registry,
                                              const AdmissionRequest& req,
                                              const json& obj) const {
  KMOCK_ASSIGN_OR_RETURN(std::shared_ptr<const CachedList::Items> all,
                         quotas_.Get(registry));
  std::vector<std::string> names;
  for (const json& q : *all) {
    if (StringAt(ObjectAt(q, "metadata"), "namespace") == req.ns)
      names.push_back(StringAt(ObjectAt(q, "metadata"), "name"));
  }
  if (names.empty()) return Status::Ok();  // the usual case, and cheap
  std::sort(names.begin(), names.end());
  const QuotaUsage usage = UsageOf(*req.resource, obj);
  const api::ResourceInfo* quotas =
      registry.catalog().Find("", "v1", "resourcequotas");
  const std::string object_name = StringAt(ObjectAt(obj, "metadata"), "name");
  const bool pod =
      req.resource->group.empty() && req.resource->plural == "pods";
  // The quota's usage with this object added, or the refusal.
  auto charge = [&](const std::string& name, json& quota) -> Status {
    const json& hard = ObjectAt(ObjectAt(quota, "spec"), "hard");
    const json& used = ObjectAt(ObjectAt(quota, "status"), "used");
    if (pod && !usage.empty()) {
      const std::string missing = MissingComputeResources(obj, hard);
      if (!missing.empty()) {
        return Forbidden(*req.resource, object_name,
                         "failed quota: " + name + ": must specify " + missing);
      }
    }
    std::vector<std::pair<std::string, int64_t>> requested, was, limit;
    json next_used = used;
    for (const auto& [resource, amount] : usage) {
      if (!hard.contains(resource) || amount == 0) continue;
      if (!used.contains(resource)) {
        return Forbidden(
            *req.resource, object_name,
            "status unknown for quota: " + name + ", resource: " + resource);
      }
      const int64_t now = QuantityMilli(used[resource]).value_or(0);
      const int64_t cap = QuantityMilli(hard[resource]).value_or(0);
      if (now + amount > cap) {
        requested.emplace_back(resource, amount);
        was.emplace_back(resource, now);
        limit.emplace_back(resource, cap);
      }
      next_used[resource] = FormatQuantity(resource, now + amount);
    }
    if (!requested.empty()) {
      return Forbidden(
          *req.resource, object_name,
          "exceeded quota: " + name + ", requested: " + Amounts(requested) +
              ", used: " + Amounts(was) + ", limited: " + Amounts(limit));
    }
    if (next_used == used) return Status(StatusCode::kAlreadyExists, "");
    quota["status"]["used"] = std::move(next_used);
    return Status::Ok();
  };
  // Every quota is checked before any is charged, so that a refusal by one
  // leaves the others as they were.
  for (const std::string& name : names) {
    auto live = registry.Get(*quotas, req.ns, name);
    if (!live.ok()) continue;  // gone meanwhile
    Status st = charge(name, *live);
    if (!st.ok() && st.code() != StatusCode::kAlreadyExists) return st;
  }
  if (req.dry_run) return Status::Ok();
  WriteOptions wo;
  wo.typed_in_process = true;
  wo.user.name = "system:apiserver";
  wo.user.groups = {"system:masters"};
  wo.field_manager = "kube-apiserver";
  for (const std::string& name : names) {
    // Charged against the quota as stored: a create that took the last
    // unit meanwhile makes this one fail.
    auto charged = registry.GuaranteedUpdate(
        *quotas, req.ns, name, "status",
        [&](json& quota) { return charge(name, quota); }, wo);
    if (charged.ok()) continue;
    const StatusCode code = charged.status().code();
    if (code == StatusCode::kAlreadyExists || code == StatusCode::kNotFound)
      continue;  // nothing to charge, or the quota is gone
    return charged.status();
  }
  return Status::Ok();
}

}  // namespace kmock::registry
