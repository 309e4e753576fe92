#include "registry/admission/priority.h"

#include "registry/api_errors.h"
#include "registry/registry.h"

namespace kmock::registry {

using nlohmann::json;

namespace {

struct Computed {
  std::string class_name;
  int64_t value = 0;
  std::string preemption_policy = "PreemptLowerPriority";
};

const json* FindClass(const CachedList::Items& classes,
                      const std::string& name) {
  for (const json& pc : classes) {
    if (pc["metadata"].value("name", "") == name) return &pc;
  }
  return nullptr;
}

Computed FromClass(const json& pc) {
  Computed c;
  c.class_name = pc["metadata"].value("name", "");
  const json& value = pc.contains("value") ? pc["value"] : json();
  c.value = value.is_number_integer() ? value.get<int64_t>() : 0;
  c.preemption_policy = pc.value("preemptionPolicy", "PreemptLowerPriority");
  return c;
}

// The two classes kube-apiserver makes at start-up, for a store that does
// not hold them (yet).
std::optional<Computed> SystemClass(const std::string& name) {
  if (name == "system-node-critical")
    return Computed{name, 2000001000, "PreemptLowerPriority"};
  if (name == "system-cluster-critical")
    return Computed{name, 2000000000, "PreemptLowerPriority"};
  return std::nullopt;
}

}  // namespace

PriorityAdmission::PriorityAdmission()
    : classes_("scheduling.k8s.io", "v1", "priorityclasses") {}

bool PriorityAdmission::Handles(const api::ResourceInfo& res) const {
  return res.group.empty() && res.plural == "pods";
}

Status PriorityAdmission::AdmitCreate(Registry& registry,
                                      const AdmissionRequest& req,
                                      json& obj) const {
  json& spec = obj["spec"];
  if (!spec.is_object()) return Status::Ok();  // validation refuses it
  KMOCK_ASSIGN_OR_RETURN(std::shared_ptr<const CachedList::Items> classes,
                         classes_.Get(registry));
  const std::string name = obj["metadata"].value("name", "");
  const std::string asked = spec.value("priorityClassName", "");
  Computed computed;
  if (asked.empty()) {
    const json* chosen = nullptr;
    for (const json& pc : *classes) {
      if (!pc.value("globalDefault", false)) continue;
      if (chosen == nullptr || FromClass(pc).value < FromClass(*chosen).value)
        chosen = &pc;
    }
    if (chosen != nullptr) {
      computed = FromClass(*chosen);
      spec["priorityClassName"] = computed.class_name;
    }
  } else if (const json* pc = FindClass(*classes, asked)) {
    computed = FromClass(*pc);
  } else if (auto system = SystemClass(asked)) {
    computed = *system;
  } else {
    return Forbidden(*req.resource, name,
                     "no PriorityClass with name " + asked + " was found");
  }
  auto priority = spec.find("priority");
  if (priority != spec.end() && priority->is_number_integer() &&
      priority->get<int64_t>() != computed.value) {
    return Forbidden(
        *req.resource, name,
        "the integer value of priority (" +
            std::to_string(priority->get<int64_t>()) +
            ") must not be provided in pod spec; priority admission "
            "controller computed " +
            std::to_string(computed.value) +
            " from the given PriorityClass name");
  }
  spec["priority"] = computed.value;
  auto policy = spec.find("preemptionPolicy");
  if (policy != spec.end() && policy->is_string() &&
      *policy != computed.preemption_policy) {
    return Forbidden(
        *req.resource, name,
        "the string value of PreemptionPolicy (" + policy->get<std::string>() +
            ") must not be provided in pod spec; priority "
            "admission controller computed " +
            computed.preemption_policy + " from the given PriorityClass name");
  }
  spec["preemptionPolicy"] = computed.preemption_policy;
  return Status::Ok();
}

}  // namespace kmock::registry
