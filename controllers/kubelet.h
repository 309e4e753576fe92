// Fake kubelets: one agent per node of the cluster spec, each with its own
// pod address range, image cache and process numbers, driven by one shared
// pod informer and work queue. For every pod bound to one of its nodes an
// agent runs the lifecycle stages (lifecycle/stage.h) at their paced delays:
// sandbox and address, image pull, container create and start, ready; and
// after a delete, stop the containers and remove the object with a grace
// period of 0, as a real kubelet does. Status goes through pods/status,
// events through the events resource (source kubelet, host the node).
//
// Pods bound to nodes that have no agent, or whose Node object does not
// exist, are left alone (they stay Pending).
//
// Volumes: before the sandbox the agent checks that the ConfigMaps and
// Secrets a pod's volumes need exist (FailedMount, retried on the volume
// manager's back-off), and before each container's create those its env
// needs (CreateContainerConfigError). When a mounted ConfigMap or Secret,
// or labels a downwardAPI volume shows, change, the pod's volumes are
// written again at its next periodic sync (KubeletOptions::sync_period).
//
// The system pods are kept as a kubelet keeps its static pods' mirror pods
// (KubeletOptions::static_pods): deleted, they come back.
//
// Thread safety: Start/Stop from one thread; the accessors may be called
// from any thread.
#ifndef KMOCK_CONTROLLERS_KUBELET_H_
#define KMOCK_CONTROLLERS_KUBELET_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/rng.h"
#include "controllers/event_recorder.h"
#include "controllers/informer.h"
#include "controllers/ip_allocator.h"
#include "controllers/lifecycle/container_setup.h"
#include "controllers/lifecycle/runtime.h"
#include "controllers/lifecycle/stage.h"
#include "controllers/resources_lookup.h"
#include "controllers/work_queue.h"
#include "controllers/worker_pool.h"
#include "registry/registry.h"

namespace kmock::controllers {

struct KubeletNodeConfig {
  std::string name;
  std::string internal_ip;
  std::string pod_cidr;
  // Images already on the node (normalised names): pulls of these with
  // IfNotPresent report "already present on machine".
  std::vector<std::string> preloaded_images;
  std::string os_image = "Ubuntu 22.04.4 LTS";  // the node's /etc/os-release
};

// The API's TokenRequest: the token of serviceaccounts/<name>/token in
// namespace ns for the request, or nullopt.
using TokenIssuer = std::function<std::optional<std::string>(
    const std::string& ns, const std::string& name, const json& request)>;

struct KubeletOptions {
  std::vector<lifecycle::Stage> stages;  // usually DefaultStages(pacing)
  int workers = 2;
  // Pods ("ns/name") that were already running when the cluster came up
  // (the control plane, kube-proxy): they go through bootstrap_stages,
  // instant, whatever the pacing, so a paced classroom cluster is ready at
  // once and only the learners' pods start slowly.
  std::set<std::string> bootstrap_pods;
  std::vector<lifecycle::Stage> bootstrap_stages;
  // Pods ("ns/name") the kubelet of their node keeps in existence, as a
  // kubelet keeps the mirror pods of its static pods: once one is gone it
  // is made again, with the same name, labels, annotations and spec, a new
  // uid, and the Node's current uid in its owner reference. A mirror pod
  // (annotation kubernetes.io/config.mirror) only shows containers the API
  // does not control: deleting it stops nothing, the kubelet removes the
  // object at once (grace period 0), and the new object reports the same
  // running containers. Any other kept pod (kube-proxy and the cloud
  // controller manager when the DaemonSet controller does not run) is stopped
  // as usual and started afresh under the same name.
  std::set<std::string> static_pods;
  // Where events are queued for writing (event_sink.h); null: each is
  // written before the component goes on.
  EventSink* event_sink = nullptr;
  // ConfigMaps and Secrets (either may be null): when one that a pod's
  // volume projects changes, the kubelet writes the volume's files again
  // at its next periodic sync of the pod, sync_period after the last
  // (the pod's start), as KubeletConfiguration's syncFrequency.
  Informer* configmaps = nullptr;
  Informer* secrets = nullptr;
  std::chrono::milliseconds sync_period{60000};
  // Whether a root CA publisher puts kube-root-ca.crt in every namespace:
  // without one, pods do not wait for it to mount.
  bool root_ca_published = true;
  // For projected service-account tokens; null: no token files.
  TokenIssuer issue_token;
};

class Kubelets : public sim::ContainerDirectory {
 public:
  // REQUIRES: pods has the kPodsByNodeIndex index (and kByNamespaceIndex
  // for volume updates); informers not started.
  static Result<std::unique_ptr<Kubelets>> Create(
      registry::Registry* registry, const Clock* clock, Rng* rng,
      CoreResources res, Informer* pods, Informer* nodes,
      std::vector<KubeletNodeConfig> nodes_config, KubeletOptions options);
  ~Kubelets() override;

  void Start();
  void Stop();

  // Runs the due stages of one pod ("ns/name").
  Status Sync(const std::string& key);

  // The process number `ps` on the node shows for a running container.
  std::optional<int64_t> ContainerPid(const std::string& ns,
                                      const std::string& pod,
                                      const std::string& container) const;
  // The kubelet's record of a pod, if it runs it.
  std::optional<lifecycle::PodRuntime> Runtime(const std::string& ns,
                                               const std::string& pod) const;

  std::shared_ptr<sim::Container> Find(const std::string& ns,
                                       const std::string& pod,
                                       const std::string& pod_uid,
                                       const std::string& container,
                                       bool previous) const override;

 private:
  struct Agent {
    KubeletNodeConfig config;
    std::unique_ptr<IpAllocator> ips;
    std::unique_ptr<EventRecorder> recorder;
    std::atomic<int64_t> next_pid{0};
    std::set<std::string> images;  // guarded by Kubelets::mu_
    // The node's own files (NodeFiles), which hostPath volumes show.
    std::shared_ptr<sim::Filesystem> host_files;
  };
  struct PodEntry {
    std::string uid;
    std::string node;
    lifecycle::PodRuntime rt;
    std::string pending_stage;
    TimePoint due{};
  };

  Kubelets(registry::Registry* registry, const Clock* clock, Rng* rng,
           CoreResources res, Informer* pods, Informer* nodes,
           KubeletOptions options);
  // A pod kept in existence (KubeletOptions::static_pods).
  struct StaticPod {
    json manifest;  // what is created again: metadata and spec
    std::string node;
    bool mirror = false;
    // A mirror pod's containers while no object shows them.
    std::optional<lifecycle::PodRuntime> running;
  };

  lifecycle::PodRuntime NewRuntime(const json& pod, Agent* agent);
  // Drops the kubelet's record of the pod; a mirror pod's containers are
  // kept for its next object.
  void Forget(const std::string& key);
  // Remembers what to create again should the static pod `key` go.
  void RememberStaticPod(const std::string& key, const json& pod,
                         const std::string& node);
  // The running containers of a mirror pod whose object was replaced.
  std::optional<lifecycle::PodRuntime> TakeRunning(const std::string& key);
  // Creates the static pod `key` again if it is one and its node is there.
  Status RecreateStaticPod(const std::string& key);
  Status WriteStatus(const json& pod, const lifecycle::PodRuntime& rt);
  // Reads the ConfigMaps and Secrets of the pod's namespace.
  lifecycle::ObjectSource ObjectsOf(const json& pod) const;
  // What the pod's containers read from the API: the ConfigMaps and
  // Secrets of its namespace, its tokens, the pod itself, and its node's
  // files.
  lifecycle::PodSources SourcesOf(const json& pod) const;
  // A ConfigMap or Secret changed: the pods of ours that mount it write
  // their volumes again at their next sync.
  void ObjectChanged(const json& obj, const std::string& plural);
  // Writes the pod's volumes again if one changed and its periodic sync
  // has come; else moves *wake to that sync.
  void SyncVolumes(const std::string& key, const lifecycle::PodRuntime& rt,
                   TimePoint now, std::optional<TimePoint>* wake);
  // The node's processes as `ps` in a hostPID pod lists them: the system's
  // (init, containerd, the kubelet), then each pod's pause and running
  // containers with the process numbers they got when they started.
  std::vector<std::pair<int64_t, std::string>> NodeProcesses(
      const std::string& node) const;
  // Has the pod synced when the container's program ends from outside.
  void ListenForExit(const json& pod, const lifecycle::ContainerRuntime& c);
  // Runs the programs of the running containers up to now: those that
  // exit are Terminated. Returns whether any did; *wake is the earliest
  // moment a sleeping program runs again (unchanged if none).
  bool AdvanceContainers(const ObjectPtr& pod, const std::string& node,
                         lifecycle::PodRuntime* rt, TimePoint now,
                         std::optional<TimePoint>* wake);
  Status DeletePod(const json& pod, const std::string& node);
  int64_t NextPid(Agent* agent);

  registry::Registry* registry_;
  const Clock* clock_;
  Rng* rng_;
  CoreResources res_;
  Informer* pods_;
  Informer* nodes_;
  KubeletOptions options_;
  std::map<std::string, std::unique_ptr<Agent>> agents_;
  WorkQueue queue_;
  std::unique_ptr<WorkerPool> workers_;

  mutable std::mutex mu_;
  std::map<std::string, PodEntry> entries_;
  std::map<std::string, StaticPod> static_pods_;
  // Pods ("ns/name") whose volumes' sources changed, and since when.
  std::map<std::string, TimePoint> volume_changes_;
};

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_KUBELET_H_
