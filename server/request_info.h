// URL → RequestInfo: what a request addresses, parsed once per request (in
// the manner of k8s.io/apiserver's RequestInfoFactory).
//
// Resource request path shapes ({prefix} is "api/{version}" for the core
// group or "apis/{group}/{version}"):
//   /{prefix}/{resource}                                    list, create,
//   deletecollection, watch
//   /{prefix}/{resource}/{name}                             get, update, patch,
//   delete (cluster scope)
//   /{prefix}/{resource}/{name}/{subresource}               cluster-scoped
//   subresource
//   /{prefix}/namespaces/{namespace}/{resource}             namespaced
//   collection
//   /{prefix}/namespaces/{namespace}/{resource}/{name}      namespaced object
//   /{prefix}/namespaces/{namespace}/{resource}/{name}/{subresource}
//   /{prefix}/namespaces/{name}                             the Namespace
//   object itself
//   /{prefix}/namespaces/{name}/status | /finalize          Namespace
//   subresources
//   /{prefix}/watch/...                                     legacy watch
//   prefix: any
//                                                           collection or
//                                                           object path above
// Everything else (/, /api, /apis, /api/v1, /apis/{group}, /apis/{g}/{v},
// /version, /healthz, /openapi/...) is a non-resource request.
//
// Verbs: GET → get (with a name) or list (without; watch when the query has
// watch=true or watch=1, or under /watch/); POST → create; PUT → update;
// PATCH → patch; DELETE → delete (with a name) or deletecollection.
// Non-resource requests carry the lower-case method as verb.
//
// Thread safety: pure function; RequestInfo is a plain value.
#ifndef KMOCK_SERVER_REQUEST_INFO_H_
#define KMOCK_SERVER_REQUEST_INFO_H_

#include <string>
#include <string_view>
#include <vector>

namespace kmock::server {

struct RequestInfo {
  bool is_resource_request = false;
  std::string path;
  std::string verb;
  std::string api_prefix;  // "api" or "apis" ("" for other paths)
  std::string api_group;   // "" for core
  std::string api_version;
  std::string ns;  // the namespace, "" for cluster scope or all namespaces
  std::string resource;
  std::string subresource;
  std::string name;
  // Path segments after the group/version (and /watch, /namespaces/{ns}).
  std::vector<std::string> parts;
  // True when the object was addressed under the legacy /watch/ prefix.
  bool legacy_watch = false;
};

// `method` is the HTTP method (upper case); `path` is URL-decoded without the
// query; `watch_param` is whether the query asks for a watch.
RequestInfo ParseRequestInfo(std::string_view method, std::string_view path,
                             bool watch_param);

// Whether a boolean query parameter value means true: any value but "0" and
// "false" in any case ("True" from the Python client counts); empty (an
// absent parameter) is false.
bool IsTrueParam(std::string_view value);

}  // namespace kmock::server

#endif  // KMOCK_SERVER_REQUEST_INFO_H_
