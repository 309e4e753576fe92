// What a ReplicaSet's sync reads of each of its pods, taken once per pod
// object instead of on every sync.
//
// A sync walks every pod the ReplicaSet owns (claiming, then counting for
// status), and a rollout syncs the ReplicaSet a few hundred times while its
// pods change: reading phase, labels, owner and Ready condition out of each
// pod's JSON tree on every walk made the walk memory-bound (a few dozen
// cache misses per pod). Informer objects are immutable and shared, so the
// facts of one pod object never change: PodFactsCache keeps them per
// ReplicaSet for the pod objects of its previous sync, and recomputes only
// for pods that changed since.
//
// Thread safety: FactsOf is pure. PodFactsCache may be called from any
// thread; calls for the same ReplicaSet key must not overlap (the work
// queue never hands one key to two workers at once).
#ifndef KMOCK_CONTROLLERS_REPLICASET_POD_FACTS_H_
#define KMOCK_CONTROLLERS_REPLICASET_POD_FACTS_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/clock.h"
#include "registry/selectors.h"

namespace kmock::controllers::replicaset {

using nlohmann::json;

struct PodFacts {
  bool active = false;            // not terminal, not being deleted
  bool matches_selector = false;  // the ReplicaSet's (non-empty) selector
  bool labeled = false;           // carries every template label
  bool has_controller = false;    // some ownerReference is the controller
  bool controlled_here = false;   // ...and it is this ReplicaSet (by uid)
  bool ready = false;             // Ready condition True
  std::optional<TimePoint> ready_since;  // its lastTransitionTime
};

// What the ReplicaSet reads of a pod against it.
struct SetView {
  std::string uid;
  const registry::LabelSelector* selector = nullptr;
  const json* template_labels = nullptr;  // an object, or null for none
};

PodFacts FactsOf(const json& pod, const SetView& set);

class PodFactsCache {
 public:
  using PodPtr = std::shared_ptr<const json>;

  // The facts of each pod in `pods` (same order) for the ReplicaSet
  // rs_key, whose uid and generation are given: reused for pod objects
  // that were in this ReplicaSet's previous call with the same uid and
  // generation, computed for the rest. Remembers only this call's pods,
  // updating the set's entries in place: a sync of a 1,000-pod set where
  // one pod changed allocates one entry and frees one, instead of
  // rebuilding all 1,000.
  std::vector<PodFacts> For(const std::string& rs_key, int64_t generation,
                            const SetView& set,
                            const std::vector<PodPtr>& pods);
  void Forget(const std::string& rs_key);

 private:
  struct Entry {
    PodPtr pod;  // keeps the object, so its address is not reused
    PodFacts facts;
    uint64_t last_call = 0;  // PerSet::calls when last in `pods`
  };
  struct PerSet {
    std::string uid;
    int64_t generation = 0;
    uint64_t calls = 0;
    std::unordered_map<const json*, Entry> pods;
  };

  std::mutex mu_;
  // The map's shape is GUARDED_BY(mu_); a PerSet itself is used outside
  // the lock by the one call for its key (the pointer stays valid until
  // Forget of that key, which does not overlap the call either).
  std::unordered_map<std::string, std::unique_ptr<PerSet>> sets_;
};

}  // namespace kmock::controllers::replicaset

#endif  // KMOCK_CONTROLLERS_REPLICASET_POD_FACTS_H_
