// What the server serves: one ResourceInfo per resource (kind), loaded from
// the data in api/resources/*.yaml (api/catalog_loader.h), in the manner of
// a CRD: names, scope, verbs, subresources, store key prefix, printer
// columns, selectable fields and the per-kind strategy.
//
// Discovery, routing, the registry pipeline, Table output and field
// selectors are all driven from a Catalog; nothing else lists kinds.
//
// Thread safety: a ResourceInfo is immutable once added to a Catalog and
// lives as long as the Catalog. The Catalog may take new resources while
// the server runs (Add); every accessor is safe from any thread and sees
// either the catalog before an Add or after it. Strategies must be
// stateless (const methods, no mutable members).
#ifndef KMOCK_API_RESOURCE_H_
#define KMOCK_API_RESOURCE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/field_errors.h"
#include "api/schema.h"
#include "common/clock.h"
#include "common/rng.h"
#include "common/status.h"

namespace kmock::api {

using nlohmann::json;

// Who is making a request, as authentication found it.
struct UserInfo {
  std::string name;  // "kubernetes-admin", "system:kube-scheduler", ...
  std::string uid;
  std::vector<std::string> groups;
};

// A Table column, as metav1.TableColumnDefinition.
struct PrinterColumn {
  std::string name;         // "Name", "Ready", "Status", ...
  std::string type;         // "string", "integer", "date", ...
  std::string format;       // "name" for the name column, else ""
  std::string description;  // our own words
  int priority = 0;         // > 0: shown only with -o wide
  std::string json_path;    // where the value is (".status.phase")
  std::string cell;         // how it is printed ("age", "podStatus", "")
};

struct Subresource {
  std::string name;  // "status", "binding", "scale", "log", ...
  // The kind the subresource speaks (Scale is autoscaling/v1 Scale).
  std::string group, version, kind;
  std::vector<std::string> verbs;
};

// A field usable in a fieldSelector, and where its value is in the object.
struct SelectableField {
  std::string name;  // "spec.nodeName"
  // Evaluates the field on an object: the value as a string ("" if absent).
  std::function<std::string(const json& obj)> value;
  // The top-level members `value` reads ("spec"): an object holding only
  // those evaluates the same. Empty: unknown, it may read any member.
  std::vector<std::string> reads = {};
};

// The scale subresource (served as autoscaling/v1 Scale), declared as a
// CRD declares it: where the replica counts and the selector live.
struct ScaleSubresource {
  std::string spec_replicas_path = "spec.replicas";      // dotted JSON path
  std::string status_replicas_path = "status.replicas";  // dotted JSON path
  // A metav1.LabelSelector object whose string form ("app=web") becomes
  // Scale.status.selector.
  std::string selector_path = "spec.selector";
};

// Per-kind behaviour the schema cannot say. Every method has a neutral
// default; a kind overrides only what differs. Methods are const and must
// not keep state.
class Strategy {
 public:
  virtual ~Strategy() = default;

  // Before validation on create: reset fields the client may not set
  // (status for kinds with a status subresource), set generation. May mutate.
  virtual void PrepareForCreate(json& obj) const;
  // Before validation on update of the main resource: keep the old status
  // (kinds with a status subresource), bump generation on spec changes.
  virtual void PrepareForUpdate(json& obj, const json& old) const;
  // Fills in defaults, as kube-apiserver's defaulting does. May mutate.
  virtual void Default(json& obj) const;
  // All errors of a new object (the registry has already checked metadata).
  virtual void Validate(const json& obj, FieldErrors* errs) const;
  // All errors of an update (immutable fields and so on).
  virtual void ValidateUpdate(const json& obj, const json& old,
                              FieldErrors* errs) const;
  // Whether an update may create a missing object.
  virtual bool AllowCreateOnUpdate() const { return false; }
  // Refuses a delete (e.g. 403 for the namespaces a cluster cannot lose).
  virtual Status ValidateDelete(const json& obj) const;
  // Marks an object whose deletion has begun but must wait (a namespace
  // goes Terminating). Called once, when deletionTimestamp is first set.
  virtual void PrepareForDelete(json& obj) const;
  // Whether something besides metadata.finalizers and the grace period
  // keeps a deleted object (a namespace's spec.finalizers).
  virtual bool DeletionBlocked(const json& obj) const;
  // Graceful deletion: the grace period to apply given what the client asked
  // (nullopt: the kind's default). nullopt result = delete at once.
  virtual std::optional<int64_t> GracePeriodSeconds(
      const json& obj, std::optional<int64_t> requested) const;
};

// The status subresource of a kind: update keeps the spec, takes the status.
class StatusStrategy : public Strategy {
 public:
  explicit StatusStrategy(const Strategy* main) : main_(main) {}
  void PrepareForUpdate(json& obj, const json& old) const override;
  void ValidateUpdate(const json& obj, const json& old,
                      FieldErrors* errs) const override;

 private:
  const Strategy* main_;
};

// Shared resources a kind takes at admission time that no single object can
// check on its own (a Service's cluster IP and node ports must be unique
// across all Services). The registry keeps one per kind, seeds it from the
// stored objects on first use, and calls it around every write.
//
// Thread safety: implementations must be safe from many threads.
class ResourceAllocator {
 public:
  virtual ~ResourceAllocator() = default;
  // Reserves what the existing objects hold.
  virtual void Seed(const std::vector<json>& existing) = 0;
  // Fills in and reserves what a new object needs; on error nothing stays
  // reserved and the Status is the full API error (e.g. a 422).
  virtual Status AllocateForCreate(json& obj) = 0;
  // Reserves what an update needs that `old` did not hold.
  virtual Status AllocateForUpdate(json& obj, const json& old) = 0;
  // After a committed update: frees what `old` held and `obj` does not.
  // After a failed one the registry calls it with the arguments swapped.
  virtual void ReleaseAfterUpdate(const json& obj, const json& old) = 0;
  // Frees everything obj holds (after a delete or a failed create).
  virtual void Release(const json& obj) = 0;
};

struct ResourceInfo {
  std::string group;                     // "" for core
  std::string version;                   // "v1"
  std::string kind;                      // "Pod"
  std::string list_kind;                 // "PodList"
  std::string plural;                    // "pods"
  std::string singular;                  // "pod"
  std::vector<std::string> short_names;  // {"po"}
  std::vector<std::string> categories;   // {"all"}
  bool namespaced = true;
  std::vector<std::string> verbs;  // sorted: create delete deletecollection get
                                   // list patch update watch
  std::vector<Subresource> subresources;
  // Store key prefix, as kube-apiserver lays out etcd: "/registry/pods/".
  // Keys are prefix + "<ns>/<name>" or prefix + "<name>".
  std::string key_prefix;
  // Root type in the schema, e.g. "io.k8s.api.core.v1.Pod".
  std::string schema_type;
  // The schema holding the kind's types (the built-in one, or a custom
  // kind's own) and the root type in it; set by the catalog loader, never
  // null in a loaded catalog. The schema outlives the catalog.
  const Schema* schema = nullptr;
  const Type* type = nullptr;
  // Name rule: "subdomain" (DNS-1123 subdomain), "label" (DNS-1123 label),
  // "dns1035" (DNS-1035 label) or "path" (a valid path segment).
  std::string name_rule = "subdomain";
  // Whether metadata.generation is kept (1 on create, bumped on spec
  // changes) by the generic strategy.
  bool keeps_generation = false;
  // Sent as a Warning header with every request to the resource (a
  // deprecated API: "v1 Endpoints is deprecated in v1.33+; ...").
  std::string warning;

  // Table output.
  std::vector<PrinterColumn> columns;
  // One row's cells for obj, in column order. `now` computes ages.
  std::function<std::vector<json>(const json& obj, TimePoint now)> cells;
  // The order of a list's Table rows where kube-apiserver's printer sorts
  // them (FlowSchemas by matching precedence); null: the list's order.
  std::function<bool(const json& a, const json& b)> table_row_less;

  // Fields usable in fieldSelector besides metadata.name/metadata.namespace.
  std::vector<SelectableField> selectable_fields;

  const Strategy* strategy = nullptr;
  const Strategy* status_strategy = nullptr;  // set iff "status" subresource
  // The strategies of the other subresources written as the kind itself
  // ("finalize" of namespaces, "approval" of signing requests), by name.
  std::map<std::string, const Strategy*, std::less<>> subresource_strategies;
  // Strategies made for this resource alone (the generic ones), which the
  // pointers above may point into.
  std::vector<std::shared_ptr<const Strategy>> owned_strategies;

  // The times kube-apiserver's strategy stamps on an update of the kind or
  // any of its subresources (a signing request's condition times), after
  // the strategy's preparation. Null: none.
  std::function<void(json& obj, const json& old, TimePoint now)>
      stamp_update_times;

  // Records who asks on create, where the kind keeps it (a signing
  // request's spec.username, uid and groups). Null: nothing to record.
  std::function<void(json& obj, const UserInfo& user)> record_requester;

  // Kinds that are computed, never stored (SelfSubjectAccessReview,
  // SelfSubjectReview): create answers with what this returns (the request
  // object with its status filled in) and writes nothing.
  std::function<Result<json>(const json& request, const UserInfo& user)>
      virtual_create;

  // Kinds whose objects the server computes (ComponentStatus): get and
  // list answer these, nothing is stored or written. Null for stored kinds.
  std::function<std::vector<json>()> virtual_items;

  // Set iff the kind has a "scale" subresource.
  std::optional<ScaleSubresource> scale;

  // Makes the kind's allocator (null: the kind allocates nothing).
  std::function<std::unique_ptr<ResourceAllocator>(Rng* rng)> make_allocator;

  // Resources that share their objects with another (events.k8s.io/v1
  // events over core/v1 events): the stored form and converters. Null when
  // the resource stores its own form.
  std::function<json(const json& stored)> from_storage;
  std::function<json(const json& served)> to_storage;

  std::string ApiVersion() const {
    return group.empty() ? version : group + "/" + version;
  }
  // "pods" or "deployments.apps": how errors name the resource.
  std::string QualifiedName() const {
    return group.empty() ? plural : plural + "." + group;
  }
  bool HasVerb(std::string_view verb) const;
  // The strategy of an update of the resource ("") or of one of its
  // subresources written as the kind itself (status, finalize, approval);
  // null if the resource has no such subresource.
  const Strategy* UpdateStrategyFor(std::string_view subresource) const;
  const Subresource* FindSubresource(std::string_view name) const;
};

// The resources of one moment of a Catalog, for iterating: keeps what it
// lists alive however the catalog changes meanwhile.
class CatalogView {
 public:
  using Items = std::vector<const ResourceInfo*>;
  explicit CatalogView(const Items* items) : items_(items) {}
  Items::const_iterator begin() const { return items_->begin(); }
  Items::const_iterator end() const { return items_->end(); }
  size_t size() const { return items_->size(); }
  const ResourceInfo* operator[](size_t i) const { return (*items_)[i]; }
  bool empty() const { return items_->empty(); }

 private:
  const Items* items_;
};

class Catalog {
 public:
  Catalog();
  ~Catalog();
  Catalog(const Catalog&) = delete;
  Catalog& operator=(const Catalog&) = delete;

  // Every resource, in the order added.
  CatalogView resources() const;
  // By group, version and plural (or a subresource-less path segment).
  const ResourceInfo* Find(std::string_view group, std::string_view version,
                           std::string_view plural) const;
  const ResourceInfo* FindByKind(std::string_view group,
                                 std::string_view version,
                                 std::string_view kind) const;
  // Group/versions in discovery order: "" first, then groups by name.
  std::vector<std::pair<std::string, std::string>> GroupVersions() const;
  // Counts the changes: caches built from the catalog compare it.
  uint64_t generation() const;

  // Adds a resource (409-class Status if group/version/plural is taken).
  Status Add(std::unique_ptr<ResourceInfo> info);

 private:
  struct State;
  std::atomic<const State*> state_;
  std::mutex write_mu_;
  // Every state ever published (readers may still hold one) and every
  // resource added: freed with the catalog.
  std::vector<std::unique_ptr<const State>> states_;
  std::vector<std::unique_ptr<ResourceInfo>> owned_;
};

}  // namespace kmock::api

#endif  // KMOCK_API_RESOURCE_H_
