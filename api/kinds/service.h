// core/v1 Service: Table columns and cells (as kube-apiserver's service
// printer), field selectors, defaulting, validation, the main and status
// strategies, the default/kubernetes Service of a cluster, and the cluster
// IP and node port allocators the registry calls when services are created,
// updated and deleted.
//
// Thread safety: the free functions and strategies are pure and stateless,
// safe from any thread. ServiceIpAllocator, NodePortAllocator and
// ServiceAllocator lock internally; every method is safe from many threads.
#ifndef KMOCK_API_KINDS_SERVICE_H_
#define KMOCK_API_KINDS_SERVICE_H_

#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "api/field_errors.h"
#include "api/resource.h"
#include "common/rng.h"
#include "common/status.h"

namespace kmock::api::kinds {

// The service CIDR and the address of the default/kubernetes Service.
inline constexpr char kServiceCidr[] = "10.96.0.0/12";
inline constexpr char kKubernetesServiceIp[] = "10.96.0.1";
// The node port range.
inline constexpr int kNodePortMin = 30000;
inline constexpr int kNodePortMax = 32767;

// The computed cells, one per column (named cells "service...").
json ServiceClusterIpCell(const json& svc, TimePoint now);
json ServiceExternalIpCell(const json& svc, TimePoint now);
json ServicePortsCell(const json& svc, TimePoint now);
json ServiceSelectorCell(const json& svc, TimePoint now);
// spec.clusterIP and spec.type.
std::vector<SelectableField> ServiceSelectableFields();

// Scheme defaults (idempotent): type, sessionAffinity (and its ClientIP
// timeout), port protocol and targetPort, internalTrafficPolicy, and for
// NodePort/LoadBalancer externalTrafficPolicy, for LoadBalancer
// allocateLoadBalancerNodePorts; for all but ExternalName, clusterIPs from
// clusterIP (or the reverse), ipFamilies [IPv4] and ipFamilyPolicy
// SingleStack.
void DefaultService(json& svc);

void ValidateService(const json& svc, FieldErrors* errs);
void ValidateServiceUpdate(const json& svc, const json& old, FieldErrors* errs);

const Strategy* ServiceStrategy();
const Strategy* ServiceStatusStrategy();

// The default/kubernetes Service a cluster has: labels component=apiserver
// and provider=kubernetes, cluster IP 10.96.0.1, port "https" 443 -> `port`
// TCP, no selector (its endpoints point at `api_server_ip`, which the
// Endpoints object carries, not the Service). Without metadata the server
// sets (uid, resourceVersion, creationTimestamp).
nlohmann::json KubernetesService(const std::string& api_server_ip, int port);

// Cluster IPs of one IPv4 CIDR. The network and broadcast addresses are
// never handed out. Dynamic picks come from above the first band of the
// range (the band is kept for static requests), at random.
class ServiceIpAllocator {
 public:
  // REQUIRES: cidr is an IPv4 CIDR with a prefix of /8 to /30.
  ServiceIpAllocator(const std::string& cidr, Rng* rng);

  // `requested` "" picks a free address; otherwise that address, if it is in
  // range and free. Errors are kInvalid with the message being the detail
  // kube-apiserver puts after the value, e.g. "failed to allocate IP
  // 10.96.0.10: provided IP is already allocated"; kInternal when full.
  Result<std::string> Allocate(const std::string& requested);
  // Marks an address taken (start-up seeding); ignored when out of range.
  void Reserve(const std::string& ip);
  void Release(const std::string& ip);
  bool IsAllocated(const std::string& ip) const;
  bool InRange(const std::string& ip) const;
  size_t Used() const;
  const std::string& cidr() const { return cidr_; }

 private:
  std::string cidr_;
  uint32_t base_ = 0;  // network address
  uint32_t size_ = 0;  // addresses in the CIDR
  uint32_t band_ = 0;  // offsets [1, band_] are kept for static requests
  Rng* rng_;
  mutable std::mutex mu_;
  std::set<uint32_t> used_;  // offsets from base_
};

// Node ports in [min, max], in the same style as ServiceIpAllocator.
class NodePortAllocator {
 public:
  NodePortAllocator(int min, int max, Rng* rng);

  // `requested` 0 picks a free port. Errors: kInvalid with the detail
  // "provided port is already allocated" or "provided port is not in the
  // valid range. The range of valid ports is 30000-32767"; kInternal when
  // full.
  Result<int> Allocate(int requested);
  void Reserve(int port);
  void Release(int port);
  bool IsAllocated(int port) const;

 private:
  int min_, max_;
  Rng* rng_;
  mutable std::mutex mu_;
  std::set<int> used_;
};

// Everything a Service takes from the two pools, for the registry: call
// Seed with every stored service at start-up, AllocateForCreate after
// validation and before the store write (then Release the new object if the
// write fails), AllocateForUpdate likewise on update (then ReleaseAfterUpdate
// once the write succeeded, or Release(new) minus old on failure: see
// ReleaseAfterUpdate), and Release after a delete took effect.
class ServiceAllocator : public ResourceAllocator {
 public:
  explicit ServiceAllocator(Rng* rng, const std::string& cidr = kServiceCidr,
                            int node_port_min = kNodePortMin,
                            int node_port_max = kNodePortMax);

  // Reserves the cluster IPs, node ports and health check ports of existing
  // services (10.96.0.1 is always reserved for default/kubernetes).
  void Seed(const std::vector<json>& services) override;
  // Fills spec.clusterIP/clusterIPs (unless headless or ExternalName) and
  // the node ports of NodePort/LoadBalancer services. On error nothing stays
  // allocated and the Status is the full 422 (or 500), e.g. `Service "web"
  // is invalid: spec.clusterIPs[0]: Invalid value: "10.96.0.10": failed to
  // allocate IP 10.96.0.10: provided IP is already allocated`.
  Status AllocateForCreate(json& svc) override;
  // For an update that passed validation: allocates what `svc` needs and
  // `old` did not hold (a cluster IP when leaving ExternalName, node ports
  // when becoming NodePort/LoadBalancer or for new ports).
  Status AllocateForUpdate(json& svc, const json& old) override;
  // After a committed update: frees what `old` held and `svc` no longer
  // does. After a failed update call it with the arguments swapped.
  void ReleaseAfterUpdate(const json& svc, const json& old) override;
  // Frees everything `svc` holds.
  void Release(const json& svc) override;

  ServiceIpAllocator& ips() { return ips_; }
  NodePortAllocator& node_ports() { return ports_; }

 private:
  ServiceIpAllocator ips_;
  NodePortAllocator ports_;
};

}  // namespace kmock::api::kinds

#endif  // KMOCK_API_KINDS_SERVICE_H_
