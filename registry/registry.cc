#include "registry/registry.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "api/catalog_loader.h"
#include "api/decode_check.h"
#include "api/validation.h"
#include "common/json_view.h"
#include "fieldmanager/field_manager.h"
#include "patch/json_depth.h"
#include "patch/json_patch.h"
#include "patch/merge_patch.h"
#include "patch/strategic_merge_patch.h"
#include "registry/api_errors.h"
#include "registry/continue_token.h"
#include "registry/list_cursor.h"
#include "registry/object_codec.h"
#include "registry/object_watcher.h"
#include "registry/scale.h"

namespace kmock::registry {

namespace {

// A write that lost a compare-and-swap is read again and retried, as
// kube-apiserver's GuaranteedUpdate retries it: for as long as it takes,
// since under contention (many writers of one object, a kubelet writing
// status) any fixed count is sometimes reached, and a client that sent no
// resourceVersion must not get a 409 for it. The time bound is only for a
// livelock, which no ordinary load reaches.
class ConflictRetries {
 public:
  bool Next() {
    if (++attempts_ <= 64) return true;
    return std::chrono::steady_clock::now() < deadline_;
  }

 private:
  int attempts_ = 0;
  const std::chrono::steady_clock::time_point deadline_ =
      std::chrono::steady_clock::now() + std::chrono::seconds(30);
};
// Sets *retry: the attempt lost its compare-and-swap and the write may be
// tried again on a fresh read; the Status returned with it is dropped.
Status Retry(bool* retry) {
  *retry = true;
  return Status(StatusCode::kConflict, "retry");
}

// The registry's one read-modify-write loop, as kube-apiserver's
// GuaranteedUpdate: reads `key`, hands the stored value (null: there is
// none) to `attempt(const store::KeyValue*, bool* retry)`, and reads and
// calls it again for as long as it asks (Retry) and ConflictRetries allow;
// then the 409 a client sees for an object modified meanwhile. Every verb
// that changes a stored object goes through it.
template <typename T, typename Attempt>
Result<T> ReadModifyWrite(store::Storage* storage, const api::ResourceInfo& res,
                          std::string_view name, const std::string& key,
                          Attempt attempt) {
  for (ConflictRetries budget; budget.Next();) {
    auto cur = storage->Get(key);
    if (!cur.ok() && cur.status().code() != StatusCode::kNotFound)
      return Internal(cur.status().message());
    bool retry = false;
    Result<T> r = attempt(cur.ok() ? &*cur : nullptr, &retry);
    if (!retry) return r;
  }
  return ModifiedConflict(res, std::string(name));
}

// How many names generateName tries before giving up.
constexpr int kMaxGenerateNameTries = 8;

const json& Meta(const json& obj) {
  static const json kEmpty = json::object();
  auto it = obj.find("metadata");
  return (it != obj.end() && it->is_object()) ? *it : kEmpty;
}

std::string MetaString(const json& obj, const char* field) {
  const json& m = Meta(obj);
  auto it = m.find(field);
  return (it != m.end() && it->is_string()) ? it->get<std::string>() : "";
}

json& MutableMeta(json& obj) {
  json& m = obj["metadata"];
  if (!m.is_object()) m = json::object();
  return m;
}

bool HasFinalizers(const json& obj) {
  const json& m = Meta(obj);
  auto it = m.find("finalizers");
  return it != m.end() && it->is_array() && !it->empty();
}

bool IsDeleting(const json& obj) {
  const json& m = Meta(obj);
  auto it = m.find("deletionTimestamp");
  return it != m.end() && it->is_string();
}

int64_t GracePeriodOf(const json& obj) {
  const json& m = Meta(obj);
  auto it = m.find("deletionGracePeriodSeconds");
  return (it != m.end() && it->is_number_integer()) ? it->get<int64_t>() : 0;
}

// Copies the fields clients may not change from the stored object.
void KeepSystemMetadata(json& obj, const json& old) {
  json& m = MutableMeta(obj);
  const json& om = Meta(old);
  for (const char* f : {"uid", "creationTimestamp", "deletionTimestamp",
                        "deletionGracePeriodSeconds", "generation"}) {
    auto it = om.find(f);
    if (it != om.end())
      m[f] = *it;
    else
      m.erase(f);
  }
  if (m.contains("namespace") || om.contains("namespace"))
    m["namespace"] = om.value("namespace", "");
}

// Whether a mutation left `mine` (from CopyWithoutManagedFields) as `stored`
// was, managedFields aside. Members are compared last first: a controller's
// change is usually in the status, which comes last.
bool UnchangedByMutation(const json& mine, const json& stored) {
  if (!mine.is_object() || !stored.is_object()) return mine == stored;
  const json* stored_fields = nullptr;
  if (auto md = stored.find("metadata"); md != stored.end() && md->is_object())
    if (auto mf = md->find("managedFields"); mf != md->end())
      stored_fields = &*mf;
  if (mine.size() != stored.size()) return false;
  for (auto a = mine.crbegin(), b = stored.crbegin(); a != mine.crend();
       ++a, ++b) {
    if (a.key() != b.key()) return false;
    if (a.key() != "metadata" || stored_fields == nullptr) {
      if (*a != *b) return false;
      continue;
    }
    // The stored metadata has one member more: managedFields.
    if (!a->is_object() || a->size() + 1 != b->size()) return false;
    for (auto m = b->begin(); m != b->end(); ++m) {
      if (&*m == stored_fields) continue;
      auto mm = a->find(m.key());
      if (mm == a->end() || *mm != *m) return false;
    }
  }
  return true;
}

}  // namespace

namespace {

std::unique_ptr<api::Catalog> BuiltinCatalog() {
  auto loaded = api::LoadBuiltinCatalog(api::Schema::Builtin());
  if (!loaded.ok()) {
    std::fprintf(stderr, "kubemock: the built-in resources are broken: %s\n",
                 loaded.status().message().c_str());
    std::abort();
  }
  return std::move(loaded).value();
}

// The schema of res's types and its root type. A catalog loader always
// sets both; resources a test builds by hand name built-in types.
const api::Schema& SchemaOf(const api::ResourceInfo& res) {
  return res.schema != nullptr ? *res.schema : api::Schema::Builtin();
}
const api::Type* TypeOf(const api::ResourceInfo& res) {
  return res.type != nullptr ? res.type : SchemaOf(res).Find(res.schema_type);
}

}  // namespace

Registry::Registry(store::Storage* storage, const Clock* clock, Rng* rng,
                   size_t served_cache_bytes, api::Catalog* catalog)
    : owned_catalog_(catalog == nullptr ? BuiltinCatalog() : nullptr),
      catalog_(catalog == nullptr ? owned_catalog_.get() : catalog),
      storage_(storage),
      clock_(clock),
      rng_(rng),
      served_cache_(served_cache_bytes) {
  admission_ = BuiltinAdmissionPlugins();
  if (const api::ResourceInfo* nsres = catalog_->Find("", "v1", "namespaces")) {
    namespace_states_ =
        std::make_unique<NamespaceStates>(storage, nsres->key_prefix);
  }
}

Result<ServedPtr> Registry::GetServed(const api::ResourceInfo& res,
                                      std::string_view ns,
                                      std::string_view name) {
  auto kv = storage_->Get(ObjectKey(res, ns, name));
  if (!kv.ok()) {
    if (kv.status().code() == StatusCode::kNotFound)
      return NotFound(res, std::string(name));
    return Internal(kv.status().message());
  }
  return served_cache_.Decode(res, kv->key, kv->value, kv->mod_revision);
}

void Registry::SetLiveItems(const api::ResourceInfo* res, LiveItems items) {
  live_items_[res] = std::move(items);
}

std::vector<json> Registry::VirtualItems(const api::ResourceInfo& res,
                                         std::string_view ns) const {
  auto it = live_items_.find(&res);
  if (it != live_items_.end()) return it->second.items(ns);
  return res.virtual_items();
}

Result<json> Registry::Get(const api::ResourceInfo& res, std::string_view ns,
                           std::string_view name,
                           std::string_view subresource) {
  if (res.virtual_items) {
    for (json& item : VirtualItems(res, ns)) {
      if (StringAt(ObjectAt(item, "metadata"), "name") == name) return item;
    }
    if (auto live = live_items_.find(&res); live != live_items_.end())
      return live->second.not_found(ns, name);
    // kube-apiserver's own words, passed on as a bare 500.
    return Status(StatusCode::kUnclassified,
                  "Component not found: " + std::string(name));
  }
  if (subresource == "scale" && !res.scale)
    return NotFound(res, std::string(name));
  const std::string key = ObjectKey(res, ns, name);
  auto kv = storage_->Get(key);
  if (!kv.ok()) {
    if (kv.status().code() == StatusCode::kNotFound)
      return NotFound(res, std::string(name));
    return Internal(kv.status().message());
  }
  KMOCK_ASSIGN_OR_RETURN(json obj, served_cache_.DecodeCopy(res, key, kv->value,
                                                            kv->mod_revision));
  if (subresource == "scale") return ScaleOf(res, obj);
  return obj;
}

Result<WriteResult> Registry::UpdateScale(const api::ResourceInfo& res,
                                          std::string_view ns,
                                          std::string_view name,
                                          const json& scale,
                                          const WriteOptions& opts) {
  if (!res.scale) return NotFound(res, std::string(name));
  if (!scale.is_object())
    return BadRequest("the body of the request must be a Scale object");
  KMOCK_RETURN_IF_ERROR(ValidateScale(scale));
  std::string want_rv;
  if (auto m = scale.find("metadata"); m != scale.end() && m->is_object())
    want_rv = m->value("resourceVersion", "");
  const std::string key = ObjectKey(res, ns, name);
  return ReadModifyWrite<WriteResult>(
      storage_, res, name, key,
      [&](const store::KeyValue* cur, bool* retry) -> Result<WriteResult> {
        if (cur == nullptr) return NotFound(res, std::string(name));
        if (!want_rv.empty() && want_rv != std::to_string(cur->mod_revision))
          return ModifiedConflict(res, std::string(name));
        KMOCK_ASSIGN_OR_RETURN(
            json old, DecodeObject(res, cur->value, cur->mod_revision));
        json obj = old;
        ApplyScale(res, scale, &obj);
        auto r =
            UpdateExisting(res, "", key, cur->mod_revision, old, obj, opts);
        if (!r.ok() && r.status().code() == StatusCode::kConflict &&
            want_rv.empty())
          return Retry(retry);
        if (!r.ok()) return r.status();
        return WriteResult{ScaleOf(res, r->object), false};
      });
}

Result<json> Registry::List(const api::ResourceInfo& res, std::string_view ns,
                            const ListOptions& opts) {
  if (res.virtual_items) {
    KMOCK_ASSIGN_OR_RETURN(Filter filter, MakeFilter(res, opts.label_selector,
                                                     opts.field_selector));
    json items = json::array();
    for (json& item : VirtualItems(res, ns)) {
      if (!filter.Matches(res, item)) continue;
      item.erase("apiVersion");
      item.erase("kind");
      items.push_back(std::move(item));
    }
    return json{{"apiVersion", res.ApiVersion()},
                {"kind", res.list_kind},
                {"metadata", json::object()},
                {"items", std::move(items)}};
  }
  KMOCK_ASSIGN_OR_RETURN(ServedList served, ListServed(res, ns, opts));
  json items = json::array();
  for (const ServedPtr& s : served.items) {
    json item = s->value();
    item.erase("apiVersion");
    item.erase("kind");
    items.push_back(std::move(item));
  }
  json list = {
      {"apiVersion", res.ApiVersion()},
      {"kind", res.list_kind},
      {"metadata", {{"resourceVersion", std::to_string(served.revision)}}},
      {"items", std::move(items)}};
  if (!served.continue_token.empty()) {
    list["metadata"]["continue"] = served.continue_token;
    if (served.remaining_item_count)
      list["metadata"]["remainingItemCount"] = *served.remaining_item_count;
  }
  return list;
}

Result<ServedList> Registry::ListServed(const api::ResourceInfo& res,
                                        std::string_view ns,
                                        const ListOptions& opts) {
  KMOCK_ASSIGN_OR_RETURN(std::unique_ptr<ServedListReader> reader,
                         ListServedChunks(res, ns, opts));
  ServedList list;
  while (true) {
    KMOCK_ASSIGN_OR_RETURN(bool more, reader->Next(&list.items));
    if (!more) break;
  }
  list.revision = reader->revision();
  list.continue_token = reader->continue_token();
  list.remaining_item_count = reader->remaining_item_count();
  return list;
}

Result<std::unique_ptr<ServedListReader>> Registry::ListServedChunks(
    const api::ResourceInfo& res, std::string_view ns,
    const ListOptions& opts) {
  KMOCK_ASSIGN_OR_RETURN(ListCursor cursor,
                         ListCursor::Open(storage_, res, ns, opts));
  return std::make_unique<ServedListReader>(
      std::move(cursor), res, &served_cache_,
      opts.metadata_only && opts.field_selector.empty());
}

Result<std::unique_ptr<ListJsonWriter>> Registry::ListJson(
    const api::ResourceInfo& res, std::string_view ns,
    const ListOptions& opts) {
  KMOCK_ASSIGN_OR_RETURN(ListCursor cursor,
                         ListCursor::Open(storage_, res, ns, opts));
  return std::make_unique<ListJsonWriter>(
      std::move(cursor), res, &served_cache_,
      opts.metadata_only && opts.field_selector.empty());
}

Status Registry::AdmitNamespace(const api::ResourceInfo& res,
                                std::string_view ns, const std::string& name) {
  if (!res.namespaced || !namespace_states_) return Status::Ok();
  auto state = namespace_states_->Lookup(ns);
  if (!state.ok()) return Internal(state.status().message());
  if (*state == NamespaceStates::State::kAbsent)
    return NotFound("", "namespaces", std::string(ns));
  if (*state == NamespaceStates::State::kTerminating) {
    Status st =
        Forbidden(res, name,
                  "unable to create new content in namespace " +
                      std::string(ns) + " because it is being terminated");
    st.mutable_details().causes.push_back(
        {"NamespaceTerminating",
         "namespace " + std::string(ns) + " is being terminated",
         "metadata.namespace"});
    return st;
  }
  return Status::Ok();
}

Status Registry::ValidateFields(const api::ResourceInfo& res, json& obj,
                                const WriteOptions& opts) {
  if (opts.typed_in_process) return Status::Ok();
  // Whatever built it (a patch, an apply, a YAML body), no stored object
  // nests deeper than a request body may: every reader walks it.
  KMOCK_RETURN_IF_ERROR(patch::CheckDepth(obj, "the object"));
  const api::Schema& schema = SchemaOf(res);
  const api::Type* type = TypeOf(res);
  if (!type) return Status::Ok();
  const char* mode =
      opts.field_validation == FieldValidation::kStrict   ? "Strict"
      : opts.field_validation == FieldValidation::kIgnore ? "Ignore"
                                                          : "Warn";
  std::vector<std::string> warnings;
  KMOCK_RETURN_IF_ERROR(api::CheckAndPruneBody(&obj, *type, res.kind,
                                               res.version, mode, &warnings,
                                               schema, opts.body_findings));
  if (opts.warnings)
    opts.warnings->insert(opts.warnings->end(), warnings.begin(),
                          warnings.end());
  return Status::Ok();
}

Result<WriteResult> Registry::Create(const api::ResourceInfo& res,
                                     std::string_view ns, json obj,
                                     const WriteOptions& opts) {
  if (!obj.is_object())
    return BadRequest("the body of the request must be a " + res.kind +
                      " object");
  if (res.virtual_create) {
    obj["apiVersion"] = res.ApiVersion();
    obj["kind"] = res.kind;
    if (res.namespaced) {
      json& meta = MutableMeta(obj);
      const std::string body_ns = meta.value("namespace", "");
      if (!body_ns.empty() && body_ns != ns) {
        return BadRequest(
            "the namespace of the provided object does not match the "
            "namespace sent on the request");
      }
      meta["namespace"] = std::string(ns);
    }
    KMOCK_ASSIGN_OR_RETURN(json out, res.virtual_create(obj, opts.user));
    return WriteResult{std::move(out), true};
  }
  if (res.plural == "bindings") {
    KMOCK_ASSIGN_OR_RETURN(json st,
                           Bind(ns, MetaString(obj, "name"), obj, opts));
    return WriteResult{std::move(st), true};
  }
  return CreateObject(res, ns, std::move(obj), opts);
}

Result<json> Registry::TrackFields(const api::ResourceInfo& res,
                                   std::string_view subresource,
                                   const json& old, json obj,
                                   const WriteOptions& opts) {
  const api::Schema& schema = SchemaOf(res);
  const api::Type* root = TypeOf(res);
  if (!root) return obj;
  fieldmanager::ManagerInfo m;
  m.manager = opts.field_manager.empty() ? "unknown" : opts.field_manager;
  m.api_version = res.ApiVersion();
  m.subresource = std::string(subresource);
  m.time = clock_->Now();
  m.reset_fields = fieldmanager::DefaultResetFields(
      subresource, res.status_strategy != nullptr);
  return fieldmanager::UpdateManagedFields(old, std::move(obj), m, schema,
                                           root);
}

Result<fieldmanager::ApplyResult> Registry::ApplyConfiguration(
    const api::ResourceInfo& res, std::string_view subresource,
    const json& live, const json& config, const WriteOptions& opts) {
  const api::Schema& schema = SchemaOf(res);
  const api::Type* root = TypeOf(res);
  if (!root) return Internal("no schema for " + res.kind);
  fieldmanager::ApplyOptions ao;
  ao.manager = opts.field_manager;
  ao.force = opts.force;
  ao.api_version = res.ApiVersion();
  ao.kind = res.kind;
  ao.subresource = std::string(subresource);
  ao.time = clock_->Now();
  ao.reset_fields = fieldmanager::DefaultResetFields(
      subresource, res.status_strategy != nullptr);
  return fieldmanager::Apply(live, config, ao, schema, root);
}

Status Registry::AdmitCreate(const api::ResourceInfo& res, std::string_view ns,
                             json& obj, const WriteOptions& opts) {
  for (const auto& plugin : admission_) {
    if (!plugin->Handles(res)) continue;
    AdmissionRequest req{&res, ns, &opts.user, opts.dry_run};
    KMOCK_RETURN_IF_ERROR(plugin->AdmitCreate(*this, req, obj));
  }
  return Status::Ok();
}

Status Registry::ValidateCreateAdmission(const api::ResourceInfo& res,
                                         std::string_view ns, const json& obj,
                                         const WriteOptions& opts) {
  for (const auto& plugin : admission_) {
    if (!plugin->Handles(res)) continue;
    AdmissionRequest req{&res, ns, &opts.user, opts.dry_run};
    KMOCK_RETURN_IF_ERROR(plugin->ValidateCreate(*this, req, obj));
  }
  return Status::Ok();
}

Result<WriteResult> Registry::CreateObject(const api::ResourceInfo& res,
                                           std::string_view ns, json obj,
                                           const WriteOptions& opts,
                                           bool track_fields) {
  json& meta = MutableMeta(obj);
  if (res.namespaced) {
    std::string body_ns = meta.value("namespace", "");
    if (!body_ns.empty() && body_ns != ns)
      return BadRequest(
          "the namespace of the provided object does not match the namespace "
          "sent on the request");
    meta["namespace"] = std::string(ns);
  } else {
    meta.erase("namespace");
  }
  obj["apiVersion"] = res.ApiVersion();
  obj["kind"] = res.kind;
  KMOCK_RETURN_IF_ERROR(ValidateFields(res, obj, opts));

  const std::string generate = meta.value("generateName", "");
  const bool generated = meta.value("name", "").empty() && !generate.empty();
  meta["uid"] = rng_->Uuid();
  meta["creationTimestamp"] = FormatRfc3339(clock_->Now());
  for (const char* f : {"resourceVersion", "deletionTimestamp",
                        "deletionGracePeriodSeconds", "selfLink"})
    meta.erase(f);
  // As in kube-apiserver, the writer owns what it sent plus the defaults
  // (decoding defaults), but not what admission adds afterwards (a pod's
  // service-account volume, default tolerations): track in between.
  res.strategy->Default(obj);
  if (track_fields) {
    KMOCK_ASSIGN_OR_RETURN(
        obj, TrackFields(res, "", json(nullptr), std::move(obj), opts));
  }
  res.strategy->PrepareForCreate(obj);
  if (res.record_requester) res.record_requester(obj, opts.user);
  res.strategy->Default(obj);
  KMOCK_RETURN_IF_ERROR(AdmitCreate(res, ns, obj, opts));

  for (int attempt = 0;; ++attempt) {
    if (generated) {
      std::string base =
          generate.substr(0, std::min<size_t>(generate.size(), 58));
      obj["metadata"]["name"] = base + rng_->NameSuffix(5);
    }
    const std::string name = MetaString(obj, "name");
    api::FieldErrors errs;
    api::ValidateObjectMeta(Meta(obj), res.namespaced, res.name_rule, &errs);
    res.strategy->Validate(obj, &errs);
    if (!errs.empty())
      return errs.ToStatus(res.kind, res.group, res.plural, name);
    KMOCK_RETURN_IF_ERROR(AdmitNamespace(res, ns, name));

    const std::string key = ObjectKey(res, ns, name);
    KMOCK_ASSIGN_OR_RETURN(api::ResourceAllocator * alloc, AllocatorFor(res));
    // The store's create refuses an existing key anyway; read first only
    // where an allocation must not be made for a name that is taken, and
    // for a dry run, which never reaches the store.
    if ((alloc || opts.dry_run) && storage_->Get(key).ok() &&
        !(generated && attempt + 1 < kMaxGenerateNameTries))
      return AlreadyExists(res, name);
    if (alloc) KMOCK_RETURN_IF_ERROR(alloc->AllocateForCreate(obj));
    if (Status admitted = ValidateCreateAdmission(res, ns, obj, opts);
        !admitted.ok()) {
      if (alloc) alloc->Release(obj);
      return admitted;
    }
    if (opts.dry_run) {
      if (alloc) alloc->Release(obj);
      return WriteResult{obj, true};
    }
    KMOCK_RETURN_IF_ERROR(CheckDeadline(opts.deadline));
    auto kv = storage_->Create(key, EncodeForWrite(res, obj));
    if (kv.ok()) {
      KMOCK_ASSIGN_OR_RETURN(
          json out,
          ServedAfterWrite(res, std::move(obj), kv->value, kv->mod_revision));
      return WriteResult{std::move(out), true};
    }
    if (alloc) alloc->Release(obj);
    if (kv.status().code() == StatusCode::kAlreadyExists) {
      if (generated && attempt + 1 < kMaxGenerateNameTries) continue;
      return AlreadyExists(res, name);
    }
    return Internal(kv.status().message());
  }
}

Result<WriteResult> Registry::UpdateExisting(
    const api::ResourceInfo& res, std::string_view subresource,
    const std::string& key, int64_t cur_revision, const json& old, json obj,
    const WriteOptions& opts, bool track_fields) {
  const std::string name = MetaString(old, "name");
  obj["apiVersion"] = res.ApiVersion();
  obj["kind"] = res.kind;
  KMOCK_RETURN_IF_ERROR(ValidateFields(res, obj, opts));
  KeepSystemMetadata(obj, old);
  MutableMeta(obj)["resourceVersion"] = MetaString(old, "resourceVersion");
  const api::Strategy* strategy = res.UpdateStrategyFor(subresource);
  if (!strategy) return NotFound(res, name);
  res.strategy->Default(obj);
  strategy->PrepareForUpdate(obj, old);
  if (res.stamp_update_times) res.stamp_update_times(obj, old, clock_->Now());
  if (track_fields) {
    KMOCK_ASSIGN_OR_RETURN(
        obj, TrackFields(res, subresource, old, std::move(obj), opts));
  }

  api::FieldErrors errs;
  api::ValidateObjectMetaUpdate(Meta(obj), Meta(old), &errs);
  api::ValidateObjectMeta(Meta(obj), res.namespaced, res.name_rule, &errs);
  // A subresource write (status, finalize, approval) changes only what
  // its strategy lets through, which that strategy checks; the rest is the
  // stored object's, valid when it was stored. As in kube-apiserver, whose
  // status strategies validate the status alone.
  if (subresource.empty()) res.strategy->Validate(obj, &errs);
  strategy->ValidateUpdate(obj, old, &errs);
  if (!errs.empty())
    return errs.ToStatus(res.kind, res.group, res.plural, name);

  api::ResourceAllocator* alloc = nullptr;
  if (subresource.empty()) {
    KMOCK_ASSIGN_OR_RETURN(alloc, AllocatorFor(res));
    if (alloc) KMOCK_RETURN_IF_ERROR(alloc->AllocateForUpdate(obj, old));
  }
  if (opts.dry_run) {
    if (alloc) alloc->ReleaseAfterUpdate(old, obj);
    return WriteResult{obj, false};
  }
  Status in_time = CheckDeadline(opts.deadline);
  auto kv = in_time.ok()
                ? storage_->Update(key, EncodeForWrite(res, obj), cur_revision)
                : Result<store::KeyValue>(in_time);
  if (alloc) {
    if (kv.ok())
      alloc->ReleaseAfterUpdate(obj, old);
    else
      alloc->ReleaseAfterUpdate(old, obj);
  }
  if (!kv.ok()) {
    if (!in_time.ok()) return in_time;
    if (kv.status().code() == StatusCode::kConflict)
      return ModifiedConflict(res, name);
    if (kv.status().code() == StatusCode::kNotFound) return NotFound(res, name);
    return Internal(kv.status().message());
  }
  KMOCK_ASSIGN_OR_RETURN(
      json out,
      ServedAfterWrite(res, std::move(obj), kv->value, kv->mod_revision));
  KMOCK_RETURN_IF_ERROR(FinishDeletionIfDue(res, key, out, kv->mod_revision));
  return WriteResult{std::move(out), false};
}

Status Registry::FinishDeletionIfDue(const api::ResourceInfo& res,
                                     const std::string& key, const json& obj,
                                     int64_t revision) {
  if (!IsDeleting(obj) || HasFinalizers(obj) || GracePeriodOf(obj) > 0 ||
      res.strategy->DeletionBlocked(obj))
    return Status::Ok();
  auto d = storage_->Delete(key, revision);
  if (d.ok()) {
    KMOCK_ASSIGN_OR_RETURN(api::ResourceAllocator * alloc, AllocatorFor(res));
    if (alloc) alloc->Release(obj);
    return Status::Ok();
  }
  if (d.status().code() != StatusCode::kConflict &&
      d.status().code() != StatusCode::kNotFound)
    return Internal(d.status().message());
  return Status::Ok();
}

Result<api::ResourceAllocator*> Registry::AllocatorFor(
    const api::ResourceInfo& res) {
  if (!res.make_allocator) return static_cast<api::ResourceAllocator*>(nullptr);
  std::lock_guard<std::mutex> l(allocators_mu_);
  auto it = allocators_.find(&res);
  if (it != allocators_.end()) return it->second.get();
  store::ListOptions lo;
  lo.prefix = res.key_prefix;
  auto list = storage_->List(lo);
  if (!list.ok()) return Internal(list.status().message());
  std::vector<json> existing;
  for (const auto& kv : list->items) {
    auto obj = DecodeObject(res, kv.value, kv.mod_revision);
    if (obj.ok()) existing.push_back(std::move(obj).value());
  }
  auto alloc = res.make_allocator(rng_);
  alloc->Seed(existing);
  api::ResourceAllocator* out = alloc.get();
  allocators_.emplace(&res, std::move(alloc));
  return out;
}

Result<WriteResult> Registry::Update(const api::ResourceInfo& res,
                                     std::string_view ns, std::string_view name,
                                     std::string_view subresource, json obj,
                                     const WriteOptions& opts) {
  if (!obj.is_object())
    return BadRequest("the body of the request must be a " + res.kind +
                      " object");
  const std::string body_name = MetaString(obj, "name");
  if (body_name != name)
    return BadRequest("the name of the object (" + body_name +
                      ") does not match the name on the URL (" +
                      std::string(name) + ")");
  if (res.namespaced) {
    std::string body_ns = MetaString(obj, "namespace");
    if (!body_ns.empty() && body_ns != ns)
      return BadRequest(
          "the namespace of the provided object does not match the namespace "
          "sent on the request");
  }
  if (subresource == "scale") return UpdateScale(res, ns, name, obj, opts);
  const std::string key = ObjectKey(res, ns, name);
  const std::string want_rv = MetaString(obj, "resourceVersion");
  return ReadModifyWrite<WriteResult>(
      storage_, res, name, key,
      [&](const store::KeyValue* cur, bool* retry) -> Result<WriteResult> {
        if (cur == nullptr) {
          if (subresource.empty() && res.strategy->AllowCreateOnUpdate())
            return CreateObject(res, ns, std::move(obj), opts);
          return NotFound(res, std::string(name));
        }
        if (!want_rv.empty() && want_rv != std::to_string(cur->mod_revision))
          return ModifiedConflict(res, std::string(name));
        KMOCK_ASSIGN_OR_RETURN(
            json old, DecodeObject(res, cur->value, cur->mod_revision));
        auto r = UpdateExisting(res, subresource, key, cur->mod_revision, old,
                                obj, opts);
        if (!r.ok() && r.status().code() == StatusCode::kConflict &&
            want_rv.empty())
          return Retry(retry);
        return r;
      });
}

Result<WriteResult> Registry::Patch(const api::ResourceInfo& res,
                                    std::string_view ns, std::string_view name,
                                    std::string_view subresource,
                                    PatchType type, std::string_view body,
                                    const WriteOptions& opts) {
  json patch = json::parse(body, nullptr, false);
  if (patch.is_discarded())
    return BadRequest("error decoding patch: invalid JSON");
  const api::Schema& schema = SchemaOf(res);
  if (subresource == "scale") {
    // Patch the Scale view, then write its replicas like a PUT of it.
    if (!res.scale) return NotFound(res, std::string(name));
    return ReadModifyWrite<WriteResult>(
        storage_, res, name, ObjectKey(res, ns, name),
        [&](const store::KeyValue* cur, bool* retry) -> Result<WriteResult> {
          if (cur == nullptr) return NotFound(res, std::string(name));
          KMOCK_ASSIGN_OR_RETURN(
              json obj, DecodeObject(res, cur->value, cur->mod_revision));
          json scale = ScaleOf(res, obj);
          Result<json> patched =
              Status(StatusCode::kInternal, "unknown patch type");
          if (type == PatchType::kJsonPatch)
            patched = patch::ApplyJsonPatch(scale, patch);
          else if (type == PatchType::kMergePatch)
            patched = patch::ApplyMergePatch(scale, patch);
          else
            patched = patch::ApplyStrategicMergePatch(
                scale, patch, api::Schema::Builtin(),
                api::Schema::Builtin().Find("io.k8s.api.autoscaling.v1.Scale"));
          if (!patched.ok()) return patched.status();
          auto r = UpdateScale(res, ns, name, *patched, opts);
          if (!r.ok() && r.status().code() == StatusCode::kConflict &&
              MetaString(patch, "resourceVersion").empty())
            return Retry(retry);
          return r;
        });
  }
  const std::string key = ObjectKey(res, ns, name);
  const api::Type* root = TypeOf(res);
  return ReadModifyWrite<WriteResult>(
      storage_, res, name, key,
      [&](const store::KeyValue* cur, bool* retry) -> Result<WriteResult> {
        if (cur == nullptr) {
          if (type == PatchType::kApply && subresource.empty()) {
            // Server-side apply of a missing object creates it.
            if (!patch.is_object())
              return BadRequest("the body of the request must be an object");
            if (MetaString(patch, "name") != name)
              return BadRequest("the name of the object (" +
                                MetaString(patch, "name") +
                                ") does not match the name on the URL (" +
                                std::string(name) + ")");
            KMOCK_ASSIGN_OR_RETURN(
                fieldmanager::ApplyResult applied,
                ApplyConfiguration(res, subresource, json(nullptr), patch,
                                   opts));
            return CreateObject(res, ns, std::move(applied.object), opts,
                                /*track_fields=*/false);
          }
          return NotFound(res, std::string(name));
        }
        KMOCK_ASSIGN_OR_RETURN(
            json old, DecodeObject(res, cur->value, cur->mod_revision));
        Result<json> patched =
            Status(StatusCode::kInternal, "unknown patch type");
        switch (type) {
          case PatchType::kJsonPatch:
            patched = patch::ApplyJsonPatch(old, patch);
            break;
          case PatchType::kMergePatch:
            patched = patch::ApplyMergePatch(old, patch);
            break;
          case PatchType::kStrategicMerge:
            patched = patch::ApplyStrategicMergePatch(old, patch, schema, root);
            break;
          case PatchType::kApply: {
            auto applied =
                ApplyConfiguration(res, subresource, old, patch, opts);
            if (!applied.ok()) return applied.status();
            patched = std::move(applied).value().object;
            break;
          }
        }
        if (!patched.ok()) return patched.status();
        json obj = std::move(patched).value();
        if (!obj.is_object())
          return BadRequest("the patched object is not an object");
        std::string want_rv = MetaString(obj, "resourceVersion");
        if (!want_rv.empty() && want_rv != std::to_string(cur->mod_revision))
          return ModifiedConflict(res, std::string(name));
        if (MetaString(obj, "name") != name)
          return BadRequest("the name of the object (" +
                            MetaString(obj, "name") +
                            ") does not match the name on the URL (" +
                            std::string(name) + ")");
        auto r = UpdateExisting(res, subresource, key, cur->mod_revision, old,
                                obj, opts,
                                /*track_fields=*/type != PatchType::kApply);
        if (!r.ok() && r.status().code() == StatusCode::kConflict &&
            MetaString(patch, "resourceVersion").empty() &&
            r.status().details().causes.empty())
          return Retry(retry);
        return r;
      });
}

Result<json> Registry::GuaranteedUpdate(
    const api::ResourceInfo& res, std::string_view ns, std::string_view name,
    std::string_view subresource, const std::function<Status(json&)>& mutate,
    const WriteOptions& opts) {
  KMOCK_ASSIGN_OR_RETURN(
      Updated r, UpdateWithRetries(res, ns, name, subresource, mutate, opts));
  if (r.unchanged) return r.unchanged->value();
  return std::move(r.written);
}

Result<ServedPtr> Registry::GuaranteedUpdateShared(
    const api::ResourceInfo& res, std::string_view ns, std::string_view name,
    std::string_view subresource, const std::function<Status(json&)>& mutate,
    const WriteOptions& opts) {
  KMOCK_ASSIGN_OR_RETURN(
      Updated r, UpdateWithRetries(res, ns, name, subresource, mutate, opts));
  if (r.unchanged) return r.unchanged;
  return MakeServed(std::move(r.written));
}

Result<Registry::Updated> Registry::UpdateWithRetries(
    const api::ResourceInfo& res, std::string_view ns, std::string_view name,
    std::string_view subresource, const std::function<Status(json&)>& mutate,
    const WriteOptions& opts) {
  const std::string key = ObjectKey(res, ns, name);
  return ReadModifyWrite<Updated>(
      storage_, res, name, key,
      [&](const store::KeyValue* cur, bool* retry) -> Result<Updated> {
        if (cur == nullptr) return NotFound(res, std::string(name));
        // Usually decoded already, for the informers that saw this revision.
        KMOCK_ASSIGN_OR_RETURN(
            ServedPtr current,
            served_cache_.Decode(res, key, cur->value, cur->mod_revision));
        const json& old = current->value();
        // Without managedFields: the write takes them from the stored object.
        json obj = CopyWithoutManagedFields(old);
        KMOCK_RETURN_IF_ERROR(mutate(obj));
        if (UnchangedByMutation(obj, old)) return Updated{current, json()};
        auto r = UpdateExisting(res, subresource, key, cur->mod_revision, old,
                                std::move(obj), opts);
        if (!r.ok() && r.status().code() == StatusCode::kConflict)
          return Retry(retry);
        if (!r.ok()) return r.status();
        return Updated{nullptr, std::move(r).value().object};
      });
}

Result<DeleteResult> Registry::Delete(const api::ResourceInfo& res,
                                      std::string_view ns,
                                      std::string_view name,
                                      const DeleteOptions& opts) {
  const std::string key = ObjectKey(res, ns, name);
  const std::string sname(name);
  return ReadModifyWrite<DeleteResult>(
      storage_, res, name, key,
      [&](const store::KeyValue* cur, bool* retry) -> Result<DeleteResult> {
        if (cur == nullptr) return NotFound(res, sname);
        KMOCK_ASSIGN_OR_RETURN(
            json obj,
            served_cache_.DecodeCopy(res, key, cur->value, cur->mod_revision));
        if (!opts.precondition_uid.empty() &&
            opts.precondition_uid != MetaString(obj, "uid"))
          return Conflict(res, sname,
                          "Precondition failed: UID in precondition: " +
                              opts.precondition_uid + ", UID in object meta: " +
                              MetaString(obj, "uid"));
        if (!opts.precondition_resource_version.empty() &&
            opts.precondition_resource_version !=
                MetaString(obj, "resourceVersion"))
          return Conflict(
              res, sname,
              "Precondition failed: ResourceVersion in precondition: " +
                  opts.precondition_resource_version +
                  ", ResourceVersion in object meta: " +
                  MetaString(obj, "resourceVersion"));

        KMOCK_RETURN_IF_ERROR(res.strategy->ValidateDelete(obj));
        json updated = obj;
        json& meta = MutableMeta(updated);
        if (garbage_collection_) {
          const char* fin = opts.propagation_policy == "Orphan" ? "orphan"
                            : opts.propagation_policy == "Foreground"
                                ? "foregroundDeletion"
                                : nullptr;
          if (fin) {
            json& f = meta["finalizers"];
            if (!f.is_array()) f = json::array();
            if (std::find(f.begin(), f.end(), fin) == f.end()) f.push_back(fin);
          }
        }
        std::optional<int64_t> grace =
            res.strategy->GracePeriodSeconds(obj, opts.grace_period_seconds);
        const bool graceful = grace.has_value() && *grace > 0;
        const bool blocked =
            HasFinalizers(updated) || res.strategy->DeletionBlocked(updated);
        const bool pending = graceful || blocked;
        if (pending) {
          const int64_t g = grace.value_or(0);
          const TimePoint now = clock_->Now();
          if (!IsDeleting(obj)) {
            meta["deletionTimestamp"] =
                FormatRfc3339(now + std::chrono::seconds(g));
            meta["deletionGracePeriodSeconds"] = g;
            res.strategy->PrepareForDelete(updated);
          } else if (g < GracePeriodOf(obj)) {
            // A shorter grace period replaces a longer one, as upstream allows.
            meta["deletionTimestamp"] =
                FormatRfc3339(now + std::chrono::seconds(g));
            meta["deletionGracePeriodSeconds"] = g;
          }
          if (!graceful && !blocked) {
            // Nothing holds it any more: fall through to the real delete.
          } else {
            if (opts.dry_run || updated == obj)
              return DeleteResult{updated, false};
            KMOCK_RETURN_IF_ERROR(CheckDeadline(opts.deadline));
            auto kv = storage_->Update(key, EncodeForWrite(res, updated),
                                       cur->mod_revision);
            if (!kv.ok()) {
              if (kv.status().code() == StatusCode::kConflict ||
                  kv.status().code() == StatusCode::kNotFound)
                return Retry(retry);
              return Internal(kv.status().message());
            }
            KMOCK_ASSIGN_OR_RETURN(
                json out, ServedAfterWrite(res, std::move(updated), kv->value,
                                           kv->mod_revision));
            return DeleteResult{std::move(out), false};
          }
        }
        if (opts.dry_run) return DeleteResult{obj, true};
        KMOCK_RETURN_IF_ERROR(CheckDeadline(opts.deadline));
        auto d = storage_->Delete(key, cur->mod_revision);
        if (!d.ok()) {
          if (d.status().code() == StatusCode::kConflict) return Retry(retry);
          if (d.status().code() == StatusCode::kNotFound)
            return NotFound(res, sname);
          return Internal(d.status().message());
        }
        KMOCK_ASSIGN_OR_RETURN(api::ResourceAllocator * alloc,
                               AllocatorFor(res));
        if (alloc) alloc->Release(obj);
        return DeleteResult{std::move(obj), true};
      });
}

Result<json> Registry::DeleteCollection(const api::ResourceInfo& res,
                                        std::string_view ns,
                                        const ListOptions& selectors,
                                        const DeleteOptions& opts) {
  ListOptions lo = selectors;
  lo.limit = 0;
  lo.continue_token.clear();
  KMOCK_ASSIGN_OR_RETURN(json list, List(res, ns, lo));
  json deleted = json::array();
  for (const auto& item : list["items"]) {
    const json& m = Meta(item);
    auto r = Delete(res, m.value("namespace", ""), m.value("name", ""), opts);
    if (!r.ok()) {
      if (r.status().code() == StatusCode::kNotFound) continue;
      return r.status();
    }
    json obj = std::move(r).value().object;
    obj.erase("apiVersion");
    obj.erase("kind");
    deleted.push_back(std::move(obj));
  }
  list["items"] = std::move(deleted);
  return list;
}

Result<std::unique_ptr<ObjectWatcher>> Registry::Watch(
    const api::ResourceInfo& res, std::string_view ns,
    const WatchOptions& opts) {
  return StartObjectWatch(this, res, ns, opts);
}

Result<json> Registry::Bind(std::string_view ns, std::string_view pod_name,
                            const json& binding, const WriteOptions& opts) {
  const api::ResourceInfo* pods = catalog_->Find("", "v1", "pods");
  if (!pods) return Internal("pods are not served");
  std::string node;
  if (auto t = binding.find("target"); t != binding.end() && t->is_object())
    node = t->value("name", "");
  const std::string name(pod_name);
  if (name.empty() || node.empty()) {
    api::FieldErrors errs;
    if (name.empty())
      errs.Required("metadata.name", "name or generateName is required");
    if (node.empty()) errs.Required("target.name");
    return errs.ToStatus("Binding", "", "bindings", name);
  }
  const std::string key = ObjectKey(*pods, ns, name);
  auto bound_pod = ReadModifyWrite<bool>(
      storage_, *pods, name, key,
      [&](const store::KeyValue* cur, bool* retry) -> Result<bool> {
        if (cur == nullptr) return NotFound(*pods, name);
        KMOCK_ASSIGN_OR_RETURN(json pod,
                               served_cache_.DecodeCopy(*pods, key, cur->value,
                                                        cur->mod_revision));
        auto conflict = [&](const std::string& message) {
          api::ResourceInfo binding_res = *pods;
          binding_res.plural = "pods/binding";
          return Conflict(binding_res, name, message);
        };
        if (IsDeleting(pod))
          return conflict("pod " + name +
                          " is being deleted, cannot be assigned to a host");
        std::string bound = pod["spec"].value("nodeName", "");
        if (!bound.empty())
          return conflict("pod " + name + " is already assigned to node \"" +
                          bound + "\"");
        pod["spec"]["nodeName"] = node;
        json& status = pod["status"];
        if (!status.is_object()) status = json::object();
        json& conds = status["conditions"];
        if (!conds.is_array()) conds = json::array();
        json cond = {{"type", "PodScheduled"},
                     {"status", "True"},
                     {"lastProbeTime", nullptr},
                     {"lastTransitionTime", FormatRfc3339(clock_->Now())}};
        bool replaced = false;
        for (auto& c : conds)
          if (c.value("type", "") == "PodScheduled") {
            c = cond;
            replaced = true;
          }
        if (!replaced) conds.push_back(cond);
        if (opts.dry_run) return true;
        auto kv = storage_->Update(key, EncodeForWrite(*pods, pod),
                                   cur->mod_revision);
        if (!kv.ok()) {
          if (kv.status().code() == StatusCode::kConflict) return Retry(retry);
          // Deleted between the read and the write.
          if (kv.status().code() == StatusCode::kNotFound)
            return NotFound(*pods, name);
          return Internal(kv.status().message());
        }
        return true;
      });
  if (!bound_pod.ok()) return bound_pod.status();
  return json{{"kind", "Status"},
              {"apiVersion", "v1"},
              {"metadata", json::object()},
              {"status", "Success"},
              {"code", 201}};
}

}  // namespace kmock::registry
