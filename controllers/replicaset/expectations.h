// What a ReplicaSet is still waiting to see in its pod informer after it
// created or deleted pods (client-go's controller expectations): until the
// cache has caught up, a sync must not act on the stale pod count or it
// would create or delete twice. Expectations expire after five minutes
// (by the injected Clock) so a lost event cannot wedge a ReplicaSet.
//
// Thread safety: every method may be called from any thread.
#ifndef KMOCK_CONTROLLERS_REPLICASET_EXPECTATIONS_H_
#define KMOCK_CONTROLLERS_REPLICASET_EXPECTATIONS_H_

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "common/clock.h"

namespace kmock::controllers::replicaset {

class Expectations {
 public:
  explicit Expectations(const Clock* clock) : clock_(clock) {}

  // Replaces the expectations of `key` (an RS "ns/name").
  void ExpectCreations(const std::string& key, int count);
  void ExpectDeletions(const std::string& key,
                       const std::vector<std::string>& pod_keys);
  // Both at once (a DaemonSet's sync creates on some nodes and deletes on
  // others).
  void Expect(const std::string& key, int count,
              const std::vector<std::string>& pod_keys);
  void CreationObserved(const std::string& key);
  void DeletionObserved(const std::string& key, const std::string& pod_key);
  // True when nothing is pending, or the expectations are too old.
  bool Satisfied(const std::string& key) const;
  void Forget(const std::string& key);

 private:
  struct Entry {
    int adds = 0;
    std::set<std::string> deletes;
    TimePoint set_at{};
  };
  const Clock* clock_;
  mutable std::mutex mu_;
  std::map<std::string, Entry> entries_;
};

}  // namespace kmock::controllers::replicaset

#endif  // KMOCK_CONTROLLERS_REPLICASET_EXPECTATIONS_H_
