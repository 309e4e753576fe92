#include "server/request_info.h"

#include <algorithm>
#include <cctype>

namespace kmock::server {
namespace {

std::vector<std::string> SplitPath(std::string_view path) {
  std::vector<std::string> parts;
  size_t i = 0;
  while (i < path.size()) {
    while (i < path.size() && path[i] == '/') ++i;
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    if (j > i) parts.emplace_back(path.substr(i, j - i));
    i = j;
  }
  return parts;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return out;
}

// Namespace subresources: /namespaces/{name}/status addresses the Namespace,
// not a resource called "status" inside it.
bool IsNamespaceSubresource(std::string_view s) {
  return s == "status" || s == "finalize";
}

}  // namespace

bool IsTrueParam(std::string_view value) {
  // As kube-apiserver reads a boolean query parameter: every value but "0"
  // and "false" (in any case) is true. Python's client sends "True".
  return !value.empty() && value != "0" && Lower(value) != "false";
}

RequestInfo ParseRequestInfo(std::string_view method, std::string_view path,
                             bool watch_param) {
  RequestInfo info;
  info.path = std::string(path);
  info.verb = Lower(method);
  std::vector<std::string> parts = SplitPath(path);
  if (parts.empty() || (parts[0] != "api" && parts[0] != "apis")) return info;

  info.api_prefix = parts[0];
  size_t pos = 1;
  if (info.api_prefix == "apis") {
    if (parts.size() < 3) return info;  // /apis, /apis/{group}
    info.api_group = parts[1];
    info.api_version = parts[2];
    pos = 3;
  } else {
    if (parts.size() < 2) return info;  // /api
    info.api_version = parts[1];
    pos = 2;
  }
  parts.erase(parts.begin(), parts.begin() + pos);
  if (parts.empty()) return info;  // /api/v1, /apis/{g}/{v}

  info.is_resource_request = true;
  if (parts[0] == "watch") {
    info.legacy_watch = true;
    parts.erase(parts.begin());
    if (parts.empty()) {
      info.is_resource_request = false;
      return info;
    }
  }

  if (parts[0] == "namespaces" && parts.size() > 1) {
    info.ns = parts[1];
    // /namespaces/{ns}/{resource}...: the rest addresses something inside
    // the namespace. Otherwise the path addresses the Namespace itself.
    if (parts.size() > 2 && !IsNamespaceSubresource(parts[2])) {
      parts.erase(parts.begin(), parts.begin() + 2);
    }
  }

  if (parts.size() >= 1) info.resource = parts[0];
  if (parts.size() >= 2) info.name = parts[1];
  if (parts.size() >= 3) info.subresource = parts[2];
  info.parts = parts;

  if (info.legacy_watch) {
    info.verb = "watch";
  } else if (method == "GET" || method == "HEAD") {
    info.verb = info.name.empty() ? (watch_param ? "watch" : "list") : "get";
  } else if (method == "POST") {
    info.verb = "create";
  } else if (method == "PUT") {
    info.verb = "update";
  } else if (method == "PATCH") {
    info.verb = "patch";
  } else if (method == "DELETE") {
    info.verb = info.name.empty() ? "deletecollection" : "delete";
  }
  return info;
}

}  // namespace kmock::server
