// Named cells of core/v1 endpoints, persistent volumes and their claims, pod
// templates, replication controllers and resource quotas, as
// kube-apiserver's printers compute them.
#include <string>
#include <vector>

#include "api/kinds/cells.h"
#include "api/kinds/util.h"

namespace kmock::api::kinds {

namespace {

constexpr char kBetaStorageClass[] = "volume.beta.kubernetes.io/storage-class";

// A quantity as stored ("10Gi"; a JSON number as written); "0" when absent,
// as an empty resource.Quantity prints.
std::string QuantityText(const json& map, const std::string& key) {
  if (!map.is_object()) return "0";
  auto it = map.find(key);
  if (it == map.end() || it->is_null()) return "0";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

// net.JoinHostPort: IPv6 addresses get brackets.
std::string HostPort(const std::string& ip, int64_t port) {
  const std::string host =
      ip.find(':') != std::string::npos ? "[" + ip + "]" : ip;
  return host + ":" + std::to_string(port);
}

json EndpointsEndpoints(const json& ep, TimePoint /*now*/) {
  const json& subsets = Array(ep, {"subsets"});
  if (subsets.empty()) return "<none>";
  constexpr size_t kMax = 3;
  std::vector<std::string> list;
  size_t count = 0;
  bool more = false;
  auto add = [&](const json& addresses, const json* port) {
    count += addresses.size();
    for (const json& addr : addresses) {
      if (list.size() == kMax) {
        more = true;
        break;
      }
      const std::string ip = Str(addr, {"ip"});
      list.push_back(port ? HostPort(ip, Int(*port, {"port"})) : ip);
    }
  };
  for (const json& ss : subsets) {
    const json& addresses = Array(ss, {"addresses"});
    const json& ports = Array(ss, {"ports"});
    if (ports.empty()) add(addresses, nullptr);
    for (const json& port : ports) add(addresses, &port);
  }
  std::string out;
  for (const std::string& s : list) out += (out.empty() ? "" : ",") + s;
  if (more) out += " + " + std::to_string(count - kMax) + " more...";
  return out;
}

// helper.GetAccessModesAsString: each mode once, in a fixed order.
std::string AccessModes(const json& modes) {
  static const std::pair<const char*, const char*> kModes[] = {
      {"ReadWriteOnce", "RWO"},
      {"ReadOnlyMany", "ROX"},
      {"ReadWriteMany", "RWX"},
      {"ReadWriteOncePod", "RWOP"}};
  std::string out;
  for (const auto& [mode, abbrev] : kModes) {
    bool found = false;
    for (const json& m : modes) found = found || (m.is_string() && m == mode);
    if (found) out += (out.empty() ? "" : ",") + std::string(abbrev);
  }
  return out;
}

// The phase, or Terminating once metadata.deletionTimestamp is set.
std::string Phase(const json& obj) {
  const json* deletion = Find(obj, {"metadata", "deletionTimestamp"});
  if (deletion && !deletion->is_null()) return "Terminating";
  return Str(obj, {"status", "phase"});
}

// A string at `path`, or "<unset>" when absent.
std::string OrUnset(const json& obj, std::initializer_list<const char*> path) {
  const json* v = Find(obj, path);
  return v && v->is_string() ? v->get<std::string>() : "<unset>";
}

// The beta storage-class annotation when present, else spec.storageClassName.
std::string StorageClass(const json& obj) {
  const json* annotations = Find(obj, {"metadata", "annotations"});
  if (annotations && annotations->is_object()) {
    auto it = annotations->find(kBetaStorageClass);
    if (it != annotations->end() && it->is_string()) return *it;
  }
  return Str(obj, {"spec", "storageClassName"});
}

json PersistentVolumeCapacity(const json& pv, TimePoint /*now*/) {
  const json* capacity = Find(pv, {"spec", "capacity"});
  return QuantityText(capacity ? *capacity : json(), "storage");
}

json PersistentVolumeAccessModes(const json& pv, TimePoint /*now*/) {
  return AccessModes(Array(pv, {"spec", "accessModes"}));
}

json PersistentVolumeStatus(const json& pv, TimePoint /*now*/) {
  return Phase(pv);
}

json PersistentVolumeClaim(const json& pv, TimePoint /*now*/) {
  const json* ref = Find(pv, {"spec", "claimRef"});
  if (!ref || !ref->is_object()) return "";
  return Str(*ref, {"namespace"}) + "/" + Str(*ref, {"name"});
}

json PersistentVolumeStorageClass(const json& pv, TimePoint /*now*/) {
  return StorageClass(pv);
}

json PersistentVolumeAttributesClass(const json& pv, TimePoint /*now*/) {
  return OrUnset(pv, {"spec", "volumeAttributesClassName"});
}

json PersistentVolumeVolumeMode(const json& pv, TimePoint /*now*/) {
  return OrUnset(pv, {"spec", "volumeMode"});
}

json PersistentVolumeClaimStatus(const json& pvc, TimePoint /*now*/) {
  return Phase(pvc);
}

bool ClaimBound(const json& pvc) {
  return !Str(pvc, {"spec", "volumeName"}).empty();
}

json PersistentVolumeClaimCapacity(const json& pvc, TimePoint /*now*/) {
  if (!ClaimBound(pvc)) return "";
  const json* capacity = Find(pvc, {"status", "capacity"});
  return QuantityText(capacity ? *capacity : json(), "storage");
}

json PersistentVolumeClaimAccessModes(const json& pvc, TimePoint /*now*/) {
  if (!ClaimBound(pvc)) return "";
  return AccessModes(Array(pvc, {"status", "accessModes"}));
}

json PersistentVolumeClaimStorageClass(const json& pvc, TimePoint /*now*/) {
  return StorageClass(pvc);
}

json PersistentVolumeClaimAttributesClass(const json& pvc, TimePoint /*now*/) {
  return OrUnset(pvc, {"spec", "volumeAttributesClassName"});
}

json PersistentVolumeClaimVolumeMode(const json& pvc, TimePoint /*now*/) {
  return OrUnset(pvc, {"spec", "volumeMode"});
}

// labels.FormatLabels: "k=v" sorted by key, joined by ",", or "<none>".
std::string FormatLabels(const json* labels) {
  std::string out;
  if (labels && labels->is_object()) {
    for (const auto& [key, value] : labels->items()) {  // sorted keys
      out += (out.empty() ? "" : ",") + key + "=" +
             (value.is_string() ? value.get<std::string>() : value.dump());
    }
  }
  return out.empty() ? "<none>" : out;
}

json PodTemplateLabels(const json& pt, TimePoint /*now*/) {
  return FormatLabels(Find(pt, {"template", "metadata", "labels"}));
}

json ReplicationControllerSelector(const json& rc, TimePoint /*now*/) {
  return FormatLabels(Find(rc, {"spec", "selector"}));
}

// "name: used/hard" for each resource of status.hard (names sorted), the
// limits.* ones or the others, joined by ", ". Nothing here fills in
// status.hard the way the quota controller does, so spec.hard stands in
// for it until status.hard is written, with usage 0 as the controller's
// first pass reports.
std::string QuotaColumn(const json& quota, bool limits) {
  const json* hard = Find(quota, {"status", "hard"});
  if (!hard || !hard->is_object()) hard = Find(quota, {"spec", "hard"});
  if (!hard || !hard->is_object()) return "";
  const json* used_ptr = Find(quota, {"status", "used"});
  const json used = used_ptr ? *used_ptr : json();
  std::string out;
  for (const auto& [name, value] : hard->items()) {  // sorted keys
    const size_t dot = name.find('.');
    const bool is_limit =
        dot != std::string::npos && name.compare(0, dot, "limits") == 0;
    if (is_limit != limits) continue;
    out += (out.empty() ? "" : ", ") + name + ": " + QuantityText(used, name) +
           "/" + QuantityText(*hard, name);
  }
  return out;
}

json ResourceQuotaRequest(const json& quota, TimePoint /*now*/) {
  return QuotaColumn(quota, false);
}

json ResourceQuotaLimit(const json& quota, TimePoint /*now*/) {
  return QuotaColumn(quota, true);
}

}  // namespace

// The Healthy condition of a ComponentStatus: kube-apiserver prints its
// verdict, message and error.
const json* HealthyCondition(const json& cs) {
  for (const json& c : Array(cs, {"conditions"})) {
    if (Str(c, {"type"}) == "Healthy") return &c;
  }
  return nullptr;
}

json ComponentStatusStatus(const json& cs, TimePoint) {
  const json* c = HealthyCondition(cs);
  if (c == nullptr) return "Unknown";
  return Str(*c, {"status"}) == "True" ? "Healthy" : "Unhealthy";
}

json ComponentStatusMessage(const json& cs, TimePoint) {
  const json* c = HealthyCondition(cs);
  return c ? Str(*c, {"message"}) : "";
}

json ComponentStatusError(const json& cs, TimePoint) {
  const json* c = HealthyCondition(cs);
  return c ? Str(*c, {"error"}) : "";
}

void AddConfigCells(CellTable* table) {
  table->insert({
      {"componentStatusError", ComponentStatusError},
      {"componentStatusMessage", ComponentStatusMessage},
      {"componentStatusStatus", ComponentStatusStatus},
      {"endpointsEndpoints", EndpointsEndpoints},
      {"persistentVolumeAccessModes", PersistentVolumeAccessModes},
      {"persistentVolumeAttributesClass", PersistentVolumeAttributesClass},
      {"persistentVolumeCapacity", PersistentVolumeCapacity},
      {"persistentVolumeClaim", PersistentVolumeClaim},
      {"persistentVolumeClaimAccessModes", PersistentVolumeClaimAccessModes},
      {"persistentVolumeClaimAttributesClass",
       PersistentVolumeClaimAttributesClass},
      {"persistentVolumeClaimCapacity", PersistentVolumeClaimCapacity},
      {"persistentVolumeClaimStatus", PersistentVolumeClaimStatus},
      {"persistentVolumeClaimStorageClass", PersistentVolumeClaimStorageClass},
      {"persistentVolumeClaimVolumeMode", PersistentVolumeClaimVolumeMode},
      {"persistentVolumeStatus", PersistentVolumeStatus},
      {"persistentVolumeStorageClass", PersistentVolumeStorageClass},
      {"persistentVolumeVolumeMode", PersistentVolumeVolumeMode},
      {"podTemplateLabels", PodTemplateLabels},
      {"replicationControllerSelector", ReplicationControllerSelector},
      {"resourceQuotaLimit", ResourceQuotaLimit},
      {"resourceQuotaRequest", ResourceQuotaRequest},
  });
}

}  // namespace kmock::api::kinds
