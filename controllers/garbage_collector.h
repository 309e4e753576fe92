// The garbage collector, as kube-controller-manager runs it: it watches
// every served resource that can be listed and watched (events excepted,
// as upstream ignores them), keeps the ownerReferences graph (gc_graph.h)
// and
//
// - deletes dependents whose owners are all gone (absent, or replaced by an
//   object of the same name with another uid), with propagationPolicy
//   Background for the dependent's own delete; a dependent that still has a
//   live owner only loses its dangling references;
// - orphans: for an owner being deleted with the "orphan" finalizer, removes
//   the references to it from every dependent, then the finalizer;
// - deletes in the foreground: for an owner being deleted with the
//   "foregroundDeletion" finalizer, deletes its dependents and removes the
//   finalizer once no dependent with blockOwnerDeletion=true remains.
//
// Decisions never rest on the cache alone: owners are read again through
// the registry and deletes carry a uid precondition. Work is event-driven
// plus a full pass over the graph every `resync` of the injected clock. The
// collector records no events; with `verbose` it logs its actions to stderr.
//
// While started, the registry honours propagationPolicy Orphan and
// Foreground (Registry::set_garbage_collection).
//
// Thread safety: Start/Stop from one thread (Start once; Stop is idempotent
// and also runs on destruction); Sync and the accessors from any thread.
#ifndef KMOCK_CONTROLLERS_GARBAGE_COLLECTOR_H_
#define KMOCK_CONTROLLERS_GARBAGE_COLLECTOR_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/rng.h"
#include "controllers/gc_graph.h"
#include "controllers/informer.h"
#include "controllers/work_queue.h"
#include "controllers/worker_pool.h"
#include "registry/registry.h"

namespace kmock::controllers {

struct GarbageCollectorOptions {
  int workers = 2;
  // Every node with owners is looked at again this often (clock time).
  std::chrono::seconds resync{30};
  // How long the workers wait (real time) for the first lists before they
  // run: acting on a partial graph could miss dependents.
  std::chrono::milliseconds sync_timeout{30000};
  bool verbose = false;
  // Informers the caller keeps anyway (the controller manager's pods,
  // nodes, ReplicaSets, Deployments), by resource: the collector adds its
  // handlers to these instead of watching those resources a second time
  // (a whole object serves as its metadata). They must not be started
  // before the collector is made; their owner starts and stops them (and
  // must stop them before the collector is destroyed: its handlers stay),
  // and the collector's workers wait for their first lists as for its own.
  std::map<const api::ResourceInfo*, Informer*> shared_informers;
  // Asked (every 10 ms, for at most start_wait) on the collector's starter
  // thread before its own informers start; null: they start at once. The
  // controller manager answers true once its cluster's system pods run:
  // the fifty-odd first lists would otherwise compete for the CPU with the
  // bootstrap (kube-controller-manager, too, starts after the API server).
  std::function<bool()> may_start_informers;
  std::chrono::milliseconds start_wait{10000};
};

class GarbageCollector {
 public:
  // rng is not used yet; it keeps the signature the controllers share.
  GarbageCollector(registry::Registry* registry, const Clock* clock, Rng* rng,
                   GarbageCollectorOptions options = {});
  ~GarbageCollector();
  GarbageCollector(const GarbageCollector&) = delete;
  GarbageCollector& operator=(const GarbageCollector&) = delete;

  // Turns garbage collection on in the registry, starts the informers and
  // returns; a thread of its own starts the workers once the informers
  // have their first lists. Idempotent.
  void Start();
  // Stops workers and informers and turns garbage collection off in the
  // registry. Idempotent.
  void Stop();

  // Handles one object (by uid) once: what a worker does for a key.
  Status Sync(const std::string& uid);

  // The resources watched (for tests and logs).
  std::vector<const api::ResourceInfo*> WatchedResources() const;
  const OwnerGraph& graph() const { return graph_; }

 private:
  void OnUpsert(const api::ResourceInfo* res, const json& obj);
  void OnDelete(const json& obj);
  // Whether the graph's state calls for a Sync of node: a collector
  // finalizer to act on, or an owner that is unseen or being deleted.
  bool NeedsWork(const GraphNode& node) const;
  // Queues every node that NeedsWork, and itself again after `resync`.
  void Resync();
  // An owner being deleted with the orphan finalizer.
  Status OrphanDependents(const GraphNode& owner);
  // An owner being deleted with the foregroundDeletion finalizer.
  Status ProcessDeletingDependents(const GraphNode& owner);
  // A dependent not being deleted: its owners decide.
  Status AttemptToCollect(const GraphNode& dependent);
  // Every object naming owner in its ownerReferences, read through the
  // registry (the graph may not have seen a dependent made just before).
  Result<std::vector<GraphNode>> LiveDependents(const GraphNode& owner);
  Result<OwnerState> ClassifyOwner(const GraphNode& dependent,
                                   const OwnerReference& ref);
  Status RemoveOwnerReferences(const GraphNode& dependent,
                               const std::vector<std::string>& owner_uids);
  Status RemoveFinalizer(const GraphNode& node, const std::string& finalizer);
  Status DeleteObject(const GraphNode& node, const std::string& policy);
  void Log(const std::string& msg) const;

  registry::Registry* registry_;
  GarbageCollectorOptions options_;
  OwnerGraph graph_;
  WorkQueue queue_;
  std::vector<std::unique_ptr<Informer>> own_informers_;
  std::vector<Informer*> informers_;  // every one watched: own and shared
  // Waits for the informers, then starts the workers (under start_mu_, so
  // that Stop never races their creation).
  std::thread starter_;
  std::mutex start_mu_;
  std::atomic<bool> stopping_{false};
  std::unique_ptr<WorkerPool> workers_;
  bool started_ = false;
  bool stopped_ = false;
};

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_GARBAGE_COLLECTOR_H_
