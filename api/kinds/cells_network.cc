// Named Table cells of networking.k8s.io, discovery.k8s.io,
// rbac.authorization.k8s.io, scheduling.k8s.io and certificates.k8s.io, as
// kube-apiserver's printers compute them for its server-side Tables (which
// are always built wide, so nothing is clipped).
#include <algorithm>
#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "api/kinds/cells.h"
#include "api/kinds/util.h"
#include "common/clock.h"

namespace kmock::api::kinds {

namespace {

constexpr size_t kListMax = 3;

// The first three items, then " + N more..." for the rest; <unset> when
// there is none (discovery's listWithMoreString).
std::string FirstThree(const std::vector<std::string>& items) {
  if (items.empty()) return "<unset>";
  std::vector<std::string> head(
      items.begin(), items.begin() + std::min(items.size(), kListMax));
  std::string out = JoinStrings(head, ",");
  if (items.size() > kListMax) {
    out += " + " + std::to_string(items.size() - kListMax) + " more...";
  }
  return out;
}

// Hosts of the rules; a rule without host counts toward "N more" once three
// hosts are listed, as upstream's formatHosts does.
json IngressHosts(const json& obj, TimePoint /*now*/) {
  const json& rules = Array(obj, {"spec", "rules"});
  std::vector<std::string> list;
  bool more = false;
  for (const json& rule : rules) {
    if (list.size() == kListMax) more = true;
    std::string host = Str(rule, {"host"});
    if (!more && !host.empty()) list.push_back(host);
  }
  if (list.empty()) return "*";
  std::string out = JoinStrings(list, ",");
  if (more) {
    out += " + " + std::to_string(rules.size() - kListMax) + " more...";
  }
  return out;
}

json IngressAddress(const json& obj, TimePoint /*now*/) {
  std::vector<std::string> found = LoadBalancerAddresses(obj);
  std::set<std::string> addresses(found.begin(), found.end());
  return JoinStrings({addresses.begin(), addresses.end()}, ",");
}

json IngressPorts(const json& obj, TimePoint /*now*/) {
  return Array(obj, {"spec", "tls"}).empty() ? "80" : "80, 443";
}

json IngressClassParameters(const json& obj, TimePoint /*now*/) {
  const json* p = Find(obj, {"spec", "parameters"});
  if (p == nullptr) return "<none>";
  std::string out = Str(*p, {"kind"});
  const json* group = Find(*p, {"apiGroup"});
  if (group != nullptr && group->is_string()) {
    out += "." + group->get<std::string>();
  }
  return out + "/" + Str(*p, {"name"});
}

std::string Lower(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

json IpAddressParentRef(const json& obj, TimePoint /*now*/) {
  const json* ref = Find(obj, {"spec", "parentRef"});
  if (ref == nullptr) return "<none>";
  std::string out = Str(*ref, {"resource"});
  std::string group = Str(*ref, {"group"});
  if (!group.empty()) out += "." + group;
  out = Lower(out);
  std::string ns = Str(*ref, {"namespace"});
  if (!ns.empty()) out += "/" + ns;
  return out + "/" + Str(*ref, {"name"});
}

json EndpointSlicePorts(const json& obj, TimePoint /*now*/) {
  std::vector<std::string> ports;
  for (const json& port : Array(obj, {"ports"})) {
    const json* number = Find(port, {"port"});
    const json* name = Find(port, {"name"});
    if (number != nullptr && number->is_number_integer()) {
      ports.push_back(std::to_string(number->get<int64_t>()));
    } else if (name != nullptr && name->is_string()) {
      ports.push_back(name->get<std::string>());
    } else {
      ports.push_back("*");
    }
  }
  return FirstThree(ports);
}

json EndpointSliceEndpoints(const json& obj, TimePoint /*now*/) {
  std::vector<std::string> addresses;
  for (const json& endpoint : Array(obj, {"endpoints"})) {
    for (const json& a : Array(endpoint, {"addresses"})) {
      addresses.push_back(a.is_string() ? a.get<std::string>() : "");
    }
  }
  return FirstThree(addresses);
}

json RoleBindingRole(const json& obj, TimePoint /*now*/) {
  return Str(obj, {"roleRef", "kind"}) + "/" + Str(obj, {"roleRef", "name"});
}

// The subjects of one kind, joined with ", "; service accounts print as
// namespace/name.
std::string SubjectsOfKind(const json& obj, const std::string& kind) {
  std::vector<std::string> out;
  for (const json& s : Array(obj, {"subjects"})) {
    if (Str(s, {"kind"}) != kind) continue;
    std::string name = Str(s, {"name"});
    out.push_back(kind == "ServiceAccount" ? Str(s, {"namespace"}) + "/" + name
                                           : name);
  }
  return JoinStrings(out, ", ");
}

json RoleBindingUsers(const json& obj, TimePoint /*now*/) {
  return SubjectsOfKind(obj, "User");
}

json RoleBindingGroups(const json& obj, TimePoint /*now*/) {
  return SubjectsOfKind(obj, "Group");
}

json RoleBindingServiceAccounts(const json& obj, TimePoint /*now*/) {
  return SubjectsOfKind(obj, "ServiceAccount");
}

json PriorityClassGlobalDefault(const json& obj, TimePoint /*now*/) {
  return Bool(obj, {"globalDefault"});
}

json CsrRequestedDuration(const json& obj, TimePoint /*now*/) {
  const json* secs = Find(obj, {"spec", "expirationSeconds"});
  if (secs == nullptr || !secs->is_number_integer()) return "<none>";
  return HumanDuration(std::chrono::seconds(secs->get<int64_t>()));
}

json CsrCondition(const json& obj, TimePoint /*now*/) {
  bool approved = false, denied = false, failed = false;
  for (const json& c : Array(obj, {"status", "conditions"})) {
    std::string type = Str(c, {"type"});
    approved = approved || type == "Approved";
    denied = denied || type == "Denied";
    failed = failed || type == "Failed";
  }
  std::string out = denied ? "Denied" : approved ? "Approved" : "Pending";
  if (failed) out += ",Failed";
  if (!Str(obj, {"status", "certificate"}).empty()) out += ",Issued";
  return out;
}

}  // namespace

void AddNetworkCells(CellTable* table) {
  table->insert({
      {"ingressHosts", IngressHosts},
      {"ingressAddress", IngressAddress},
      {"ingressPorts", IngressPorts},
      {"ingressClassParameters", IngressClassParameters},
      {"ipAddressParentRef", IpAddressParentRef},
      {"endpointSlicePorts", EndpointSlicePorts},
      {"endpointSliceEndpoints", EndpointSliceEndpoints},
      {"roleBindingRole", RoleBindingRole},
      {"roleBindingUsers", RoleBindingUsers},
      {"roleBindingGroups", RoleBindingGroups},
      {"roleBindingServiceAccounts", RoleBindingServiceAccounts},
      {"priorityClassGlobalDefault", PriorityClassGlobalDefault},
      {"csrRequestedDuration", CsrRequestedDuration},
      {"csrCondition", CsrCondition},
  });
}

}  // namespace kmock::api::kinds
