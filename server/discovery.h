// Discovery documents, generated from the catalog (api/resource.h):
//   legacy      GET /api (APIVersions), /apis (APIGroupList),
//               /apis/<group> (APIGroup), /api/v1 and /apis/<g>/<v>
//               (APIResourceList, subresources listed as "pods/log")
//   aggregated  GET /api and /apis with an APIGroupDiscoveryList Accept, in
//               apidiscovery.k8s.io v2 or v2beta1 (/api: the core group only;
//               /apis: every other group).
// Versions within a group are ordered as Kubernetes prefers them (GA, then
// beta, then alpha; higher numbers first); the first is the preferred one.
//
// Thread safety: pure functions of an immutable catalog; safe from any thread.
#ifndef KMOCK_SERVER_DISCOVERY_H_
#define KMOCK_SERVER_DISCOVERY_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "api/resource.h"

namespace kmock::server {

// Kubernetes version priority: true if a sorts before b ("v1" < "v1beta2"
// < "v1beta1" < "v1alpha1"; "v2" before "v1"; non-Kubernetes names last,
// alphabetically).
bool VersionPrecedes(std::string_view a, std::string_view b);

// The versions served for `group`, in priority order (empty if none).
std::vector<std::string> GroupVersionsOf(const api::Catalog& catalog,
                                         std::string_view group);
// Every served group: "" (if any core resource) first, then by name.
std::vector<std::string> GroupsOf(const api::Catalog& catalog);

// /api. `server_address` is "host:port" as the client dialled it.
nlohmann::json ApiVersions(const api::Catalog& catalog,
                           const std::string& server_address);
// /apis.
nlohmann::json ApiGroupList(const api::Catalog& catalog);
// /apis/<group>; null if the group is not served.
nlohmann::json ApiGroup(const api::Catalog& catalog, std::string_view group);
// /api/v1 or /apis/<g>/<v>; null if the group/version is not served.
nlohmann::json ApiResourceList(const api::Catalog& catalog,
                               std::string_view group,
                               std::string_view version);
// The aggregated document for /api (core = true) or /apis, in
// apidiscovery.k8s.io/`version` ("v2" or "v2beta1").
nlohmann::json AggregatedDiscovery(const api::Catalog& catalog, bool core,
                                   std::string_view version);
// "application/json;g=apidiscovery.k8s.io;v=<version>;as=APIGroupDiscoveryList".
std::string AggregatedContentType(std::string_view version);

}  // namespace kmock::server

#endif  // KMOCK_SERVER_DISCOVERY_H_
