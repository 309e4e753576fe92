// The namespace lifecycle controller, as kube-controller-manager's: when a
// namespace has a deletionTimestamp (it is Terminating) and still carries
// the "kubernetes" entry in spec.finalizers, it waits `deletion_grace` of
// the injected clock after the event (kube-controller-manager's
// namespaceDeletionGracePeriod, 5 s: every namespace event is queued with
// AddAfter, so a namespace's content outlives its delete by that much and a
// `kubectl delete -f` that lists the namespace first still finds the rest),
// then deletes everything in it
// through the registry's normal paths (pods go through their kubelet's
// graceful deletion; objects with finalizers wait for them), keeps the
// namespace's deletion conditions up to date (NamespaceContentRemaining,
// NamespaceFinalizersRemaining, ... with a real server's reasons and
// messages), looks again every `recheck` of the injected clock until
// nothing is left, then removes "kubernetes" through the namespaces/finalize
// subresource, after which the registry removes the namespace.
//
// The pure parts (the conditions for a content tally) are exposed for
// tests.
//
// Thread safety: Start/Stop from one thread (Start once; Stop is idempotent
// and also runs on destruction); Sync from any thread.
#ifndef KMOCK_CONTROLLERS_NAMESPACE_CONTROLLER_H_
#define KMOCK_CONTROLLERS_NAMESPACE_CONTROLLER_H_

#include <chrono>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/rng.h"
#include "controllers/informer.h"
#include "controllers/work_queue.h"
#include "controllers/worker_pool.h"
#include "registry/registry.h"

namespace kmock::controllers {

using nlohmann::json;

inline constexpr char kNamespaceFinalizer[] = "kubernetes";

struct NamespaceControllerOptions {
  int workers = 1;
  // How long after a namespace event (add, update, resync) the namespace is
  // looked at: kube-controller-manager's namespaceDeletionGracePeriod. An
  // earlier pending look (a recheck) is not put off by it.
  std::chrono::milliseconds deletion_grace{5000};
  // How soon a namespace with content left is looked at again (clock time).
  std::chrono::milliseconds recheck{250};
  // Every terminating namespace is looked at again this often (clock time).
  std::chrono::seconds resync{60};
  bool verbose = false;
};

// What one pass over a terminating namespace found.
struct NamespaceContentTally {
  // "pods." / "deployments.apps" -> objects still there.
  std::map<std::string, int64_t> remaining;
  // finalizer -> objects still carrying it.
  std::map<std::string, int64_t> finalizers;
  // Errors while deleting, one line each.
  std::vector<std::string> errors;
};

// The five deletion conditions a real server writes, in its order, with
// lastTransitionTime kept from `old_conditions` when a status is unchanged.
json NamespaceDeletionConditions(const NamespaceContentTally& tally,
                                 const json& old_conditions,
                                 const std::string& now);

class NamespaceController {
 public:
  // rng is not used yet; it keeps the signature the controllers share.
  NamespaceController(registry::Registry* registry, const Clock* clock,
                      Rng* rng, NamespaceControllerOptions options = {});
  ~NamespaceController();
  NamespaceController(const NamespaceController&) = delete;
  NamespaceController& operator=(const NamespaceController&) = delete;

  // Starts the namespace informer and the workers. Idempotent.
  void Start();
  // Stops workers and the informer. Idempotent.
  void Stop();

  // Handles the namespace once: what a worker does for its key.
  Status Sync(const std::string& name);

 private:
  bool Terminating(const json& ns) const;
  // Queues a terminating namespace after the deletion grace period.
  void Enqueue(const json& ns);
  // Deletes what it can of the namespace's content and tallies the rest.
  NamespaceContentTally DeleteContent(const std::string& ns);
  Status UpdateConditions(const std::string& name,
                          const NamespaceContentTally& tally);
  Status Finalize(const std::string& name, const std::string& uid);
  void Log(const std::string& msg) const;

  registry::Registry* registry_;
  const Clock* clock_;
  NamespaceControllerOptions options_;
  const api::ResourceInfo* namespaces_ = nullptr;
  WorkQueue queue_;
  std::unique_ptr<Informer> informer_;
  std::unique_ptr<WorkerPool> workers_;
  bool started_ = false;
  bool stopped_ = false;
};

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_NAMESPACE_CONTROLLER_H_
