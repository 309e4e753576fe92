#include "registry/admission/quota_usage.h"

#include <cmath>

#include "api/kinds/quantity.h"
#include "common/json_view.h"

namespace kmock::registry {

using nlohmann::json;

namespace {

bool Terminal(const json& pod) {
  const json& phase = ValueAt(ValueAt(pod, "status"), "phase");
  return phase == "Succeeded" || phase == "Failed";
}

void AddContainerAmounts(const json& containers, QuotaUsage* out) {
  if (!containers.is_array()) return;
  for (const json& c : containers) {
    const json& resources = ValueAt(c, "resources");
    for (const char* kind : {"requests", "limits"}) {
      const json& amounts = ValueAt(resources, kind);
      if (!amounts.is_object()) continue;
      for (const char* name : {"cpu", "memory", "ephemeral-storage"}) {
        auto milli = QuantityMilli(ValueAt(amounts, name));
        if (!milli) continue;
        (*out)[std::string(kind) + "." + name] += *milli;
        if (std::string(kind) == "requests") (*out)[name] += *milli;
      }
    }
  }
}

}  // namespace

std::optional<int64_t> QuantityMilli(const json& q) {
  if (q.is_null()) return std::nullopt;
  long double value = 0;
  if (!api::kinds::ParseQuantity(q, &value)) return std::nullopt;
  return static_cast<int64_t>(std::ceil(value * 1000));
}

QuotaUsage UsageOf(const api::ResourceInfo& res, const json& obj) {
  QuotaUsage out;
  if (res.group.empty() && res.plural == "pods" && Terminal(obj)) return out;
  out["count/" + (res.group.empty() ? res.plural : res.QualifiedName())] = 1000;
  if (!res.group.empty()) return out;
  const json& spec = ValueAt(obj, "spec");
  if (res.plural == "pods") {
    out["pods"] = 1000;
    AddContainerAmounts(ValueAt(spec, "containers"), &out);
  } else if (res.plural == "services") {
    out["services"] = 1000;
    const std::string type = ValueAt(spec, "type").is_string()
                                 ? ValueAt(spec, "type").get<std::string>()
                                 : "ClusterIP";
    const json& ports = ValueAt(spec, "ports");
    const int64_t port_count = ports.is_array() ? ports.size() : 0;
    if (type == "NodePort" || type == "LoadBalancer")
      out["services.nodeports"] = 1000 * port_count;
    if (type == "LoadBalancer") out["services.loadbalancers"] = 1000;
  } else if (res.plural == "persistentvolumeclaims") {
    out["persistentvolumeclaims"] = 1000;
    if (auto storage = QuantityMilli(ValueAt(
            ValueAt(ValueAt(spec, "resources"), "requests"), "storage")))
      out["requests.storage"] = *storage;
  } else if (res.plural == "configmaps" || res.plural == "secrets" ||
             res.plural == "replicationcontrollers" ||
             res.plural == "resourcequotas") {
    out[res.plural] = 1000;
  }
  return out;
}

std::string MissingComputeResources(const json& pod, const json& hard) {
  struct Need {
    const char* quota_a;
    const char* quota_b;
    const char* kind;
    const char* name;
  };
  static const Need kNeeds[] = {
      {"limits.cpu", nullptr, "limits", "cpu"},
      {"limits.memory", nullptr, "limits", "memory"},
      {"requests.cpu", "cpu", "requests", "cpu"},
      {"requests.memory", "memory", "requests", "memory"},
  };
  std::string out;
  const json& containers = ValueAt(ValueAt(pod, "spec"), "containers");
  for (const Need& need : kNeeds) {
    if (!hard.contains(need.quota_a) &&
        !(need.quota_b != nullptr && hard.contains(need.quota_b)))
      continue;
    std::string missing;
    if (containers.is_array()) {
      for (const json& c : containers) {
        const json& amounts = ValueAt(ValueAt(c, "resources"), need.kind);
        if (amounts.is_object() && amounts.contains(need.name)) continue;
        const json& name = ValueAt(c, "name");
        missing += (missing.empty() ? "" : ",") +
                   (name.is_string() ? name.get<std::string>() : "");
      }
    }
    if (missing.empty()) continue;
    out += (out.empty() ? "" : "; ") + std::string(need.kind) + "." +
           need.name + " for: " + missing;
  }
  return out;
}

const api::ResourceInfo* CountedResource(const api::Catalog& catalog,
                                         const std::string& quota_name) {
  std::string plural = quota_name, group;
  if (quota_name.rfind("count/", 0) == 0) {
    plural = quota_name.substr(6);
    if (size_t dot = plural.find('.'); dot != std::string::npos) {
      group = plural.substr(dot + 1);
      plural = plural.substr(0, dot);
    }
  } else if (quota_name == "cpu" || quota_name == "memory" ||
             quota_name == "ephemeral-storage" ||
             quota_name.rfind("requests.", 0) == 0 ||
             quota_name.rfind("limits.", 0) == 0) {
    plural =
        quota_name == "requests.storage" ? "persistentvolumeclaims" : "pods";
  } else if (quota_name.rfind("services.", 0) == 0) {
    plural = "services";
  }
  for (const api::ResourceInfo* res : catalog.resources()) {
    if (res->group == group && res->plural == plural && !res->from_storage &&
        !res->key_prefix.empty())
      return res;
  }
  return nullptr;
}

std::string FormatQuantity(const std::string& quota_name, int64_t milli) {
  const bool bytes = quota_name.find("memory") != std::string::npos ||
                     quota_name.find("storage") != std::string::npos;
  if (milli % 1000 != 0) return std::to_string(milli) + "m";
  int64_t units = milli / 1000;
  if (bytes && units != 0) {
    for (const auto& [suffix, size] :
         std::initializer_list<std::pair<const char*, int64_t>>{
             {"Ti", int64_t{1} << 40},
             {"Gi", int64_t{1} << 30},
             {"Mi", int64_t{1} << 20},
             {"Ki", int64_t{1} << 10}}) {
      if (units % size == 0) return std::to_string(units / size) + suffix;
    }
  }
  return std::to_string(units);
}

}  // namespace kmock::registry
