// Routes pod events to the work queue of the workload controller of one
// kind that owns them, as the ReplicaSet and DaemonSet controllers share:
// an added pod satisfies a creation its controller expected, a pod being
// or gone deleted a deletion it expected, a pod whose owner changed wakes
// both owners, and an orphan wakes every controller of the kind in its
// namespace whose spec.selector matches its labels (it may adopt it).
//
// Thread safety: the handlers run on the pod informer's thread; everything
// they touch (queue, expectations, informer cache) is thread-safe.
#ifndef KMOCK_CONTROLLERS_APPS_POD_OWNER_ROUTING_H_
#define KMOCK_CONTROLLERS_APPS_POD_OWNER_ROUTING_H_

#include <optional>
#include <string>

#include "controllers/informer.h"
#include "controllers/replicaset/expectations.h"
#include "controllers/work_queue.h"

namespace kmock::controllers::apps {

class PodOwnerRouting {
 public:
  // `owners` is the informer of `kind` (of API group `group`) with
  // kByNamespaceIndex.
  PodOwnerRouting(std::string kind, Informer* owners, WorkQueue* queue,
                  replicaset::Expectations* expectations,
                  std::string group = "apps")
      : kind_(std::move(kind)),
        group_(std::move(group)),
        owners_(owners),
        queue_(queue),
        expectations_(expectations) {}

  // The handlers to add to the pod informer.
  EventHandlers Handlers();
  // The key of the pod's controller when it is one of ours that exists.
  std::optional<std::string> OwnerKey(const json& pod) const;

 private:
  void OnAdd(const json& pod);
  void OnUpdate(const json& old_pod, const json& pod);
  void OnDelete(const json& pod);
  void EnqueueMatching(const json& pod);

  std::string kind_;
  std::string group_;
  Informer* owners_;
  WorkQueue* queue_;
  replicaset::Expectations* expectations_;
};

}  // namespace kmock::controllers::apps

#endif  // KMOCK_CONTROLLERS_APPS_POD_OWNER_ROUTING_H_
