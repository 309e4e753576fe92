#include "controllers/endpoints/desired_endpoints.h"

#include <algorithm>
#include <map>
#include <optional>

#include "common/json_view.h"
#include "controllers/apps/object_util.h"

namespace kmock::controllers::endpoints {

namespace {

using PodPtr = std::shared_ptr<const json>;

std::string Str(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : "";
}

bool IsHeadless(const json& service) {
  return Str(ObjectAt(service, "spec"), "clusterIP") == "None";
}

bool PublishNotReady(const json& service) {
  const json& spec = ObjectAt(service, "spec");
  auto it = spec.find("publishNotReadyAddresses");
  return it != spec.end() && it->is_boolean() && it->get<bool>();
}

// ShouldPodBeInEndpoints: an IP, not terminal by its restart policy, and
// (unless `include_terminating`) not being deleted.
bool Counts(const json& pod, bool include_terminating) {
  const json& status = ObjectAt(pod, "status");
  if (Str(status, "podIP").empty()) return false;
  if (!include_terminating && apps::IsBeingDeleted(pod)) return false;
  std::string policy = Str(ObjectAt(pod, "spec"), "restartPolicy");
  std::string phase = Str(status, "phase");
  if (policy == "Never") return phase != "Failed" && phase != "Succeeded";
  if (policy == "OnFailure") return phase != "Succeeded";
  return true;
}

// podutil.FindPort: the container port a service port reaches on the pod.
std::optional<int64_t> FindPort(const json& pod, const json& service_port) {
  auto target = service_port.find("targetPort");
  if (target == service_port.end() || target->is_null()) {
    return service_port.value("port", int64_t{0});
  }
  if (target->is_number_integer()) return target->get<int64_t>();
  if (!target->is_string()) return std::nullopt;
  const std::string name = target->get<std::string>();
  const std::string protocol = service_port.value("protocol", "TCP");
  const json& spec = ObjectAt(pod, "spec");
  for (const char* list : {"containers", "initContainers"}) {
    auto containers = spec.find(list);
    if (containers == spec.end() || !containers->is_array()) continue;
    for (const json& c : *containers) {
      if (std::string(list) == "initContainers" &&
          Str(c, "restartPolicy") != "Always") {
        continue;  // only sidecars serve
      }
      auto ports = c.find("ports");
      if (ports == c.end() || !ports->is_array()) continue;
      for (const json& p : *ports) {
        if (Str(p, "name") == name && p.value("protocol", "TCP") == protocol) {
          return p.value("containerPort", int64_t{0});
        }
      }
    }
  }
  return std::nullopt;
}

json TargetRef(const json& pod) {
  const json& meta = ObjectAt(pod, "metadata");
  return {{"kind", "Pod"},
          {"namespace", Str(meta, "namespace")},
          {"name", Str(meta, "name")},
          {"uid", Str(meta, "uid")}};
}

std::string Hostname(const json& service, const json& pod) {
  const json& spec = ObjectAt(pod, "spec");
  if (!IsHeadless(service) || Str(spec, "hostname").empty()) return "";
  if (Str(spec, "subdomain") != apps::NameOf(service)) return "";
  if (apps::NamespaceOf(pod) != apps::NamespaceOf(service)) return "";
  return Str(spec, "hostname");
}

// The ports the pod serves for the Service, in the Service's order; `named`
// gives every entry a name ("" when the service port has none), as slices
// do, where Endpoints leave the name out.
json PortsFor(const json& service, const json& pod, bool named) {
  json ports = json::array();
  auto service_ports = ObjectAt(service, "spec").find("ports");
  if (service_ports == ObjectAt(service, "spec").end() ||
      !service_ports->is_array()) {
    return ports;
  }
  for (const json& sp : *service_ports) {
    std::optional<int64_t> port = FindPort(pod, sp);
    if (!port) continue;
    json p = json::object();
    std::string name = Str(sp, "name");
    if (named || !name.empty()) p["name"] = name;
    p["port"] = *port;
    p["protocol"] = sp.value("protocol", "TCP");
    if (sp.contains("appProtocol")) p["appProtocol"] = sp["appProtocol"];
    ports.push_back(std::move(p));
  }
  return ports;
}

bool ByIp(const json& a, const json& b, const char* key) {
  return a[key].dump() < b[key].dump();
}

}  // namespace

bool ServiceHasSelector(const json& service) {
  const json& spec = ObjectAt(service, "spec");
  if (Str(spec, "type") == "ExternalName") return false;
  auto selector = spec.find("selector");
  return selector != spec.end() && selector->is_object() && !selector->empty();
}

bool SelectorMatches(const json& service, const json& pod) {
  const json& selector = ObjectAt(ObjectAt(service, "spec"), "selector");
  if (!selector.is_object() || selector.empty()) return false;
  const json& labels = ObjectAt(ObjectAt(pod, "metadata"), "labels");
  for (const auto& [key, value] : selector.items()) {
    auto it = labels.find(key);
    if (it == labels.end() || *it != value) return false;
  }
  return true;
}

json EndpointSubsets(const json& service, const std::vector<PodPtr>& pods) {
  const bool publish = PublishNotReady(service);
  const bool no_ports = !ObjectAt(service, "spec").contains("ports") ||
                        ObjectAt(service, "spec")["ports"].empty();
  // Port set (as text) -> {ports, ready addresses, not-ready addresses}.
  struct Group {
    json ports;
    json ready = json::array();
    json not_ready = json::array();
  };
  std::map<std::string, Group> groups;
  for (const PodPtr& pod : pods) {
    if (!Counts(*pod, publish)) continue;
    json ports = PortsFor(service, *pod, /*named=*/false);
    // A pod serving none of the ports is left out, unless the (headless)
    // Service has no ports at all.
    if (ports.empty() && !no_ports) continue;
    json address = {{"ip", Str(ObjectAt(*pod, "status"), "podIP")}};
    std::string host = Hostname(service, *pod);
    if (!host.empty()) address["hostname"] = host;
    std::string node = Str(ObjectAt(*pod, "spec"), "nodeName");
    if (!node.empty()) address["nodeName"] = node;
    address["targetRef"] = TargetRef(*pod);
    Group& group = groups[ports.dump()];
    group.ports = std::move(ports);
    bool ready = publish || apps::IsPodReady(*pod);
    (ready ? group.ready : group.not_ready).push_back(std::move(address));
  }
  json subsets = json::array();
  for (auto& [key, group] : groups) {
    auto by_ip = [](const json& a, const json& b) { return ByIp(a, b, "ip"); };
    std::sort(group.ready.begin(), group.ready.end(), by_ip);
    std::sort(group.not_ready.begin(), group.not_ready.end(), by_ip);
    json subset = json::object();
    if (!group.ready.empty()) subset["addresses"] = std::move(group.ready);
    if (!group.not_ready.empty()) {
      subset["notReadyAddresses"] = std::move(group.not_ready);
    }
    if (!group.ports.empty()) subset["ports"] = std::move(group.ports);
    subsets.push_back(std::move(subset));
  }
  std::sort(subsets.begin(), subsets.end(), [](const json& a, const json& b) {
    const json& first_a =
        a.contains("addresses") ? a["addresses"][0] : a["notReadyAddresses"][0];
    const json& first_b =
        b.contains("addresses") ? b["addresses"][0] : b["notReadyAddresses"][0];
    return ByIp(first_a, first_b, "ip");
  });
  return subsets;
}

json EndpointsLabels(const json& service) {
  json labels = ObjectAt(ObjectAt(service, "metadata"), "labels");
  if (!labels.is_object()) labels = json::object();
  if (IsHeadless(service)) labels[kHeadlessLabel] = "";
  return labels;
}

std::vector<SliceContent> DesiredSlices(const json& service,
                                        const std::vector<PodPtr>& pods,
                                        const ZoneOf& zone_of,
                                        size_t max_per_slice) {
  const bool publish = PublishNotReady(service);
  std::map<std::string, SliceContent> by_ports;
  for (const PodPtr& pod : pods) {
    if (!Counts(*pod, /*include_terminating=*/true)) continue;
    json ports = PortsFor(service, *pod, /*named=*/true);
    bool serving = apps::IsPodReady(*pod);
    bool terminating = apps::IsBeingDeleted(*pod);
    bool ready = publish || serving;
    if (terminating && !publish) ready = false;
    json endpoint = {
        {"addresses", json::array({Str(ObjectAt(*pod, "status"), "podIP")})},
        {"conditions",
         {{"ready", ready},
          {"serving", serving},
          {"terminating", terminating}}}};
    std::string host = Hostname(service, *pod);
    if (!host.empty()) endpoint["hostname"] = host;
    endpoint["targetRef"] = TargetRef(*pod);
    std::string node = Str(ObjectAt(*pod, "spec"), "nodeName");
    if (!node.empty()) {
      endpoint["nodeName"] = node;
      std::string zone = zone_of ? zone_of(node) : "";
      if (!zone.empty()) endpoint["zone"] = zone;
    }
    SliceContent& slice = by_ports[ports.dump()];
    slice.ports = ports.empty() ? json() : std::move(ports);
    if (slice.endpoints.is_null()) slice.endpoints = json::array();
    slice.endpoints.push_back(std::move(endpoint));
  }
  std::vector<SliceContent> slices;
  for (auto& [key, group] : by_ports) {
    std::sort(
        group.endpoints.begin(), group.endpoints.end(),
        [](const json& a, const json& b) { return ByIp(a, b, "addresses"); });
    for (size_t i = 0; i < group.endpoints.size(); i += max_per_slice) {
      size_t end = std::min(group.endpoints.size(), i + max_per_slice);
      json part = json::array();
      for (size_t j = i; j < end; ++j) part.push_back(group.endpoints[j]);
      slices.push_back({group.ports, std::move(part)});
    }
  }
  if (slices.empty()) slices.push_back({json(), json::array()});
  return slices;
}

}  // namespace kmock::controllers::endpoints
