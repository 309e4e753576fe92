// An informer: lists one resource through the registry, then watches it from
// the list's resourceVersion, keeping a local cache indexed by key
// ("ns/name", or "name" for cluster-scoped objects) and by any secondary
// indexes (e.g. pods by spec.nodeName). It relists when the watch ends with
// an error (410 Expired after compaction, a watcher that fell behind, ...),
// turning the difference into add/update/delete calls.
//
// Memory: the most recently written or read objects (InformerOptions::
// hot_objects) are kept as the decoded trees the watch delivered, shared
// with every other watcher; the others are kept as compact JSON text
// without managedFields (as kube-controller-manager's informers strip them),
// compressed against the first object that went cold (SampleCompressor:
// objects of one resource share most of their text, so a pod's takes about
// a tenth), and decoded again when read. A decoded tree takes about six
// times its text, so a cluster of 150,000 pods fits in memory only this
// way. A cold object read twice while the first reader still holds it is
// decoded once.
//
// A failed list, a watch that cannot start and a watch that ends with an
// error are retried after a wait that grows while the failures go on
// (backoff.h: 0.8-1.6 s first, doubling to at most 30-60 s, as client-go's
// reflector waits), so a store that fails every read is not asked again
// and again; a watch that ends because this informer fell behind resumes at
// once.
//
// Handlers run on the informer's own thread, one at a time, after the cache
// already reflects the change; they must be quick (typically: queue a key).
//
// Thread safety: AddHandlers and AddIndex before Start; everything else
// from any thread. Cached objects are immutable snapshots; the same object
// read twice may come back as two equal trees once it has gone cold, and
// without managedFields.
#ifndef KMOCK_CONTROLLERS_INFORMER_H_
#define KMOCK_CONTROLLERS_INFORMER_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "common/sample_compressor.h"
#include "controllers/backoff.h"
#include "registry/registry.h"

namespace kmock::controllers {

using nlohmann::json;
using ObjectPtr = std::shared_ptr<const json>;

// "ns/name" for namespaced objects, "name" otherwise.
std::string KeyOf(const json& obj);
// Splits a key into namespace ("" if none) and name.
void SplitKey(const std::string& key, std::string* ns, std::string* name);

struct EventHandlers {
  std::function<void(const json& obj)> on_add;
  std::function<void(const json& old_obj, const json& new_obj)> on_update;
  std::function<void(const json& obj)> on_delete;
};

// Returns the index values of an object (none: not indexed).
using IndexFunc = std::function<std::vector<std::string>(const json& obj)>;

struct InformerOptions {
  std::string ns;  // "" = all namespaces
  std::string label_selector;
  std::string field_selector;
  // How long one wait for watch events lasts. Stop ends the wait at once,
  // so this only bounds how often an idle informer wakes (to take a
  // bookmark): a short one costs every idle informer ten wakeups a second.
  std::chrono::milliseconds poll{5000};
  // Cache and hand out only apiVersion, kind and metadata (a metadata
  // informer): for controllers that never read spec or status, so the
  // objects are not decoded whole (registry::ListOptions::metadata_only).
  bool metadata_only = false;
  // The waits before relisting after an error (backoff.h).
  BackoffPolicy backoff;
  // Time and randomness of those waits (for the jitter); null: the real
  // clock, and a random source seeded from the resource's name. Not owned.
  const Clock* clock = nullptr;
  Rng* rng = nullptr;
  // How many objects stay decoded; older ones are kept as compact text.
  size_t hot_objects = 1024;
  // Objects read per page of a (re)list.
  size_t list_page = 500;
};

class Informer {
 public:
  Informer(registry::Registry* registry, const api::ResourceInfo* resource,
           InformerOptions options = {});
  ~Informer();
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  const api::ResourceInfo* resource() const { return resource_; }

  // REQUIRES: before Start.
  void AddHandlers(EventHandlers handlers);
  void AddIndex(const std::string& name, IndexFunc fn);

  void Start();
  // Stops the watch and joins the thread. Idempotent.
  void Stop();

  // True once the first list has been loaded into the cache.
  bool HasSynced() const;
  bool WaitForSync(std::chrono::milliseconds timeout) const;

  ObjectPtr Get(const std::string& key) const;
  std::vector<ObjectPtr> List() const;
  std::vector<ObjectPtr> ByIndex(const std::string& index,
                                 const std::string& value) const;
  // The resourceVersion of the last list or event seen.
  std::string LastResourceVersion() const;
  // How many lists have been made (1 after the first sync).
  int ListCount() const { return list_count_.load(); }
  // Bytes of compressed text the cold entries hold.
  size_t ColdBytes() const;

 private:
  void Run();
  // Lists and replaces the cache. Returns the list's resourceVersion.
  Result<std::string> ListAndReplace();
  // Watches until Stop or an error. Returns when a relist is needed.
  void WatchFrom(const std::string& rv);
  // One watch from rv until Stop or its end. Returns true when it ended
  // because this informer fell behind (watch again from last_rv_).
  bool WatchOnce(const std::string& rv);
  void Upsert(registry::ServedPtr served);
  void Remove(const json& obj);

  // One cached object: its tree while hot, else its compact text.
  struct Entry {
    registry::ServedPtr hot;         // null when cold
    std::weak_ptr<const json> seen;  // the last tree handed out
    // Set when cold: the compact text, compressed by compressor_.
    std::shared_ptr<const std::string> compact;
    std::string resource_version;
    std::vector<std::pair<std::string, std::string>> index_values;
    std::list<std::string>::iterator lru;  // valid while hot
  };

  // A cold entry being read: decoded after mu_ is released.
  struct ColdRead {
    size_t slot;  // its place in the output
    std::string key;
    std::shared_ptr<const std::string> compact;
  };
  // The tree of an entry's compressed compact text; discarded if it does
  // not decode (it cannot: we wrote it). Call without mu_.
  json Decode(const std::string& compact) const;

  // The entry's tree if it is at hand (hot, or still held by a reader).
  static ObjectPtr TreeLocked(const Entry& e);
  // The entry's tree if it is at hand, marked most recently used; else
  // null. REQUIRES: mu_ held.
  ObjectPtr TouchLocked(Entry& e) const;
  // Appends the entry's tree to out if it is at hand, else a null slot
  // and a ColdRead for FinishCold. REQUIRES: mu_ held.
  void TakeLocked(std::string_view key, Entry& e, std::vector<ObjectPtr>* out,
                  std::vector<ColdRead>* cold) const;
  // Decodes the cold reads (call without mu_), shares each tree with later
  // readers, and drops slots that could not be filled.
  void FinishCold(std::vector<ObjectPtr>* out,
                  std::vector<ColdRead> cold) const;
  // The entry's tree, decoding its compact text if needed (outside mu_).
  ObjectPtr Resolve(const std::string& key) const;
  // Makes the entry hot with obj (most recent), cooling the oldest over
  // the limit. The trees cooled entries held go to *released, for the
  // caller to drop once mu_ is released (freeing a tree is the costly part
  // of cooling, and readers need not wait for it).
  void MakeHotLocked(const std::string& key, Entry& e,
                     registry::ServedPtr served,
                     std::vector<registry::ServedPtr>* released);
  void CoolOverLimitLocked(std::vector<registry::ServedPtr>* released);
  // Puts the entry under its hot object's current index values, moving it
  // from the ones it had (nothing to do when they did not change, as after
  // most updates). key must be the entry's own key in items_ (the index
  // refers to it).
  void ReindexLocked(const std::string& key, Entry& e);
  // Takes the entry out of every index (key as for ReindexLocked).
  void UnindexLocked(const std::string& key, Entry& e);

  registry::Registry* registry_;
  const api::ResourceInfo* resource_;
  InformerOptions options_;
  std::vector<EventHandlers> handlers_;
  std::map<std::string, IndexFunc> index_fns_;

  mutable std::mutex mu_;
  mutable std::condition_variable synced_cv_;
  mutable std::map<std::string, Entry> items_;
  // index name -> value -> the entries, in key order. The views refer to
  // the keys of items_, whose nodes do not move; an entry leaves every
  // index before it leaves items_.
  using IndexedEntries = std::map<std::string_view, Entry*>;
  std::map<std::string, std::map<std::string, IndexedEntries>> indexes_;
  // Keys of hot entries, most recently used first.
  mutable std::list<std::string> lru_;
  // Made under mu_ from the first object to go cold, before any entry has
  // compact text, and never replaced: whoever read an entry's text under
  // mu_ may use it without the lock.
  std::unique_ptr<const SampleCompressor> compressor_;
  bool synced_ = false;
  std::string last_rv_;
  registry::ObjectWatcher* watcher_ = nullptr;  // guarded by mu_

  std::atomic<bool> stop_{false};
  std::condition_variable stop_cv_;  // with mu_: wakes a wait on Stop
  std::unique_ptr<Rng> own_rng_;     // when options_.rng is null
  Backoff backoff_;                  // used by the informer's thread only
  std::atomic<int> list_count_{0};
  std::thread thread_;
};

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_INFORMER_H_
