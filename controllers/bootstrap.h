// Creates what a fresh cluster has before anyone uses it: the namespaces
// default, kube-system, kube-public and kube-node-lease; the system
// PriorityClasses (system-cluster-critical, system-node-critical); the
// Nodes of the cluster spec (with their status); and the system pods
// (system_pods.h).
// Idempotent: against an existing store it creates only what is missing,
// so a restart keeps names, UIDs and addresses.
//
// Thread safety: call from one thread; the registry is thread-safe.
#ifndef KMOCK_CONTROLLERS_BOOTSTRAP_H_
#define KMOCK_CONTROLLERS_BOOTSTRAP_H_

#include <set>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/rng.h"
#include "controllers/cluster.h"
#include "controllers/resources_lookup.h"
#include "registry/registry.h"

namespace kmock::controllers {

struct BootstrapResult {
  // "kube-system/<name>" of every system pod, whether created now or before.
  std::vector<std::string> system_pods;
  // Those of them that are DaemonSets' pods (kube-proxy, the cloud
  // controller manager).
  std::set<std::string> daemon_pods;
  std::vector<std::string> created;  // what this run created ("nodes/x", ...)
};

Result<BootstrapResult> Bootstrap(registry::Registry* registry,
                                  const Clock* clock, Rng* rng,
                                  const CoreResources& res,
                                  const ClusterSpec& cluster,
                                  const std::string& version);

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_BOOTSTRAP_H_
