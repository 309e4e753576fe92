// kube-proxy's rules for one node, as kube-proxy in iptables mode writes
// them from the Services and EndpointSlices and `iptables-save` prints them:
// a filter table (Services without endpoints are rejected) and a nat table
// (each Service port's cluster IP, and node port, jumps to its KUBE-SVC
// chain, which picks one ready endpoint at random through KUBE-SEP chains
// that DNAT to the pod). Chain names are kube-proxy's: the prefix and the
// first 16 characters of the base32 SHA-256 of the service port name and
// protocol (and endpoint), so `default/kubernetes:https` is
// KUBE-SVC-NPX46M4PTMTKRN6Y as on every cluster. A Service with
// externalTrafficPolicy Local reaches its node's own endpoints through a
// KUBE-SVL chain. Served at /api/v1/nodes/<node>:10249/proxy/iptables
// (node_proxy.h) for learners to read; nothing forwards packets here.
//
// Thread safety: pure functions.
#ifndef KMOCK_SERVER_NODE_PROXY_IPTABLES_RULES_H_
#define KMOCK_SERVER_NODE_PROXY_IPTABLES_RULES_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kmock::server {

struct ProxyRulesInput {
  std::string node;          // the node whose rules these are
  std::string cluster_cidr;  // the pods' range ("10.244.0.0/16")
  std::vector<nlohmann::json> services;
  std::vector<nlohmann::json> endpoint_slices;
  std::string generated_at;  // the time in the header, as date(1) prints it
};

// `prefix` ("KUBE-SVC-") followed by kube-proxy's hash of `text`.
std::string KubeProxyChainName(const std::string& prefix,
                               const std::string& text);

// How iptables-save prints a statistic match's probability of 1/n.
std::string IptablesProbability(int n);

std::string IptablesSave(const ProxyRulesInput& in);

}  // namespace kmock::server

#endif  // KMOCK_SERVER_NODE_PROXY_IPTABLES_RULES_H_
