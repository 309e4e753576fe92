#include "server/discovery.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace kmock::server {
namespace {

using nlohmann::json;

// (valid, major, stage: 2 GA / 1 beta / 0 alpha, minor) of "v1beta2".
std::tuple<bool, int, int, int> ParseVersion(std::string_view v) {
  auto digits = [&](size_t& i) {
    int n = 0;
    size_t start = i;
    while (i < v.size() && v[i] >= '0' && v[i] <= '9')
      n = n * 10 + (v[i++] - '0');
    return i > start ? n : -1;
  };
  if (v.empty() || v[0] != 'v') return {false, 0, 0, 0};
  size_t i = 1;
  int major = digits(i);
  if (major < 0) return {false, 0, 0, 0};
  if (i == v.size()) return {true, major, 2, 0};
  std::string_view rest = v.substr(i);
  int stage;
  if (rest.substr(0, 4) == "beta") {
    stage = 1;
    i += 4;
  } else if (rest.substr(0, 5) == "alpha") {
    stage = 0;
    i += 5;
  } else {
    return {false, 0, 0, 0};
  }
  int minor = digits(i);
  if (minor < 0 || i != v.size()) return {false, 0, 0, 0};
  return {true, major, stage, minor};
}

std::string Scope(const api::ResourceInfo& r) {
  return r.namespaced ? "Namespaced" : "Cluster";
}

json Gvk(std::string_view group, std::string_view version,
         std::string_view kind) {
  return {{"group", group}, {"version", version}, {"kind", kind}};
}

// The kind a subresource speaks. A subresource without a version speaks in
// its parent's group/version (with its own kind if it names one).
json SubresourceKind(const api::ResourceInfo& r, const api::Subresource& s) {
  const std::string& kind = s.kind.empty() ? r.kind : s.kind;
  if (s.version.empty()) return Gvk(r.group, r.version, kind);
  return Gvk(s.group, s.version, kind);
}

std::vector<const api::ResourceInfo*> ResourcesOf(const api::Catalog& catalog,
                                                  std::string_view group,
                                                  std::string_view version) {
  std::vector<const api::ResourceInfo*> out;
  for (const api::ResourceInfo* r : catalog.resources()) {
    if (r->group == group && r->version == version) out.push_back(r);
  }
  return out;
}

std::string GroupVersion(std::string_view group, std::string_view version) {
  return group.empty() ? std::string(version)
                       : std::string(group) + "/" + std::string(version);
}

json GroupJson(const api::Catalog& catalog, const std::string& group) {
  json versions = json::array();
  for (const std::string& v : GroupVersionsOf(catalog, group)) {
    versions.push_back(
        {{"groupVersion", GroupVersion(group, v)}, {"version", v}});
  }
  return {
      {"name", group},
      {"versions", versions},
      {"preferredVersion", versions.empty() ? json::object() : versions[0]}};
}

json ResourceDiscovery(const api::ResourceInfo& r) {
  json out = {{"resource", r.plural},
              {"responseKind", Gvk(r.group, r.version, r.kind)},
              {"scope", Scope(r)},
              {"singularResource", r.singular},
              {"verbs", r.verbs}};
  if (!r.short_names.empty()) out["shortNames"] = r.short_names;
  if (!r.categories.empty()) out["categories"] = r.categories;
  if (!r.subresources.empty()) {
    json subs = json::array();
    for (const api::Subresource& s : r.subresources) {
      subs.push_back({{"subresource", s.name},
                      {"responseKind", SubresourceKind(r, s)},
                      {"verbs", s.verbs}});
    }
    out["subresources"] = std::move(subs);
  }
  return out;
}

}  // namespace

bool VersionPrecedes(std::string_view a, std::string_view b) {
  auto [va, ma, sa, na] = ParseVersion(a);
  auto [vb, mb, sb, nb] = ParseVersion(b);
  if (va != vb) return va;  // Kubernetes-style versions first
  if (!va) return a < b;
  if (sa != sb) return sa > sb;  // GA, then beta, then alpha
  if (ma != mb) return ma > mb;
  return na > nb;
}

std::vector<std::string> GroupVersionsOf(const api::Catalog& catalog,
                                         std::string_view group) {
  std::set<std::string> versions;
  for (const api::ResourceInfo* r : catalog.resources()) {
    if (r->group == group) versions.insert(r->version);
  }
  std::vector<std::string> out(versions.begin(), versions.end());
  std::sort(out.begin(), out.end(),
            [](const std::string& a, const std::string& b) {
              return VersionPrecedes(a, b);
            });
  return out;
}

std::vector<std::string> GroupsOf(const api::Catalog& catalog) {
  std::set<std::string> groups;
  for (const api::ResourceInfo* r : catalog.resources())
    groups.insert(r->group);
  return std::vector<std::string>(groups.begin(),
                                  groups.end());  // "" sorts first
}

json ApiVersions(const api::Catalog& catalog,
                 const std::string& server_address) {
  return {{"kind", "APIVersions"},
          {"versions", GroupVersionsOf(catalog, "")},
          {"serverAddressByClientCIDRs",
           json::array({{{"clientCIDR", "0.0.0.0/0"},
                         {"serverAddress", server_address}}})}};
}

json ApiGroupList(const api::Catalog& catalog) {
  json groups = json::array();
  for (const std::string& g : GroupsOf(catalog)) {
    if (!g.empty()) groups.push_back(GroupJson(catalog, g));
  }
  return {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}};
}

json ApiGroup(const api::Catalog& catalog, std::string_view group) {
  if (group.empty() || GroupVersionsOf(catalog, group).empty()) return nullptr;
  json out = GroupJson(catalog, std::string(group));
  out["kind"] = "APIGroup";
  out["apiVersion"] = "v1";
  return out;
}

json ApiResourceList(const api::Catalog& catalog, std::string_view group,
                     std::string_view version) {
  std::vector<const api::ResourceInfo*> resources =
      ResourcesOf(catalog, group, version);
  if (resources.empty()) return nullptr;
  json list = json::array();
  for (const api::ResourceInfo* r : resources) {
    json entry = {{"name", r->plural},
                  {"singularName", r->singular},
                  {"namespaced", r->namespaced},
                  {"kind", r->kind},
                  {"verbs", r->verbs}};
    if (!r->short_names.empty()) entry["shortNames"] = r->short_names;
    if (!r->categories.empty()) entry["categories"] = r->categories;
    list.push_back(std::move(entry));
    for (const api::Subresource& s : r->subresources) {
      json sub = {{"name", r->plural + "/" + s.name},
                  {"singularName", ""},
                  {"namespaced", r->namespaced},
                  {"kind", s.kind.empty() ? r->kind : s.kind},
                  {"verbs", s.verbs}};
      if (!s.version.empty() &&
          (s.group != r->group || s.version != r->version)) {
        sub["group"] = s.group;
        sub["version"] = s.version;
      }
      list.push_back(std::move(sub));
    }
  }
  return {{"kind", "APIResourceList"},
          {"apiVersion", "v1"},
          {"groupVersion", GroupVersion(group, version)},
          {"resources", list}};
}

json AggregatedDiscovery(const api::Catalog& catalog, bool core,
                         std::string_view version) {
  json items = json::array();
  for (const std::string& g : GroupsOf(catalog)) {
    if (g.empty() != core) continue;
    json versions = json::array();
    for (const std::string& v : GroupVersionsOf(catalog, g)) {
      json resources = json::array();
      for (const api::ResourceInfo* r : ResourcesOf(catalog, g, v)) {
        resources.push_back(ResourceDiscovery(*r));
      }
      versions.push_back(
          {{"version", v}, {"resources", resources}, {"freshness", "Current"}});
    }
    items.push_back({{"metadata", {{"name", g}}}, {"versions", versions}});
  }
  return {{"kind", "APIGroupDiscoveryList"},
          {"apiVersion", "apidiscovery.k8s.io/" + std::string(version)},
          {"metadata", json::object()},
          {"items", items}};
}

std::string AggregatedContentType(std::string_view version) {
  return "application/json;g=apidiscovery.k8s.io;v=" + std::string(version) +
         ";as=APIGroupDiscoveryList";
}

}  // namespace kmock::server
