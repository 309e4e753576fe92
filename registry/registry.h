// The registry: ONE generic pipeline that serves every kind.
//
//   decode (server) → system metadata → strategy.PrepareFor{Create,Update}
//   → strategy.Default → validation (metadata + strategy; every cause in one
//   422) → store write (create-if-absent / compare-and-swap) → encode.
//
// The HTTP handlers and the in-process controllers call the same methods,
// so a controller's write goes through exactly what a client's does.
// Objects are nlohmann::json in their served form (apiVersion and kind set,
// metadata.resourceVersion = the store revision as a decimal string).
//
// Errors are Status values with kube-apiserver's codes, messages and
// details (e.g. 404 `pods "x" not found`, 409 AlreadyExists, 409 Conflict
// "the object has been modified; ...", 422 Invalid with causes, 410 Expired).
//
// Thread safety: a Registry is safe for concurrent use from any thread.
#ifndef KMOCK_REGISTRY_REGISTRY_H_
#define KMOCK_REGISTRY_REGISTRY_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/decode_check.h"
#include "api/resource.h"
#include "common/clock.h"
#include "common/rng.h"
#include "common/status.h"
#include "fieldmanager/field_manager.h"
#include "registry/admission/admission_plugin.h"
#include "registry/list_json.h"
#include "registry/list_served.h"
#include "registry/namespace_states.h"
#include "registry/served_object.h"
#include "store/storage.h"

namespace kmock::registry {

using nlohmann::json;

using UserInfo = api::UserInfo;

enum class FieldValidation { kIgnore, kWarn, kStrict };

enum class PatchType {
  kJsonPatch,       // application/json-patch+json (RFC 6902)
  kMergePatch,      // application/merge-patch+json (RFC 7386)
  kStrategicMerge,  // application/strategic-merge-patch+json
  kApply,           // application/apply-patch+yaml (server-side apply)
};

struct WriteOptions {
  UserInfo user;
  bool dry_run = false;       // dryRun=All: run everything, store nothing
  std::string field_manager;  // fieldManager, else derived from user agent
  FieldValidation field_validation = FieldValidation::kWarn;
  bool force = false;  // server-side apply force=true
  // Repeated keys found while parsing the body, for fieldValidation. May be
  // null.
  const api::BodyFindings* body_findings = nullptr;
  // Warnings to send back (Warning: 299 headers). May be null.
  std::vector<std::string>* warnings = nullptr;
  // The object was built by the server's own components (controllers,
  // kubelets, scheduler) from stored objects, as their Go counterparts
  // build typed structs: it skips the type and unknown-field check of a
  // decoded request body (fieldValidation), which has nothing to find.
  bool typed_in_process = false;
  // When the client stops waiting (kube-apiserver's request timeout): a
  // write whose deadline has passed by the time it would reach the store
  // stores nothing and answers 504 Timeout. None for in-process writes.
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

struct WriteResult {
  json object;
  bool created = false;  // 201 rather than 200
};

struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  int64_t limit = 0;
  std::string continue_token;
  std::string resource_version;        // "", "0" or a revision
  std::string resource_version_match;  // "", "NotOlderThan", "Exact"
  // In-process callers that read only metadata (see DecodeObjectMetadata):
  // items may carry only apiVersion, kind and metadata, and that metadata
  // may lack managedFields. Ignored with a field selector, which may name
  // other fields.
  bool metadata_only = false;
};

struct WatchOptions {
  std::string label_selector;
  std::string field_selector;
  std::string resource_version;  // "" / "0": initial ADDED events, then changes
  bool allow_bookmarks = false;
  bool send_initial_events = false;
  // As ListOptions::metadata_only, for the watch's events.
  bool metadata_only = false;
};

struct ServedList {
  int64_t revision = 0;
  std::string continue_token;                   // empty: the list is complete
  std::optional<int64_t> remaining_item_count;  // with continue, unfiltered
  std::vector<ServedPtr> items;  // as served alone (apiVersion and kind set)
};

struct WatchEvent {
  std::string type;  // "ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"
  ServedPtr served;  // the object, or a Status for "ERROR"; shared
  const json& object() const { return served->value(); }
};

// A stream of events for one resource (filtered by namespace and selectors).
class ObjectWatcher {
 public:
  virtual ~ObjectWatcher() = default;
  // Waits up to timeout; appends events to out (none on timeout). An error
  // ends the watch; the server sends it as an ERROR event first, except
  // kFellBehind (the client read too slowly), which ends the stream as
  // kube-apiserver's watch cache ends a watcher that fell behind: without
  // an ERROR, so the client watches again from its last resourceVersion.
  virtual Status Next(std::chrono::milliseconds timeout,
                      std::vector<WatchEvent>* out) = 0;
  virtual void Stop() = 0;
  // store::Watcher::SetReadyCallback: called when Next may have something
  // (store events, which filters may still drop, or the watch's end).
  virtual void SetReadyCallback(std::function<void()> callback) = 0;
};

struct DeleteOptions {
  std::optional<int64_t> grace_period_seconds;
  std::string propagation_policy;  // "", "Orphan", "Background", "Foreground"
  std::string precondition_uid;
  std::string precondition_resource_version;
  bool dry_run = false;
  UserInfo user;
  // As WriteOptions::deadline.
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

struct DeleteResult {
  json object;  // the object (with deletionTimestamp if still there)
  bool deleted =
      false;  // true: gone from the store; false: graceful/finalizers
};

class Registry {
 public:
  // served_cache_bytes bounds the decoded objects kept for watchers
  // (ServedObjectCache). `catalog` is what the server serves; null: the
  // registry loads the built-in catalog and owns it.
  Registry(store::Storage* storage, const Clock* clock, Rng* rng,
           size_t served_cache_bytes = ServedObjectCache::kDefaultBudgetBytes,
           api::Catalog* catalog = nullptr);

  // The resources served. Components that need the catalog (the server,
  // controllers) take it from here.
  api::Catalog& catalog() const { return *catalog_; }
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // The items of a virtual kind computed from live state the registry does
  // not hold (the metrics API's, from the kubelets' containers), for a
  // namespace or ("") all: they replace the kind's own virtual_items. Set
  // at start-up, before requests are served.
  struct LiveItems {
    std::function<std::vector<json>(std::string_view ns)> items;
    // The error of a get that finds nothing in namespace ns.
    std::function<Status(std::string_view ns, std::string_view name)> not_found;
  };
  void SetLiveItems(const api::ResourceInfo* res, LiveItems items);

  // subresource: "" or "status" (the object), or "scale" (an
  // autoscaling/v1 Scale built from the object).
  Result<json> Get(const api::ResourceInfo& res, std::string_view ns,
                   std::string_view name, std::string_view subresource = "");
  // The object (or its status subresource, the same object) as a shared,
  // decoded-once ServedObject: what GET serves without copying.
  Result<ServedPtr> GetServed(const api::ResourceInfo& res, std::string_view ns,
                              std::string_view name);
  // The items of a list as shared served objects, with the list's
  // metadata: what LIST serves without copying (see List).
  Result<ServedList> ListServed(const api::ResourceInfo& res,
                                std::string_view ns, const ListOptions& opts);
  // The same items a chunk at a time (see ServedListReader): what a Table
  // or YAML LIST renders without decoding the whole list at once.
  Result<std::unique_ptr<ServedListReader>> ListServedChunks(
      const api::ResourceInfo& res, std::string_view ns,
      const ListOptions& opts);
  // The items of a list as JSON, spliced from stored bytes a chunk at a
  // time (see ListJsonWriter): what a JSON LIST sends. Option errors come
  // back here; read errors from the writer's Next.
  Result<std::unique_ptr<ListJsonWriter>> ListJson(const api::ResourceInfo& res,
                                                   std::string_view ns,
                                                   const ListOptions& opts);
  // Returns the List object (kind <Kind>List, metadata.resourceVersion,
  // continue, remainingItemCount, items).
  Result<json> List(const api::ResourceInfo& res, std::string_view ns,
                    const ListOptions& opts);
  Result<WriteResult> Create(const api::ResourceInfo& res, std::string_view ns,
                             json obj, const WriteOptions& opts);
  // subresource: "" or "status". obj is the full object.
  Result<WriteResult> Update(const api::ResourceInfo& res, std::string_view ns,
                             std::string_view name,
                             std::string_view subresource, json obj,
                             const WriteOptions& opts);
  Result<WriteResult> Patch(const api::ResourceInfo& res, std::string_view ns,
                            std::string_view name, std::string_view subresource,
                            PatchType type, std::string_view body,
                            const WriteOptions& opts);
  Result<DeleteResult> Delete(const api::ResourceInfo& res, std::string_view ns,
                              std::string_view name, const DeleteOptions& opts);
  // Deletes every object matching the selectors; returns the List of what
  // was deleted.
  Result<json> DeleteCollection(const api::ResourceInfo& res,
                                std::string_view ns,
                                const ListOptions& selectors,
                                const DeleteOptions& opts);
  Result<std::unique_ptr<ObjectWatcher>> Watch(const api::ResourceInfo& res,
                                               std::string_view ns,
                                               const WatchOptions& opts);

  // In-process read-modify-write for controllers: mutate() gets the current
  // object and changes it (returning an error aborts). Retries on conflict.
  // A mutation that changes nothing writes nothing. subresource "" or
  // "status". The object comes without metadata.managedFields, as a
  // controller's informer holds it; the write keeps the stored entries and
  // records the caller's changes under opts.field_manager.
  Result<json> GuaranteedUpdate(const api::ResourceInfo& res,
                                std::string_view ns, std::string_view name,
                                std::string_view subresource,
                                const std::function<Status(json&)>& mutate,
                                const WriteOptions& opts);
  // The same, returning the object as shared with its watchers (no copy).
  Result<ServedPtr> GuaranteedUpdateShared(
      const api::ResourceInfo& res, std::string_view ns, std::string_view name,
      std::string_view subresource, const std::function<Status(json&)>& mutate,
      const WriteOptions& opts);

  // pods/binding: sets spec.nodeName (409 if already bound) and the
  // PodScheduled condition.
  Result<json> Bind(std::string_view ns, std::string_view pod_name,
                    const json& binding, const WriteOptions& opts);

  store::Storage* storage() { return storage_; }
  const Clock& clock() const { return *clock_; }
  Rng& rng() { return *rng_; }
  // How often an idle watch with allowWatchBookmarks gets a BOOKMARK
  // (kube-apiserver: about a minute). Set before serving.
  void set_watch_bookmark_interval(std::chrono::milliseconds interval) {
    watch_bookmark_interval_ = interval;
  }
  std::chrono::milliseconds watch_bookmark_interval() const {
    return watch_bookmark_interval_;
  }
  // Decoded objects of recent revisions, shared by every watch.
  ServedObjectCache& served_cache() { return served_cache_; }

  // When true, Delete honours propagationPolicy Orphan and Foreground by
  // adding the orphan / foregroundDeletion finalizers, which only a garbage
  // collector removes. Off until a garbage collector runs.
  void set_garbage_collection(bool on) { garbage_collection_.store(on); }

 private:
  // A virtual kind's items in namespace ns ("" all).
  std::vector<json> VirtualItems(const api::ResourceInfo& res,
                                 std::string_view ns) const;

  std::map<const api::ResourceInfo*, LiveItems> live_items_;
  std::unique_ptr<api::Catalog> owned_catalog_;
  api::Catalog* catalog_;
  // The admission plugins run on create (admission/admission_plugin.h).
  std::vector<std::shared_ptr<const AdmissionPlugin>> admission_;
  // The shared tail of Update, Patch and GuaranteedUpdate: strategy,
  // defaulting, validation and the compare-and-swap write of obj over the
  // stored object `old` read at revision cur_revision.
  // track_fields=false when obj's managedFields are already final (a
  // server-side apply computed them).
  Result<WriteResult> UpdateExisting(const api::ResourceInfo& res,
                                     std::string_view subresource,
                                     const std::string& key,
                                     int64_t cur_revision, const json& old,
                                     json obj, const WriteOptions& opts,
                                     bool track_fields = true);
  // GuaranteedUpdate's loop: the current object when the mutation changed
  // nothing (no write), else the object written.
  struct Updated {
    ServedPtr unchanged;
    json written;
  };
  Result<Updated> UpdateWithRetries(const api::ResourceInfo& res,
                                    std::string_view ns, std::string_view name,
                                    std::string_view subresource,
                                    const std::function<Status(json&)>& mutate,
                                    const WriteOptions& opts);
  // Server-side apply of `config` over `live` (null: a create) by opts'
  // manager: the merged object with its managedFields, or a 409 with
  // FieldManagerConflict causes.
  Result<fieldmanager::ApplyResult> ApplyConfiguration(
      const api::ResourceInfo& res, std::string_view subresource,
      const json& live, const json& config, const WriteOptions& opts);
  // managedFields after a non-apply write by opts' manager (old: null on
  // create).
  Result<json> TrackFields(const api::ResourceInfo& res,
                           std::string_view subresource, const json& old,
                           json obj, const WriteOptions& opts);
  // PUT of the scale subresource: a Scale whose spec.replicas goes into the
  // object through the main strategy.
  Result<WriteResult> UpdateScale(const api::ResourceInfo& res,
                                  std::string_view ns, std::string_view name,
                                  const json& scale, const WriteOptions& opts);
  // Removes an object whose deletion is due (deletionTimestamp set, no
  // finalizers left, grace period 0) after a write.
  Status FinishDeletionIfDue(const api::ResourceInfo& res,
                             const std::string& key, const json& obj,
                             int64_t revision);
  // The kind's allocator, made and seeded from the store on first use;
  // null for kinds that allocate nothing.
  Result<api::ResourceAllocator*> AllocatorFor(const api::ResourceInfo& res);
  // The admission plugins that handle `res`, run on a create's object:
  // the mutating phase, then (after validation) the validating one.
  Status AdmitCreate(const api::ResourceInfo& res, std::string_view ns,
                     json& obj, const WriteOptions& opts);
  Status ValidateCreateAdmission(const api::ResourceInfo& res,
                                 std::string_view ns, const json& obj,
                                 const WriteOptions& opts);
  // Create-time admission: the namespace exists and is not terminating.
  Status AdmitNamespace(const api::ResourceInfo& res, std::string_view ns,
                        const std::string& name);
  // The decode checks of a client's object (fieldValidation), its nesting
  // depth, and the pruning of fields its schema does not know.
  Status ValidateFields(const api::ResourceInfo& res, json& obj,
                        const WriteOptions& opts);
  Result<WriteResult> CreateObject(const api::ResourceInfo& res,
                                   std::string_view ns, json obj,
                                   const WriteOptions& opts,
                                   bool track_fields = true);

  store::Storage* storage_;
  const Clock* clock_;
  Rng* rng_;
  std::chrono::milliseconds watch_bookmark_interval_{60000};
  ServedObjectCache served_cache_;
  // Null when the catalog has no namespaces (then nothing is admitted by
  // namespace).
  std::unique_ptr<NamespaceStates> namespace_states_;
  std::atomic<bool> garbage_collection_{false};
  std::mutex allocators_mu_;
  std::map<const api::ResourceInfo*, std::unique_ptr<api::ResourceAllocator>>
      allocators_;  // GUARDED_BY(allocators_mu_)
};

}  // namespace kmock::registry

#endif  // KMOCK_REGISTRY_REGISTRY_H_
