// What create-time admission needs to know of each namespace (does it exist,
// is it terminating), kept from the store's own watch instead of a store
// read and a JSON parse per create, as kube-apiserver's NamespaceLifecycle
// admission reads a namespace informer rather than etcd.
//
// The view is exact, not merely eventually right: before every lookup, the
// events queued on a store watch of the namespaces' prefix are applied, and
// the store publishes a write's events before the write returns, so every
// namespace write acknowledged before a lookup is seen by it. A namespace
// not yet known is read from the store and remembered at the revision read;
// each entry keeps the revision it is from, and older news never replaces
// newer (deletes leave a tombstone for that reason). If the watch ends (its
// queue overflowed while nothing looked, or the store is closing), the view
// is dropped and rebuilt from reads and a new watch.
//
// Thread safety: Lookup may be called from any thread; one mutex guards the
// map and the watch, and store reads happen outside it.
#ifndef KMOCK_REGISTRY_NAMESPACE_STATES_H_
#define KMOCK_REGISTRY_NAMESPACE_STATES_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/status.h"
#include "store/storage.h"

namespace kmock::registry {

class NamespaceStates {
 public:
  enum class State { kAbsent, kActive, kTerminating };

  // key_prefix: the namespaces' store prefix ("/registry/namespaces/").
  NamespaceStates(store::Storage* storage, std::string key_prefix);
  NamespaceStates(const NamespaceStates&) = delete;
  NamespaceStates& operator=(const NamespaceStates&) = delete;

  // The namespace's state now. Errors only when the store cannot be read.
  Result<State> Lookup(std::string_view name);

  // Whether the stored namespace JSON says it is being deleted
  // (deletionTimestamp set, or status.phase Terminating).
  static bool TerminatingJson(std::string_view value);

 private:
  struct Entry {
    int64_t revision = 0;
    State state = State::kAbsent;
  };
  // Applies the queued events; on a dead watch, forgets everything and
  // starts a new one. Requires mu_.
  void CatchUpLocked();
  // Keeps (revision, state) for name unless a newer entry is there.
  void PutLocked(const std::string& name, int64_t revision, State state);

  store::Storage* storage_;
  const std::string prefix_;
  std::mutex mu_;
  std::unique_ptr<store::Watcher> watch_;         // GUARDED_BY(mu_)
  uint64_t watch_generation_ = 0;                 // GUARDED_BY(mu_)
  std::unordered_map<std::string, Entry> known_;  // GUARDED_BY(mu_)
};

}  // namespace kmock::registry

#endif  // KMOCK_REGISTRY_NAMESPACE_STATES_H_
