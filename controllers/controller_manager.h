// Owns every in-process controller and starts and stops them together:
// bootstrap of the cluster (bootstrap.h), the core (the shared pod, node,
// claim, ReplicaSet and Deployment informers, the scheduler, the fake
// kubelets, which also keep the system pods as kubelets keep their static
// pods' mirror pods, and the node heartbeats), then every control loop of
// ControllerTable() (controller_table.h) that applies.
// main builds one after the registry and waits for WaitForClusterReady
// before it announces the server as ready.
//
// Thread safety: Start/Stop from one thread; ClusterReady, kubelets() and
// the accessors from any thread once started.
#ifndef KMOCK_CONTROLLERS_CONTROLLER_MANAGER_H_
#define KMOCK_CONTROLLERS_CONTROLLER_MANAGER_H_

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/rng.h"
#include "controllers/bootstrap.h"
#include "controllers/cluster.h"
#include "controllers/controller_table.h"
#include "controllers/endpoints/endpoints_controller.h"
#include "controllers/event_sink.h"
#include "controllers/garbage_collector.h"
#include "controllers/informer.h"
#include "controllers/kubelet.h"
#include "controllers/kubernetes_service.h"
#include "controllers/metrics_source.h"
#include "controllers/namespace_controller.h"
#include "controllers/node_heartbeat.h"
#include "controllers/resources_lookup.h"
#include "controllers/scheduler.h"
#include "registry/registry.h"

namespace kmock::controllers {

struct ControllerManagerOptions {
  // The served Kubernetes version, "v1.33.1" (a missing "v" is added).
  std::string version = "v1.33.1";
  // Kubelet and event-writer threads: enough for commits to be shared, few
  // enough not to thrash two cores (8 and 4 cost 11% more CPU at 10,000
  // pods, 2 and 1 shared too few commits).
  int kubelet_workers = 4;
  // Threads writing events (event_sink.h); 0: each component writes its
  // events itself before it goes on.
  int event_writers = 2;
  bool heartbeats = true;
  HeartbeatOptions heartbeat;
  // Stages to use instead of DefaultStages(cluster.pacing); empty = default.
  std::vector<lifecycle::Stage> stages;
  bool garbage_collector = true;
  GarbageCollectorOptions gc;
  bool namespace_controller = true;
  NamespaceControllerOptions namespaces;
  // kube-apiserver's loop that makes default/kubernetes again.
  bool kubernetes_service = true;
  KubernetesServiceOptions kubernetes_service_options;
  // Endpoints and EndpointSlices of Services with selectors.
  bool endpoints = true;
  EndpointsControllerOptions endpoints_options;
  // The cloud's load balancers: addresses for type LoadBalancer Services.
  bool load_balancers = true;
  // Claims bound to volumes, provisioned for the cloud's classes.
  bool volumes = true;
  // ResourceQuotas' status: hard and used.
  bool resource_quotas = true;
  // PodDisruptionBudgets' status, which pods/eviction spends.
  bool disruption = true;
  // The DaemonSet controller (kube-proxy's and the cloud provider's pods
  // then keep their DaemonSets' status too).
  bool daemonsets = true;
  // The Job controller and the TTL-after-finished controller.
  bool jobs = true;
  // kube-apiserver's APIServices of the built-in group versions.
  bool local_api_services = true;
  // kube-apiserver's API Priority and Fairness bootstrap FlowSchemas and
  // PriorityLevelConfigurations, and the FlowSchemas' Dangling condition.
  bool apf_configuration = true;
  // ServiceAccount "default" in every namespace.
  bool service_accounts = true;
  // The cluster CA (PEM) the root CA publisher puts in every namespace's
  // ConfigMap kube-root-ca.crt; empty: not published.
  std::string root_ca_pem;
  // The CA's private key (PEM), with which the CSR signing controller
  // issues approved requests' certificates; empty: nothing is signed.
  std::string ca_key_pem;
  // Whether the loops that may wait for the API server to serve (the
  // garbage collector's caches) wait for MarkServing as well as for the
  // cluster; false: for the cluster only (tests without a server).
  bool wait_for_serving = false;
};

class ControllerManager {
 public:
  ControllerManager(registry::Registry* registry, const Clock* clock, Rng* rng,
                    ClusterSpec cluster, ControllerManagerOptions options = {});
  ~ControllerManager();
  ControllerManager(const ControllerManager&) = delete;
  ControllerManager& operator=(const ControllerManager&) = delete;

  // Bootstraps the cluster and starts every controller.
  Status Start();
  // Stops every controller (joins their threads) and writes the events
  // they recorded. Idempotent.
  void Stop();
  // Returns once every event recorded so far has been written.
  void FlushEvents();

  // OK when every system pod is Running; else kServiceUnavailable naming
  // the first one that is not.
  Status ClusterReady() const;
  // Polls ClusterReady until it holds or the timeout (real time) passes.
  Status WaitForClusterReady(std::chrono::milliseconds timeout) const;
  // Says the API server now serves clients. As kube-controller-manager
  // starts once kube-apiserver answers, the loops that need not run
  // before the cluster does (the garbage collector's caches of every
  // kind) start then, leaving the start-up its CPU.
  void MarkServing() { serving_.store(true); }
  // The API server's TokenRequest, with which the kubelets write projected
  // service-account tokens. Before Start.
  void SetTokenIssuer(TokenIssuer issuer) { token_issuer_ = std::move(issuer); }

  const ClusterSpec& cluster() const { return cluster_; }
  // Null before Start.
  Kubelets* kubelets() { return kubelets_.get(); }
  // The kubelets' containers, for the API server; valid from construction
  // (finds nothing before Start).
  const sim::ContainerDirectory* containers() const { return &containers_; }
  Scheduler* scheduler() { return scheduler_.get(); }
  Informer* pod_informer() { return pods_.get(); }
  Informer* node_informer() { return nodes_.get(); }
  const std::vector<std::string>& system_pods() const { return system_pods_; }

 private:
  registry::Registry* registry_;
  const Clock* clock_;
  Rng* rng_;
  ClusterSpec cluster_;
  ControllerManagerOptions options_;
  CoreResources res_;
  std::vector<std::string> system_pods_;

  // Declared before the components so that it outlives them.
  std::unique_ptr<EventSink> event_sink_;
  std::unique_ptr<Informer> pods_;
  std::unique_ptr<Informer> nodes_;
  std::unique_ptr<Informer> claims_;
  std::unique_ptr<Informer> volumes_;
  std::unique_ptr<Informer> configmaps_;
  std::unique_ptr<Informer> secrets_;
  TokenIssuer token_issuer_;
  std::unique_ptr<Scheduler> scheduler_;
  std::unique_ptr<MetricsSource> metrics_;
  std::unique_ptr<Kubelets> kubelets_;
  std::unique_ptr<NodeHeartbeats> heartbeats_;
  std::unique_ptr<Informer> replicasets_;
  std::unique_ptr<Informer> deployments_;
  // The controllers of ControllerTable() that apply, in start order.
  std::vector<std::unique_ptr<Controller>> controllers_;
  std::atomic<bool> started_{false};
  std::atomic<bool> serving_{false};
  // Set once ClusterReady held: the cluster has come up (a system pod
  // replaced later, by its DaemonSet under a new name, does not undo it).
  mutable std::atomic<bool> came_up_{false};

  // Hands the server's lookups to the kubelets once they exist.
  class ContainerLookup : public sim::ContainerDirectory {
   public:
    std::shared_ptr<sim::Container> Find(const std::string& ns,
                                         const std::string& pod,
                                         const std::string& pod_uid,
                                         const std::string& container,
                                         bool previous) const override {
      Kubelets* k = kubelets.load();
      return k == nullptr ? nullptr
                          : k->Find(ns, pod, pod_uid, container, previous);
    }
    std::atomic<Kubelets*> kubelets{nullptr};
  };
  ContainerLookup containers_;
};

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_CONTROLLER_MANAGER_H_
