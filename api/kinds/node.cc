#include "api/kinds/node.h"

#include <set>

#include "api/kinds/util.h"
#include "api/validation.h"

namespace kmock::api::kinds {

namespace {

const char kRolePrefix[] = "node-role.kubernetes.io/";

std::string AddressOf(const json& node, const std::string& type) {
  for (const json& a : Array(node, {"status", "addresses"})) {
    if (Str(a, {"type"}) == type) return Str(a, {"address"});
  }
  return "<none>";
}

class NodeStrategyImpl : public Strategy {
 public:
  void PrepareForUpdate(json& obj, const json& old) const override {
    // Status is written through nodes/status only.
    if (old.contains("status")) {
      obj["status"] = old["status"];
    } else {
      obj.erase("status");
    }
  }

  void Default(json& obj) const override {
    json* status = obj.contains("status") ? &obj["status"] : nullptr;
    if (status && status->is_object() && status->contains("capacity") &&
        !status->contains("allocatable")) {
      (*status)["allocatable"] = (*status)["capacity"];
    }
  }

  void Validate(const json& obj, FieldErrors* errs) const override {
    const json& taints = Array(obj, {"spec", "taints"});
    std::set<std::string> seen;
    for (size_t i = 0; i < taints.size(); ++i) {
      std::string path = "spec.taints[" + std::to_string(i) + "]";
      std::string key = Str(taints[i], {"key"});
      if (key.empty()) {
        errs->Required(path + ".key");
      } else {
        ValidateQualifiedName(key, path + ".key", errs);
      }
      std::string effect = Str(taints[i], {"effect"});
      if (effect.empty()) {
        errs->Required(path + ".effect");
      } else if (effect != "NoSchedule" && effect != "PreferNoSchedule" &&
                 effect != "NoExecute") {
        errs->NotSupported(path + ".effect", effect,
                           {"NoSchedule", "PreferNoSchedule", "NoExecute"});
      }
      std::string id = key + "/" + effect;
      if (seen.count(id)) {
        errs->Duplicate("spec.taints",
                        "taints must be unique by key and effect pair");
      }
      seen.insert(id);
    }
  }

  void ValidateUpdate(const json& obj, const json& old,
                      FieldErrors* errs) const override {
    Validate(obj, errs);
    // Once set, podCIDR(s) and providerID may not change.
    for (const char* f : {"podCIDR", "providerID"}) {
      std::string o = Str(old, {"spec", f});
      std::string n = Str(obj, {"spec", f});
      if (!o.empty() && o != n) {
        errs->Forbidden(std::string("spec.") + f,
                        std::string(f) == "podCIDR"
                            ? "node updates may not change podCIDR except "
                              "from \"\" to valid"
                            : "node updates may not change providerID except "
                              "from \"\" to valid");
      }
    }
  }
};

}  // namespace

std::vector<std::string> NodeRoles(const json& node) {
  std::set<std::string> roles;
  const json* labels = Find(node, {"metadata", "labels"});
  if (labels && labels->is_object()) {
    for (auto it = labels->begin(); it != labels->end(); ++it) {
      const std::string& k = it.key();
      std::string v = it->is_string() ? it->get<std::string>() : "";
      if (k.rfind(kRolePrefix, 0) == 0) {
        std::string role = k.substr(sizeof(kRolePrefix) - 1);
        if (!role.empty()) roles.insert(role);
      } else if (k == "kubernetes.io/role" && !v.empty()) {
        roles.insert(v);
      }
    }
  }
  return {roles.begin(), roles.end()};
}

json NodeStatusCell(const json& node, TimePoint /*now*/) {
  std::string status;
  for (const json& c : Array(node, {"status", "conditions"})) {
    if (Str(c, {"type"}) == "Ready") {
      status = Str(c, {"status"}) == "True" ? "Ready" : "NotReady";
    }
  }
  if (status.empty()) status = "Unknown";
  if (Bool(node, {"spec", "unschedulable"})) status += ",SchedulingDisabled";
  return status;
}

json NodeRolesCell(const json& node, TimePoint /*now*/) {
  std::string roles;
  for (const std::string& r : NodeRoles(node)) {
    if (!roles.empty()) roles += ",";
    roles += r;
  }
  return roles.empty() ? "<none>" : roles;
}

json NodeInternalIpCell(const json& node, TimePoint /*now*/) {
  return AddressOf(node, "InternalIP");
}

json NodeExternalIpCell(const json& node, TimePoint /*now*/) {
  return AddressOf(node, "ExternalIP");
}

std::vector<SelectableField> NodeSelectableFields() {
  return {{"spec.unschedulable",
           [](const json& n) {
             return std::string(Bool(n, {"spec", "unschedulable"}) ? "true"
                                                                   : "false");
           },
           {"spec"}}};
}

const Strategy* NodeStrategy() {
  static const NodeStrategyImpl kStrategy;
  return &kStrategy;
}

const Strategy* NodeStatusStrategy() {
  static const StatusStrategy kStrategy(NodeStrategy());
  return &kStrategy;
}

}  // namespace kmock::api::kinds
