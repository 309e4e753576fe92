#include "api/kinds/service.h"

#include <arpa/inet.h>

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "api/kinds/util.h"
#include "api/validation.h"

namespace kmock::api::kinds {

namespace {

const char kClusterIP[] = "ClusterIP";
const char kNodePort[] = "NodePort";
const char kLoadBalancer[] = "LoadBalancer";
const char kExternalName[] = "ExternalName";
const char kBadIp[] =
    "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";
const char kDns1035Message[] =
    "a DNS-1035 label must consist of lower case alphanumeric characters or "
    "'-', start with an alphabetic character, and end with an alphanumeric "
    "character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
    "'[a-z]([-a-z0-9]*[a-z0-9])?')";
constexpr int kDefaultAffinityTimeout = 10800;  // 3 hours
constexpr int kMaxAffinityTimeout = 86400;      // 1 day

std::string Type(const json& svc) { return Str(svc, {"spec", "type"}); }

bool IsHeadless(const json& svc) {
  return Str(svc, {"spec", "clusterIP"}) == "None";
}

// Whether the service's ports get node ports allocated automatically.
bool WantsNodePorts(const json& svc) {
  std::string type = Type(svc);
  if (type == kNodePort) return true;
  if (type != kLoadBalancer) return false;
  const json* alloc = Find(svc, {"spec", "allocateLoadBalancerNodePorts"});
  return !alloc || !alloc->is_boolean() || alloc->get<bool>();
}

bool WantsHealthCheckPort(const json& svc) {
  return Type(svc) == kLoadBalancer &&
         Str(svc, {"spec", "externalTrafficPolicy"}) == "Local";
}

std::vector<std::string> Strings(const json& arr) {
  std::vector<std::string> out;
  for (const json& v : arr)
    out.push_back(v.is_string() ? v.get<std::string>() : "");
  return out;
}

// Go's %#v of a []string, as field errors print slices.
std::string GoStringSlice(const json& arr) {
  std::string out = "[]string{";
  bool first = true;
  for (const std::string& s : Strings(arr)) {
    if (!first) out += ", ";
    first = false;
    out += FieldValueString(s);
  }
  return out + "}";
}

bool IsIp(const std::string& s) {
  unsigned char buf[16];
  return inet_pton(AF_INET, s.c_str(), buf) == 1 ||
         inet_pton(AF_INET6, s.c_str(), buf) == 1;
}

std::optional<uint32_t> ParseIPv4(const std::string& s) {
  in_addr addr{};
  if (inet_pton(AF_INET, s.c_str(), &addr) != 1) return std::nullopt;
  return ntohl(addr.s_addr);
}

std::string FormatIPv4(uint32_t ip) {
  return std::to_string(ip >> 24) + "." + std::to_string((ip >> 16) & 255) +
         "." + std::to_string((ip >> 8) & 255) + "." + std::to_string(ip & 255);
}

// The cluster IPs a service holds (no "None", no empties).
std::vector<std::string> HeldIps(const json& svc) {
  std::vector<std::string> out;
  if (Type(svc) == kExternalName) return out;
  for (const std::string& ip : Strings(Array(svc, {"spec", "clusterIPs"}))) {
    if (!ip.empty() && ip != "None") out.push_back(ip);
  }
  std::string ip = Str(svc, {"spec", "clusterIP"});
  if (out.empty() && !ip.empty() && ip != "None") out.push_back(ip);
  return out;
}

// The node ports (and health check port) a service holds.
std::set<int> HeldPorts(const json& svc) {
  std::set<int> out;
  std::string type = Type(svc);
  if (type != kNodePort && type != kLoadBalancer) return out;
  for (const json& p : Array(svc, {"spec", "ports"})) {
    int64_t np = Int(p, {"nodePort"});
    if (np > 0) out.insert(static_cast<int>(np));
  }
  int64_t hc = Int(svc, {"spec", "healthCheckNodePort"});
  if (hc > 0) out.insert(static_cast<int>(hc));
  return out;
}

std::string FormatSelector(const json& selector) {
  if (!selector.is_object() || selector.empty()) return "<none>";
  std::string out;  // nlohmann::json objects iterate in key order
  for (const auto& [k, v] : selector.items()) {
    if (!out.empty()) out += ",";
    out += k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
  }
  return out;
}

std::string ExternalIpCell(const json& svc) {
  std::vector<std::string> external =
      Strings(Array(svc, {"spec", "externalIPs"}));
  std::string type = Type(svc);
  if (type == kClusterIP || type == kNodePort) {
    return external.empty() ? "<none>" : JoinStrings(external);
  }
  if (type == kLoadBalancer) {
    std::vector<std::string> lb = LoadBalancerAddresses(svc);
    if (!external.empty()) {
      if (!lb.empty()) external.push_back(JoinStrings(lb));
      return JoinStrings(external);
    }
    return lb.empty() ? "<pending>" : JoinStrings(lb);
  }
  if (type == kExternalName) return Str(svc, {"spec", "externalName"});
  return "<unknown>";
}

std::string PortsCell(const json& svc) {
  std::vector<std::string> parts;
  for (const json& p : Array(svc, {"spec", "ports"})) {
    std::string proto = Str(p, {"protocol"});
    int64_t np = Int(p, {"nodePort"});
    std::string port = std::to_string(Int(p, {"port"}));
    if (np > 0) port += ":" + std::to_string(np);
    parts.push_back(port + "/" + proto);
  }
  return parts.empty() ? "<none>" : JoinStrings(parts);
}

void ValidatePortNumOrName(const json& value, const std::string& path,
                           FieldErrors* errs) {
  if (value.is_number_integer()) {
    for (const std::string& m : IsValidPortNum(value.get<int64_t>())) {
      errs->Invalid(path, value, m);
    }
  } else if (value.is_string()) {
    for (const std::string& m : IsValidPortName(value.get<std::string>())) {
      errs->Invalid(path, value, m);
    }
  }
}

// Go's %#v of the core.ServicePort key upstream reports duplicates with.
std::string DuplicatePortKey(const std::string& protocol, int64_t port) {
  return "core.ServicePort{Name:\"\", Protocol:" + FieldValueString(protocol) +
         ", AppProtocol:(*string)(nil), Port:" + std::to_string(port) +
         ", TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}, "
         "NodePort:0}";
}

void ValidatePorts(const json& svc, FieldErrors* errs) {
  const json& ports = Array(svc, {"spec", "ports"});
  std::string type = Type(svc);
  if (ports.empty() && !IsHeadless(svc) && type != kExternalName) {
    errs->Required("spec.ports");
  }
  const bool require_name = ports.size() > 1;
  std::set<std::string> names;
  std::set<std::pair<std::string, int64_t>> keys;
  std::set<std::pair<std::string, int64_t>> node_ports;
  for (size_t i = 0; i < ports.size(); ++i) {
    const json& p = ports[i];
    std::string path = "spec.ports[" + std::to_string(i) + "]";
    std::string name = Str(p, {"name"});
    if (require_name && name.empty()) {
      errs->Required(path + ".name");
    } else if (!name.empty()) {
      ValidateDNS1123Label(name, path + ".name", errs);
      if (!names.insert(name).second) errs->Duplicate(path + ".name", name);
    }
    int64_t port = Int(p, {"port"});
    for (const std::string& m : IsValidPortNum(port)) {
      errs->Invalid(path + ".port", port, m);
    }
    std::string protocol = Str(p, {"protocol"});
    if (protocol.empty()) {
      errs->Required(path + ".protocol");
    } else if (protocol != "TCP" && protocol != "UDP" && protocol != "SCTP") {
      errs->NotSupported(path + ".protocol", protocol, {"SCTP", "TCP", "UDP"});
    }
    if (const json* target = Find(p, {"targetPort"})) {
      ValidatePortNumOrName(*target, path + ".targetPort", errs);
    }
    if (!keys.insert({protocol, port}).second) {
      errs->Add(StatusCause{
          "FieldValueDuplicate",
          "Duplicate value: " + DuplicatePortKey(protocol, port), path});
    }
    int64_t np = Int(p, {"nodePort"});
    if (np != 0) {
      if (type == kClusterIP) {
        errs->Forbidden(path + ".nodePort",
                        "may not be used when `type` is 'ClusterIP'");
      } else if (!node_ports.insert({protocol, np}).second) {
        errs->Duplicate(path + ".nodePort", np);
      }
    }
  }
}

void ValidateClusterIps(const json& svc, FieldErrors* errs) {
  std::string type = Type(svc);
  std::string cluster_ip = Str(svc, {"spec", "clusterIP"});
  const json& ips = Array(svc, {"spec", "clusterIPs"});
  if (type == kExternalName) {
    if (!cluster_ip.empty() || !ips.empty()) {
      errs->Forbidden("spec.clusterIPs",
                      "may not be set for ExternalName services");
    }
    return;
  }
  if (!ips.empty() && Strings(ips)[0] != cluster_ip) {
    errs->Add(StatusCause{"FieldValueInvalid",
                          "Invalid value: " + GoStringSlice(ips) +
                              ": first value must match `clusterIP`",
                          "spec.clusterIPs"});
  }
  std::vector<std::string> list = Strings(ips);
  for (size_t i = 0; i < list.size(); ++i) {
    std::string path = "spec.clusterIPs[" + std::to_string(i) + "]";
    const std::string& ip = list[i];
    if (ip == "None") {
      if (i > 0 || list.size() > 1) {
        errs->Invalid(path, ip, "must be empty when the first value is 'None'");
      } else if (type == kNodePort || type == kLoadBalancer) {
        errs->Invalid(path, ip,
                      "may not be set to 'None' for " + type + " services");
      }
    } else if (!IsIp(ip)) {
      errs->Invalid(path, ip, kBadIp);
    }
  }
  if (list.size() > 2) {
    errs->Invalid("spec.clusterIPs", json(list),
                  "may only hold up to 2 values");
  }
}

void ValidatePolicies(const json& svc, FieldErrors* errs) {
  std::string type = Type(svc);
  std::string etp = Str(svc, {"spec", "externalTrafficPolicy"});
  if (type == kNodePort || type == kLoadBalancer) {
    if (etp.empty()) {
      errs->Required("spec.externalTrafficPolicy");
    } else if (etp != "Cluster" && etp != "Local") {
      errs->NotSupported("spec.externalTrafficPolicy", etp,
                         {"Cluster", "Local"});
    }
  } else if (!etp.empty()) {
    errs->Invalid(
        "spec.externalTrafficPolicy", etp,
        "may only be set when `type` is 'NodePort' or 'LoadBalancer'");
  }
  if (type != kExternalName) {
    std::string itp = Str(svc, {"spec", "internalTrafficPolicy"});
    if (itp.empty()) {
      errs->Required("spec.internalTrafficPolicy");
    } else if (itp != "Cluster" && itp != "Local") {
      errs->NotSupported("spec.internalTrafficPolicy", itp,
                         {"Cluster", "Local"});
    }
    std::string policy = Str(svc, {"spec", "ipFamilyPolicy"});
    if (!policy.empty() && policy != "SingleStack" &&
        policy != "PreferDualStack" && policy != "RequireDualStack") {
      errs->NotSupported(
          "spec.ipFamilyPolicy", policy,
          {"PreferDualStack", "RequireDualStack", "SingleStack"});
    }
    const json& families = Array(svc, {"spec", "ipFamilies"});
    for (size_t i = 0; i < families.size(); ++i) {
      std::string f =
          families[i].is_string() ? families[i].get<std::string>() : "";
      if (f != "IPv4" && f != "IPv6") {
        errs->NotSupported("spec.ipFamilies[" + std::to_string(i) + "]", f,
                           {"IPv4", "IPv6"});
      }
    }
  }
  if (type != kLoadBalancer) {
    if (Find(svc, {"spec", "allocateLoadBalancerNodePorts"})) {
      errs->Forbidden("spec.allocateLoadBalancerNodePorts",
                      "may only be used when `type` is 'LoadBalancer'");
    }
    if (!Array(svc, {"spec", "loadBalancerSourceRanges"}).empty()) {
      errs->Forbidden("spec.loadBalancerSourceRanges",
                      "may only be used when `type` is 'LoadBalancer'");
    }
  }
  std::string affinity = Str(svc, {"spec", "sessionAffinity"});
  if (affinity.empty()) {
    errs->Required("spec.sessionAffinity");
  } else if (affinity != "None" && affinity != "ClientIP") {
    errs->NotSupported("spec.sessionAffinity", affinity, {"ClientIP", "None"});
  } else if (affinity == "ClientIP") {
    const json* t = Find(svc, {"spec", "sessionAffinityConfig", "clientIP"});
    int64_t timeout = t ? Int(*t, {"timeoutSeconds"}) : 0;
    if (timeout <= 0 || timeout > kMaxAffinityTimeout) {
      errs->Invalid("spec.sessionAffinityConfig.clientIP.timeoutSeconds",
                    timeout, "must be greater than 0 and less than 86400");
    }
  }
}

class ServiceStrategyImpl : public Strategy {
 public:
  void PrepareForCreate(json& obj) const override {
    obj["status"] = {{"loadBalancer", json::object()}};
  }

  void PrepareForUpdate(json& obj, const json& old) const override {
    if (old.contains("status")) {
      obj["status"] = old["status"];
    } else {
      obj.erase("status");
    }
    PatchAllocatedValues(obj, old);
    DropTypeDependentFields(obj, old);
  }

  void Default(json& obj) const override { DefaultService(obj); }

  void Validate(const json& obj, FieldErrors* errs) const override {
    ValidateService(obj, errs);
  }

  void ValidateUpdate(const json& obj, const json& old,
                      FieldErrors* errs) const override {
    ValidateServiceUpdate(obj, old, errs);
  }

 private:
  // A client that leaves out the allocated values (kubectl replace, apply
  // of a file without them) keeps them, as kube-apiserver does.
  static void PatchAllocatedValues(json& obj, const json& old) {
    json& spec = ObjectAt(obj, "spec");
    if (Type(obj) != kExternalName && Type(old) != kExternalName) {
      std::string old_ip = Str(old, {"spec", "clusterIP"});
      if (Str(obj, {"spec", "clusterIP"}).empty() && !old_ip.empty()) {
        spec["clusterIP"] = old_ip;
      }
      const json& old_ips = Array(old, {"spec", "clusterIPs"});
      if (Array(obj, {"spec", "clusterIPs"}).empty() && !old_ips.empty()) {
        spec["clusterIPs"] = old_ips;
      }
    }
    if (WantsNodePorts(obj) && WantsNodePorts(old)) {
      std::set<int> used_by_both;
      std::set<int> old_ports = HeldPorts(old);
      for (int p : HeldPorts(obj)) {
        if (old_ports.count(p)) used_by_both.insert(p);
      }
      std::map<std::string, int64_t> by_name;
      for (const json& p : Array(old, {"spec", "ports"})) {
        by_name[Str(p, {"name"})] = Int(p, {"nodePort"});
      }
      if (spec.contains("ports") && spec["ports"].is_array()) {
        for (json& p : spec["ports"]) {
          if (!p.is_object() || Int(p, {"nodePort"}) != 0) continue;
          auto it = by_name.find(Str(p, {"name"}));
          if (it != by_name.end() && it->second > 0 &&
              !used_by_both.count(static_cast<int>(it->second))) {
            p["nodePort"] = it->second;
          }
        }
      }
    }
    if (WantsHealthCheckPort(obj) && WantsHealthCheckPort(old) &&
        Int(obj, {"spec", "healthCheckNodePort"}) == 0) {
      int64_t hc = Int(old, {"spec", "healthCheckNodePort"});
      if (hc > 0) spec["healthCheckNodePort"] = hc;
    }
  }

  // Fields that only make sense for the old type and that the client did
  // not change are dropped when the type changes.
  static void DropTypeDependentFields(json& obj, const json& old) {
    if (Type(obj) == Type(old)) return;
    json& spec = ObjectAt(obj, "spec");
    auto same = [&](const char* key) {
      const json* a = Find(obj, {"spec", key});
      const json* b = Find(old, {"spec", key});
      return a && b && *a == *b;
    };
    if (Type(obj) == kExternalName) {
      for (const char* key : {"clusterIP", "clusterIPs", "ipFamilies",
                              "ipFamilyPolicy", "internalTrafficPolicy"}) {
        if (same(key)) spec.erase(key);
      }
    }
    if (Type(obj) != kNodePort && Type(obj) != kLoadBalancer) {
      if (same("externalTrafficPolicy")) spec.erase("externalTrafficPolicy");
      if (same("ports") && spec["ports"].is_array()) {
        for (json& p : spec["ports"]) {
          if (p.is_object()) p.erase("nodePort");
        }
      }
    }
    if (Type(obj) != kLoadBalancer) {
      for (const char* key : {"allocateLoadBalancerNodePorts",
                              "loadBalancerClass", "healthCheckNodePort"}) {
        if (same(key)) spec.erase(key);
      }
    }
  }
};

std::string IPv4CidrRange(uint32_t base, uint32_t size) {
  return FormatIPv4(base) + "/" + std::to_string(32 - __builtin_ctz(size));
}

Status Invalid422(const json& svc, const FieldErrors& errs) {
  return errs.ToStatus("Service", "", "services",
                       Str(svc, {"metadata", "name"}));
}

}  // namespace

json ServiceClusterIpCell(const json& svc, TimePoint /*now*/) {
  const json& ips = Array(svc, {"spec", "clusterIPs"});
  if (!ips.empty() && ips[0].is_string()) return ips[0].get<std::string>();
  if (!Str(svc, {"spec", "clusterIP"}).empty())
    return Str(svc, {"spec", "clusterIP"});
  return "<none>";
}

json ServiceExternalIpCell(const json& svc, TimePoint /*now*/) {
  return ExternalIpCell(svc);
}

json ServicePortsCell(const json& svc, TimePoint /*now*/) {
  return PortsCell(svc);
}

json ServiceSelectorCell(const json& svc, TimePoint /*now*/) {
  const json* selector = Find(svc, {"spec", "selector"});
  return FormatSelector(selector ? *selector : json());
}

std::vector<SelectableField> ServiceSelectableFields() {
  return {
      {"spec.clusterIP",
       [](const json& s) {
         return Str(s, {"spec", "clusterIP"});
       },
       {"spec"}},
      {"spec.type",
       [](const json& s) {
         return Str(s, {"spec", "type"});
       },
       {"spec"}},
  };
}

void DefaultService(json& svc) {
  json& spec = ObjectAt(svc, "spec");
  if (Str(svc, {"spec", "type"}).empty()) spec["type"] = kClusterIP;
  const std::string type = Type(svc);
  if (Str(svc, {"spec", "sessionAffinity"}).empty())
    spec["sessionAffinity"] = "None";
  if (Str(svc, {"spec", "sessionAffinity"}) == "ClientIP" &&
      !Find(svc,
            {"spec", "sessionAffinityConfig", "clientIP", "timeoutSeconds"})) {
    ObjectAt(ObjectAt(spec, "sessionAffinityConfig"),
             "clientIP")["timeoutSeconds"] = kDefaultAffinityTimeout;
  }
  if (spec.contains("ports") && spec["ports"].is_array()) {
    for (json& p : spec["ports"]) {
      if (!p.is_object()) continue;
      if (Str(p, {"protocol"}).empty()) p["protocol"] = "TCP";
      const json* target = Find(p, {"targetPort"});
      bool unset =
          !target || target->is_null() ||
          (target->is_number_integer() && target->get<int64_t>() == 0) ||
          (target->is_string() && target->get<std::string>().empty());
      if (unset && p.contains("port")) p["targetPort"] = p["port"];
    }
  }
  if (type == kNodePort || type == kLoadBalancer) {
    if (Str(svc, {"spec", "externalTrafficPolicy"}).empty()) {
      spec["externalTrafficPolicy"] = "Cluster";
    }
  }
  if (type == kLoadBalancer &&
      !Find(svc, {"spec", "allocateLoadBalancerNodePorts"})) {
    spec["allocateLoadBalancerNodePorts"] = true;
  }
  if (type == kExternalName) return;
  if (Str(svc, {"spec", "internalTrafficPolicy"}).empty()) {
    spec["internalTrafficPolicy"] = "Cluster";
  }
  // clusterIP and clusterIPs[0] mirror each other; whichever is set wins.
  std::string ip = Str(svc, {"spec", "clusterIP"});
  const json& ips = Array(svc, {"spec", "clusterIPs"});
  if (ips.empty() && !ip.empty()) {
    spec["clusterIPs"] = json::array({ip});
  } else if (!ips.empty() && ip.empty() && ips[0].is_string()) {
    spec["clusterIP"] = ips[0];
  }
  if (Str(svc, {"spec", "ipFamilyPolicy"}).empty())
    spec["ipFamilyPolicy"] = "SingleStack";
  if (Array(svc, {"spec", "ipFamilies"}).empty())
    spec["ipFamilies"] = json::array({"IPv4"});
}

void ValidateService(const json& svc, FieldErrors* errs) {
  // Service names are DNS-1035 labels: a DNS-1123 label (checked with the
  // metadata) that starts with a letter.
  std::string name = Str(svc, {"metadata", "name"});
  if (!name.empty() && name[0] >= '0' && name[0] <= '9' &&
      IsDNS1123Label(name).empty()) {
    errs->Invalid("metadata.name", name, kDns1035Message);
  }
  std::string type = Type(svc);
  static const std::vector<std::string> kTypes = {kClusterIP, kExternalName,
                                                  kLoadBalancer, kNodePort};
  if (type.empty()) {
    errs->Required("spec.type");
  } else if (std::find(kTypes.begin(), kTypes.end(), type) == kTypes.end()) {
    errs->NotSupported("spec.type", type, kTypes);
  }
  if (type == kExternalName) {
    std::string external = Str(svc, {"spec", "externalName"});
    if (external.empty()) {
      errs->Required("spec.externalName");
    } else {
      if (external.back() == '.') external.pop_back();  // fully qualified
      ValidateDNS1123Subdomain(external, "spec.externalName", errs);
    }
  }
  ValidatePorts(svc, errs);
  ValidateClusterIps(svc, errs);
  if (const json* selector = Find(svc, {"spec", "selector"})) {
    ValidateLabels(*selector, "spec.selector", errs);
  }
  const json& external = Array(svc, {"spec", "externalIPs"});
  for (size_t i = 0; i < external.size(); ++i) {
    std::string ip =
        external[i].is_string() ? external[i].get<std::string>() : "";
    if (!IsIp(ip))
      errs->Invalid("spec.externalIPs[" + std::to_string(i) + "]", ip, kBadIp);
  }
  ValidatePolicies(svc, errs);
}

void ValidateServiceUpdate(const json& svc, const json& old,
                           FieldErrors* errs) {
  if (Type(svc) == kExternalName || Type(old) == kExternalName) return;
  const json& ips = Array(svc, {"spec", "clusterIPs"});
  const json& old_ips = Array(old, {"spec", "clusterIPs"});
  if (!ips.empty() && !old_ips.empty() && ips[0] != old_ips[0]) {
    errs->Add(StatusCause{
        "FieldValueInvalid",
        "Invalid value: " + GoStringSlice(ips) + ": may not change once set",
        "spec.clusterIPs[0]"});
  }
}

const Strategy* ServiceStrategy() {
  static const ServiceStrategyImpl kStrategy;
  return &kStrategy;
}

const Strategy* ServiceStatusStrategy() {
  static const StatusStrategy kStrategy(ServiceStrategy());
  return &kStrategy;
}

nlohmann::json KubernetesService(const std::string& /*api_server_ip*/,
                                 int port) {
  // The API server's own address lives in the Endpoints and EndpointSlice
  // of this service, not in the Service itself.
  return {
      {"apiVersion", "v1"},
      {"kind", "Service"},
      {"metadata",
       {{"name", "kubernetes"},
        {"namespace", "default"},
        {"labels", {{"component", "apiserver"}, {"provider", "kubernetes"}}}}},
      {"spec",
       {{"clusterIP", kKubernetesServiceIp},
        {"clusterIPs", {kKubernetesServiceIp}},
        {"internalTrafficPolicy", "Cluster"},
        {"ipFamilies", {"IPv4"}},
        {"ipFamilyPolicy", "SingleStack"},
        {"ports",
         {{{"name", "https"},
           {"port", 443},
           {"protocol", "TCP"},
           {"targetPort", port}}}},
        {"sessionAffinity", "None"},
        {"type", kClusterIP}}},
      {"status", {{"loadBalancer", json::object()}}},
  };
}

// ------------------------------------------------------------ allocators

ServiceIpAllocator::ServiceIpAllocator(const std::string& cidr, Rng* rng)
    : cidr_(cidr), rng_(rng) {
  size_t slash = cidr.find('/');
  std::optional<uint32_t> ip = ParseIPv4(cidr.substr(0, slash));
  int prefix =
      slash == std::string::npos ? 32 : std::stoi(cidr.substr(slash + 1));
  prefix = std::clamp(prefix, 8, 30);
  size_ = 1u << (32 - prefix);
  base_ = ip.value_or(0) & ~(size_ - 1);
  // Usable offsets are 1 .. size_-2. The lower band (1/16 of the range, 16
  // to 256 addresses) is handed out only on request.
  band_ = std::clamp<uint32_t>(size_ / 16, 16, 256);
  if (band_ + 2 >= size_ - 2) band_ = 1;  // tiny ranges: keep only .1
}

bool ServiceIpAllocator::InRange(const std::string& ip) const {
  std::optional<uint32_t> v = ParseIPv4(ip);
  if (!v || (*v & ~(size_ - 1)) != base_) return false;
  uint32_t off = *v - base_;
  return off >= 1 && off <= size_ - 2;
}

Result<std::string> ServiceIpAllocator::Allocate(const std::string& requested) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!requested.empty()) {
    std::string prefix = "failed to allocate IP " + requested + ": ";
    if (!InRange(requested)) {
      return Status(
          StatusCode::kInvalid,
          prefix + "the provided IP (" + requested +
              ") is not in the valid range. The range of valid IPs is " +
              IPv4CidrRange(base_, size_));
    }
    uint32_t off = *ParseIPv4(requested) - base_;
    if (!used_.insert(off).second) {
      return Status(StatusCode::kInvalid,
                    prefix + "provided IP is already allocated");
    }
    return requested;
  }
  // Random start in the upper band, then a linear scan over the upper band
  // and finally the lower one (never offset 1, default/kubernetes' address).
  const uint32_t lo = band_ + 1, hi = size_ - 2;
  if (hi >= lo) {
    uint32_t span = hi - lo + 1;
    uint32_t start = static_cast<uint32_t>(rng_->Uniform(span));
    for (uint32_t i = 0; i < span; ++i) {
      uint32_t off = lo + (start + i) % span;
      if (used_.insert(off).second) return FormatIPv4(base_ + off);
    }
  }
  for (uint32_t off = 2; off <= band_ && off <= hi; ++off) {
    if (used_.insert(off).second) return FormatIPv4(base_ + off);
  }
  return Status(
      StatusCode::kInternal,
      "Internal error occurred: failed to allocate a serviceIP: range is full");
}

void ServiceIpAllocator::Reserve(const std::string& ip) {
  std::lock_guard<std::mutex> lock(mu_);
  if (InRange(ip)) used_.insert(*ParseIPv4(ip) - base_);
}

void ServiceIpAllocator::Release(const std::string& ip) {
  std::lock_guard<std::mutex> lock(mu_);
  if (InRange(ip)) used_.erase(*ParseIPv4(ip) - base_);
}

bool ServiceIpAllocator::IsAllocated(const std::string& ip) const {
  std::lock_guard<std::mutex> lock(mu_);
  return InRange(ip) && used_.count(*ParseIPv4(ip) - base_) > 0;
}

size_t ServiceIpAllocator::Used() const {
  std::lock_guard<std::mutex> lock(mu_);
  return used_.size();
}

NodePortAllocator::NodePortAllocator(int min, int max, Rng* rng)
    : min_(min), max_(max), rng_(rng) {}

Result<int> NodePortAllocator::Allocate(int requested) {
  std::lock_guard<std::mutex> lock(mu_);
  if (requested != 0) {
    if (requested < min_ || requested > max_) {
      return Status(StatusCode::kInvalid,
                    "provided port is not in the valid range. The range of "
                    "valid ports is " +
                        std::to_string(min_) + "-" + std::to_string(max_));
    }
    if (!used_.insert(requested).second) {
      return Status(StatusCode::kInvalid, "provided port is already allocated");
    }
    return requested;
  }
  int span = max_ - min_ + 1;
  int start = static_cast<int>(rng_->Uniform(static_cast<uint64_t>(span)));
  for (int i = 0; i < span; ++i) {
    int port = min_ + (start + i) % span;
    if (used_.insert(port).second) return port;
  }
  return Status(
      StatusCode::kInternal,
      "Internal error occurred: failed to allocate a nodePort: range is full");
}

void NodePortAllocator::Reserve(int port) {
  std::lock_guard<std::mutex> lock(mu_);
  if (port >= min_ && port <= max_) used_.insert(port);
}

void NodePortAllocator::Release(int port) {
  std::lock_guard<std::mutex> lock(mu_);
  used_.erase(port);
}

bool NodePortAllocator::IsAllocated(int port) const {
  std::lock_guard<std::mutex> lock(mu_);
  return used_.count(port) > 0;
}

ServiceAllocator::ServiceAllocator(Rng* rng, const std::string& cidr,
                                   int node_port_min, int node_port_max)
    : ips_(cidr, rng), ports_(node_port_min, node_port_max, rng) {}

void ServiceAllocator::Seed(const std::vector<json>& services) {
  for (const json& svc : services) {
    for (const std::string& ip : HeldIps(svc)) ips_.Reserve(ip);
    for (int port : HeldPorts(svc)) ports_.Reserve(port);
  }
}

Status ServiceAllocator::AllocateForCreate(json& svc) {
  return AllocateForUpdate(svc, json::object());
}

Status ServiceAllocator::AllocateForUpdate(json& svc, const json& old) {
  std::vector<std::string> got_ips;
  std::vector<int> got_ports;
  auto undo = [&] {
    for (const std::string& ip : got_ips) ips_.Release(ip);
    for (int p : got_ports) ports_.Release(p);
  };
  auto fail = [&](const std::string& field, const json& value,
                  const Status& st) -> Status {
    undo();
    if (st.code() != StatusCode::kInvalid) return st;
    FieldErrors errs;
    errs.Invalid(field, value, st.message());
    return Invalid422(svc, errs);
  };
  json& spec = ObjectAt(svc, "spec");
  const std::string type = Type(svc);

  if (type != kExternalName && !IsHeadless(svc)) {
    std::vector<std::string> old_ips = HeldIps(old);
    std::string ip = Str(svc, {"spec", "clusterIP"});
    bool held = !ip.empty() &&
                std::find(old_ips.begin(), old_ips.end(), ip) != old_ips.end();
    if (!held) {
      Result<std::string> r = ips_.Allocate(ip);
      if (!r.ok()) return fail("spec.clusterIPs[0]", ip, r.status());
      got_ips.push_back(*r);
      spec["clusterIP"] = *r;
      spec["clusterIPs"] = json::array({*r});
    }
  }

  if (type == kNodePort || type == kLoadBalancer) {
    const bool automatic = WantsNodePorts(svc);
    std::set<int> old_ports = HeldPorts(old);
    std::set<int> mine;  // one node port may serve TCP and UDP of one port
    if (spec.contains("ports") && spec["ports"].is_array()) {
      for (size_t i = 0; i < spec["ports"].size(); ++i) {
        json& p = spec["ports"][i];
        if (!p.is_object()) continue;
        int np = static_cast<int>(Int(p, {"nodePort"}));
        if ((np == 0 && !automatic) ||
            (np != 0 && (old_ports.count(np) || mine.count(np)))) {
          continue;
        }
        Result<int> r = ports_.Allocate(np);
        if (!r.ok()) {
          return fail("spec.ports[" + std::to_string(i) + "].nodePort", np,
                      r.status());
        }
        got_ports.push_back(*r);
        mine.insert(*r);
        p["nodePort"] = *r;
      }
    }
    if (WantsHealthCheckPort(svc)) {
      int hc = static_cast<int>(Int(svc, {"spec", "healthCheckNodePort"}));
      if (hc == 0 || !old_ports.count(hc)) {
        Result<int> r = ports_.Allocate(hc);
        if (!r.ok()) return fail("spec.healthCheckNodePort", hc, r.status());
        got_ports.push_back(*r);
        spec["healthCheckNodePort"] = *r;
      }
    }
  }
  return Status::Ok();
}

void ServiceAllocator::ReleaseAfterUpdate(const json& svc, const json& old) {
  std::vector<std::string> now_ips = HeldIps(svc);
  for (const std::string& ip : HeldIps(old)) {
    if (std::find(now_ips.begin(), now_ips.end(), ip) == now_ips.end()) {
      ips_.Release(ip);
    }
  }
  std::set<int> now_ports = HeldPorts(svc);
  for (int p : HeldPorts(old)) {
    if (!now_ports.count(p)) ports_.Release(p);
  }
}

void ServiceAllocator::Release(const json& svc) {
  ReleaseAfterUpdate(json::object(), svc);
}

}  // namespace kmock::api::kinds
