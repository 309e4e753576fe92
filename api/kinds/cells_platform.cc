// Named Table cells of storage.k8s.io, admissionregistration.k8s.io,
// apiregistration.k8s.io and flowcontrol.apiserver.k8s.io: what
// kube-apiserver's printers (and kube-aggregator's APIService table) print.
#include <string>
#include <vector>

#include "api/kinds/cells.h"
#include "api/kinds/util.h"

namespace kmock::api::kinds {

namespace {

constexpr const char* kIsDefaultClass =
    "storageclass.kubernetes.io/is-default-class";
constexpr const char* kBetaIsDefaultClass =
    "storageclass.beta.kubernetes.io/is-default-class";

// The first condition of `type` under status.conditions, or nullptr.
const json* Condition(const json& obj, const std::string& type) {
  for (const json& c : Array(obj, {"status", "conditions"})) {
    if (c.is_object() && Str(c, {"type"}) == type) return &c;
  }
  return nullptr;
}

json StorageClassName(const json& obj, TimePoint /*now*/) {
  std::string name = Str(obj, {"metadata", "name"});
  if (Str(obj, {"metadata", "annotations", kIsDefaultClass}) == "true" ||
      Str(obj, {"metadata", "annotations", kBetaIsDefaultClass}) == "true") {
    name += " (default)";
  }
  return name;
}

json StorageClassAllowVolumeExpansion(const json& obj, TimePoint /*now*/) {
  return Bool(obj, {"allowVolumeExpansion"});
}

// A stored empty list reads back as nil, so it prints <unset> as well.
json CsiDriverTokenRequests(const json& obj, TimePoint /*now*/) {
  const json& requests = Array(obj, {"spec", "tokenRequests"});
  if (requests.empty()) return "<unset>";
  std::vector<std::string> audiences;
  for (const json& r : requests) audiences.push_back(Str(r, {"audience"}));
  return JoinStrings(audiences, ",");
}

json CsiStorageCapacityCapacity(const json& obj, TimePoint /*now*/) {
  const json* capacity = Find(obj, {"capacity"});
  if (capacity == nullptr || capacity->is_null()) return "<unset>";
  if (capacity->is_string()) return *capacity;
  return capacity->dump();
}

json VolumeAttachmentAttached(const json& obj, TimePoint /*now*/) {
  return Bool(obj, {"status", "attached"});
}

json ValidatingAdmissionPolicyParamKind(const json& obj, TimePoint /*now*/) {
  const json* kind = Find(obj, {"spec", "paramKind"});
  if (kind == nullptr || !kind->is_object()) return "<unset>";
  return Str(*kind, {"apiVersion"}) + "/" + Str(*kind, {"kind"});
}

// Go's %v of a []string: "[a b]".
std::string GoStringSlice(const json& values) {
  std::vector<std::string> parts;
  if (values.is_array()) {
    for (const json& v : values)
      parts.push_back(v.is_string() ? v.get<std::string>() : v.dump());
  }
  return "[" + JoinStrings(parts, " ") + "]";
}

// metav1.LabelSelector's generated String(), which the binding printer
// uses: &LabelSelector{MatchLabels:map[string]string{k: v,},
// MatchExpressions:[]LabelSelectorRequirement{...},}.
std::string ProtoLabelSelectorString(const json& selector) {
  std::string labels = "map[string]string{";
  if (const json* m = Find(selector, {"matchLabels"}); m && m->is_object()) {
    for (const auto& [key, value] : m->items()) {  // keys come sorted
      labels += key + ": " +
                (value.is_string() ? value.get<std::string>() : value.dump()) +
                ",";
    }
  }
  labels += "}";
  std::string exprs = "[]LabelSelectorRequirement{";
  for (const json& e : Array(selector, {"matchExpressions"})) {
    const json* values = Find(e, {"values"});
    exprs += "LabelSelectorRequirement{Key:" + Str(e, {"key"}) +
             ",Operator:" + Str(e, {"operator"}) +
             ",Values:" + GoStringSlice(values ? *values : json()) + ",},";
  }
  exprs += "}";
  return "&LabelSelector{MatchLabels:" + labels + ",MatchExpressions:" + exprs +
         ",}";
}

json ValidatingAdmissionPolicyBindingParamRef(const json& obj,
                                              TimePoint /*now*/) {
  const json* ref = Find(obj, {"spec", "paramRef"});
  if (ref == nullptr || !ref->is_object()) return "<unset>";
  std::string name = Str(*ref, {"name"});
  if (!name.empty()) {
    std::string ns = Str(*ref, {"namespace"});
    return (ns.empty() ? "*" : ns) + "/" + name;
  }
  const json* selector = Find(*ref, {"selector"});
  if (selector == nullptr || !selector->is_object()) return "<unset>";
  return ProtoLabelSelectorString(*selector);
}

json FlowSchemaMissingPL(const json& obj, TimePoint /*now*/) {
  const json* dangling = Condition(obj, "Dangling");
  return dangling ? Str(*dangling, {"status"}) : "?";
}

json ApiServiceService(const json& obj, TimePoint /*now*/) {
  const json* svc = Find(obj, {"spec", "service"});
  if (svc == nullptr || !svc->is_object()) return "Local";
  return Str(*svc, {"namespace"}) + "/" + Str(*svc, {"name"});
}

json ApiServiceAvailable(const json& obj, TimePoint /*now*/) {
  const json* available = Condition(obj, "Available");
  if (available == nullptr) return "Unknown";
  std::string status = Str(*available, {"status"});
  std::string reason = Str(*available, {"reason"});
  if (status == "True" || reason.empty()) return status;
  return status + " (" + reason + ")";
}

}  // namespace

void AddPlatformCells(CellTable* table) {
  table->emplace("storageClassName", StorageClassName);
  table->emplace("storageClassAllowVolumeExpansion",
                 StorageClassAllowVolumeExpansion);
  table->emplace("csiDriverTokenRequests", CsiDriverTokenRequests);
  table->emplace("csiStorageCapacityCapacity", CsiStorageCapacityCapacity);
  table->emplace("volumeAttachmentAttached", VolumeAttachmentAttached);
  table->emplace("validatingAdmissionPolicyParamKind",
                 ValidatingAdmissionPolicyParamKind);
  table->emplace("validatingAdmissionPolicyBindingParamRef",
                 ValidatingAdmissionPolicyBindingParamRef);
  table->emplace("flowSchemaMissingPL", FlowSchemaMissingPL);
  table->emplace("apiServiceService", ApiServiceService);
  table->emplace("apiServiceAvailable", ApiServiceAvailable);
}

}  // namespace kmock::api::kinds
