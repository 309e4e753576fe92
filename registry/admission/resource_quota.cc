#include "registry/admission/resource_quota.h"

#include <algorithm>

#include "registry/admission/quota_usage.h"
#include "registry/api_errors.h"
#include "registry/registry.h"

namespace kmock::registry {

using nlohmann::json;

namespace {

constexpr int kChargeAttempts = 10;

std::string MetaString(const json& obj, const char* key) {
  auto meta = obj.find("metadata");
  if (meta == obj.end() || !meta->is_object()) return "";
  return meta->value(key, "");
}

const json& MapAt(const json& obj, const char* a, const char* b) {
  static const json kEmpty = json::object();
  auto x = obj.find(a);
  if (x == obj.end() || !x->is_object()) return kEmpty;
  auto y = x->find(b);
  if (y == x->end() || !y->is_object()) return kEmpty;
  return *y;
}

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
    if (MetaString(q, "namespace") == req.ns)
      names.push_back(MetaString(q, "name"));
  }
  if (names.empty()) return Status::Ok();  // the usual case, and cheap
  std::sort(names.begin(), names.end());
  const QuotaUsage usage = UsageOf(*req.resource, obj);
  const api::ResourceInfo* quotas =
      registry.catalog().Find("", "v1", "resourcequotas");
  const std::string object_name = MetaString(obj, "name");
  for (const std::string& name : names) {
    for (int attempt = 0;; ++attempt) {
      auto live = registry.Get(*quotas, req.ns, name);
      if (!live.ok()) break;  // gone meanwhile
      const json& hard = MapAt(*live, "spec", "hard");
      const json& used = MapAt(*live, "status", "used");
      if (req.resource->group.empty() && req.resource->plural == "pods" &&
          !usage.empty()) {
        const std::string missing = MissingComputeResources(obj, hard);
        if (!missing.empty()) {
          return Forbidden(
              *req.resource, object_name,
              "failed quota: " + name + ": must specify " + missing);
        }
      }
      std::vector<std::pair<std::string, int64_t>> requested, was, limit;
      json next_used = used;
      bool charges = false;
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
        charges = true;
      }
      if (!requested.empty()) {
        return Forbidden(
            *req.resource, object_name,
            "exceeded quota: " + name + ", requested: " + Amounts(requested) +
                ", used: " + Amounts(was) + ", limited: " + Amounts(limit));
      }
      if (!charges || req.dry_run) break;
      json charged = *live;
      charged["status"]["used"] = std::move(next_used);
      WriteOptions wo;
      wo.typed_in_process = true;
      wo.user.name = "system:apiserver";
      wo.user.groups = {"system:masters"};
      wo.field_manager = "kube-apiserver";
      auto written =
          registry.Update(*quotas, req.ns, name, "status", charged, wo);
      if (written.ok()) break;
      if (written.status().code() != StatusCode::kConflict ||
          attempt + 1 >= kChargeAttempts) {
        return written.status();
      }
    }
  }
  return Status::Ok();
}

}  // namespace kmock::registry
