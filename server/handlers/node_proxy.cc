// GET nodes/<name>[:<port>]/proxy/<path>: what the API server reaches on a
// node through its proxy. The node runs no real programs, so the answers
// come from what the fake node's programs would say:
//   - the kubelet (no port, or 10250): /healthz is "ok";
//   - kube-proxy's metrics port 10249: /proxyMode is "iptables", and
//     /iptables prints the node's rules as iptables-save would
//     (node_proxy/iptables_rules.h; not a path of a real kube-proxy: this
//     is where a learner reads them);
//   - kube-proxy's health port 10256: /healthz and /livez as kube-proxy
//     answers them.
// Other paths get the backend's "404 page not found"; other ports the 503
// kube-apiserver gives when nothing listens. Other verbs are 405.
#include <chrono>
#include <ctime>

#include "common/json_view.h"
#include "server/errors.h"
#include "server/handlers/context.h"
#include "server/node_proxy/iptables_rules.h"
#include "server/response.h"

namespace kmock::server {
namespace {

using nlohmann::json;

constexpr char kText[] = "text/plain; charset=utf-8";

// The pods' range, from a node's /24: 10.244.1.0/24 -> 10.244.0.0/16.
std::string ClusterCidr(const json& node) {
  const std::string cidr = StringAt(ObjectAt(node, "spec"), "podCIDR");
  const size_t first = cidr.find('.');
  const size_t second =
      first == std::string::npos ? first : cidr.find('.', first + 1);
  if (second == std::string::npos) return "";
  return cidr.substr(0, second) + ".0.0/16";
}

std::string InternalIp(const json& node) {
  for (const json& a : ArrayAt(ObjectAt(node, "status"), "addresses")) {
    if (a.value("type", "") == "InternalIP") return a.value("address", "");
  }
  return "";
}

std::string DateText(TimePoint t) {
  const std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a %b %e %H:%M:%S %Y", &tm);
  return buf;
}

std::string Rfc3339Nano(TimePoint t) {
  const std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  const auto nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch())
          .count() %
      1000000000;
  char frac[16];
  std::snprintf(frac, sizeof frac, ".%09lld", static_cast<long long>(nanos));
  return std::string(buf) + frac + "Z";
}

Result<std::vector<json>> Items(registry::Registry* registry, const char* group,
                                const char* plural) {
  std::vector<json> out;
  const api::ResourceInfo* res = registry->catalog().Find(group, "v1", plural);
  if (res == nullptr) return out;
  KMOCK_ASSIGN_OR_RETURN(json list, registry->List(*res, "", {}));
  for (json& item : list["items"]) out.push_back(std::move(item));
  return out;
}

Result<std::string> ProxyRules(const RequestContext& ctx, const json& node) {
  ProxyRulesInput in;
  in.node = StringAt(ObjectAt(node, "metadata"), "name");
  in.cluster_cidr = ClusterCidr(node);
  in.generated_at = DateText(ctx.clock->Now());
  KMOCK_ASSIGN_OR_RETURN(in.services, Items(ctx.registry, "", "services"));
  KMOCK_ASSIGN_OR_RETURN(
      in.endpoint_slices,
      Items(ctx.registry, "discovery.k8s.io", "endpointslices"));
  return IptablesSave(in);
}

}  // namespace

void HandleNodeProxy(const RequestContext& ctx, httplib::Response& res) {
  // <name>, <name>:<port> or <scheme>:<name>:<port>.
  std::string name = ctx.info->name, port;
  if (size_t colon = name.rfind(':'); colon != std::string::npos) {
    port = name.substr(colon + 1);
    name = name.substr(0, colon);
    if (size_t scheme = name.find(':'); scheme != std::string::npos)
      name = name.substr(scheme + 1);
  }
  Result<json> node = ctx.registry->Get(*ctx.resource, "", name);
  if (!node.ok()) return WriteError(res, node.status());
  if (ctx.info->verb != "get") return WriteError(res, MethodNotAllowedError());
  std::string path;
  const std::vector<std::string>& parts = ctx.info->parts;
  for (size_t i = 0, proxy = parts.size(); i < parts.size(); ++i) {
    if (proxy == parts.size() && parts[i] == "proxy" && i >= 2) {
      proxy = i;
    } else if (i > proxy) {
      path += "/" + parts[i];
    }
  }
  if (path.empty()) path = "/";
  auto not_found = [&] {
    res.status = 404;
    res.set_content("404 page not found\n", kText);
  };
  if (port.empty() || port == "10250") {
    if (path != "/healthz") return not_found();
    return res.set_content("ok", kText);
  }
  if (port == "10249") {
    if (path == "/proxyMode") return res.set_content("iptables", kText);
    if (path == "/healthz") return res.set_content("ok", kText);
    if (path != "/iptables") return not_found();
    Result<std::string> rules = ProxyRules(ctx, *node);
    if (!rules.ok()) return WriteError(res, rules.status());
    return res.set_content(*rules, kText);
  }
  if (port == "10256") {
    if (path != "/healthz" && path != "/livez") return not_found();
    const std::string now = Rfc3339Nano(ctx.clock->Now());
    json health = {
        {"lastUpdated", now}, {"currentTime", now}, {"nodeEligible", true}};
    return res.set_content(health.dump(), "application/json");
  }
  WriteError(res, Status(StatusCode::kServiceUnavailable,
                         "error trying to reach service: dial tcp " +
                             InternalIp(*node) + ":" + port +
                             ": connect: connection refused"));
}

}  // namespace kmock::server
