#include "fieldmanager/field_manager.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "common/json_view.h"
#include "fieldmanager/managed_fields.h"
#include "fieldmanager/typed_ops.h"
#include "patch/json_depth.h"

namespace kmock::fieldmanager {

using nlohmann::json;

namespace {

constexpr char kLastApplied[] =
    "kubectl.kubernetes.io/last-applied-configuration";
constexpr size_t kMaxUpdateManagers = 10;

// What upstream strips from every manager's set (exact paths only).
const FieldSet& StrippedFields() {
  static const FieldSet* kSet = [] {
    auto* s = new FieldSet();
    s->Insert({"f:apiVersion"});
    s->Insert({"f:kind"});
    s->Insert({"f:metadata"});
    for (const char* f :
         {"name", "namespace", "creationTimestamp", "selfLink", "uid",
          "clusterName", "generation", "managedFields", "resourceVersion"}) {
      s->Insert({"f:metadata", std::string("f:") + f});
    }
    return s;
  }();
  return *kSet;
}

FieldSet ResetSet(const std::vector<Path>& paths) {
  FieldSet s;
  for (const Path& p : paths) s.Insert(p);
  return s;
}

// Removes ignored and untracked paths.
FieldSet Filter(const FieldSet& s, const FieldSet& reset) {
  return s.RecursiveDifference(reset).Difference(StrippedFields());
}

json WithoutManagedFields(json obj) {
  if (obj.is_object()) {
    auto md = obj.find("metadata");
    if (md != obj.end() && md->is_object()) md->erase("managedFields");
  }
  return obj;
}

const json* ManagedFieldsOf(const json& obj) {
  if (!obj.is_object()) return nullptr;
  auto md = obj.find("metadata");
  if (md == obj.end() || !md->is_object()) return nullptr;
  auto mf = md->find("managedFields");
  return mf == md->end() ? nullptr : &*mf;
}

void StoreManagedFields(json& obj, std::vector<ManagedEntry> entries) {
  // metadata that is not an object has no place for them; the decode
  // check that follows rejects such an object with 400.
  if (!obj.is_object()) return;
  auto md = obj.find("metadata");
  if (md != obj.end() && !md->is_object()) return;
  json list = EncodeManagedFields(std::move(entries));
  if (list.empty()) {
    if (md != obj.end()) md->erase("managedFields");
    return;
  }
  obj["metadata"]["managedFields"] = std::move(list);
}

std::vector<ManagedEntry> DecodeOrEmpty(const json* list) {
  if (list == nullptr) return {};
  auto r = DecodeManagedFields(*list);
  return r.ok() ? std::move(r).value() : std::vector<ManagedEntry>{};
}

// Merges the oldest Update entries into "ancient-changes" buckets (one per
// apiVersion) until at most kMaxUpdateManagers Update entries remain.
void CapUpdateManagers(std::vector<ManagedEntry>& entries) {
  auto count = [&] {
    return std::count_if(
        entries.begin(), entries.end(),
        [](const ManagedEntry& e) { return e.operation != "Apply"; });
  };
  if (static_cast<size_t>(count()) <= kMaxUpdateManagers) return;
  std::vector<ManagedEntry> updates, others;
  for (ManagedEntry& e : entries)
    (e.operation == "Apply" ? others : updates).push_back(std::move(e));
  std::stable_sort(updates.begin(), updates.end(),
                   [](const ManagedEntry& a, const ManagedEntry& b) {
                     if (a.time != b.time) return a.time < b.time;
                     return a.Identifier() < b.Identifier();
                   });
  std::vector<ManagedEntry> kept;
  std::map<std::string, ManagedEntry> buckets;
  size_t remaining = updates.size();
  for (ManagedEntry& e : updates) {
    if (remaining + buckets.size() <= kMaxUpdateManagers ||
        e.manager == "ancient-changes") {
      kept.push_back(std::move(e));
      continue;
    }
    auto [it, inserted] = buckets.try_emplace(e.api_version);
    ManagedEntry& b = it->second;
    if (inserted) {
      b.manager = "ancient-changes";
      b.operation = "Update";
      b.api_version = e.api_version;
    }
    b.fields = b.fields.Union(e.fields);
    b.time = std::max(b.time, e.time);
    --remaining;
  }
  entries = std::move(others);
  for (auto& [_, b] : buckets) entries.push_back(std::move(b));
  for (ManagedEntry& e : kept) entries.push_back(std::move(e));
}

// The fields a client-side apply already claims (the last-applied
// annotation) whose live values still agree with it.
bool AllowedFromLastApplied(const json& live, const TypeNode& rt,
                            FieldSet* out) {
  const json* md = live.contains("metadata") ? &live["metadata"] : nullptr;
  if (md == nullptr || !md->contains("annotations")) return false;
  const json& ann = (*md)["annotations"];
  if (!ann.is_object() || !ann.contains(kLastApplied) ||
      !ann[kLastApplied].is_string() ||
      ann[kLastApplied].get<std::string>().empty())
    return false;
  json last = json::parse(ann[kLastApplied].get<std::string>(), nullptr, false);
  if (!last.is_object()) return false;
  auto set = ToFieldSet(last, rt, false);
  if (!set.ok()) return false;
  Comparison c = Compare(last, live, rt);
  *out = set->Difference(c.modified);
  return true;
}

// encoding/json's output: HTML characters escaped.
std::string GoJson(const json& v) {
  std::string s = v.dump();
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    if (ch == '<')
      out += "\\u003c";
    else if (ch == '>')
      out += "\\u003e";
    else if (ch == '&')
      out += "\\u0026";
    else
      out += ch;
  }
  return out;
}

std::string BuildLastApplied(json obj) {
  if (obj.contains("metadata") && obj["metadata"].is_object() &&
      obj["metadata"].contains("annotations") &&
      obj["metadata"]["annotations"].is_object()) {
    obj["metadata"]["annotations"].erase(kLastApplied);
  }
  return GoJson(obj) + "\n";
}

std::string GvkString(const std::string& api_version, const std::string& kind) {
  std::string group, version = api_version;
  size_t slash = api_version.find('/');
  if (slash != std::string::npos) {
    group = api_version.substr(0, slash);
    version = api_version.substr(slash + 1);
  }
  return group + "/" + version + ", Kind=" + kind;
}

std::string StringAt(const json& obj, const char* key) {
  if (!obj.is_object()) return "";
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : "";
}

Status ConflictError(
    const std::vector<ManagedEntry>& entries,
    const std::vector<std::pair<size_t, FieldSet>>& conflicts) {
  struct One {
    const ManagedEntry* entry;
    Path path;
  };
  std::vector<std::pair<std::string, size_t>> order;
  for (size_t i = 0; i < conflicts.size(); ++i)
    order.emplace_back(entries[conflicts[i].first].Identifier(), i);
  std::sort(order.begin(), order.end());
  std::vector<One> all;
  for (const auto& [_, i] : order) {
    const ManagedEntry* e = &entries[conflicts[i].first];
    conflicts[i].second.Iterate([&](const Path& p) { all.push_back({e, p}); });
  }
  StatusDetails details;
  for (const One& c : all) {
    details.causes.push_back({"FieldManagerConflict",
                              "conflict with " + c.entry->Printed(),
                              PathString(c.path)});
  }
  std::string message;
  if (all.size() == 1) {
    message = "Apply failed with 1 conflict: conflict with " +
              all[0].entry->Printed() + ": " + PathString(all[0].path);
  } else {
    message =
        "Apply failed with " + std::to_string(all.size()) + " conflicts: ";
    const ManagedEntry* current = nullptr;
    bool first = true;
    for (const One& c : all) {
      if (c.entry != current) {
        current = c.entry;
        if (!first) message += "\n";
        message += "conflicts with " + c.entry->Printed() + ":";
        first = false;
      }
      message += "\n- " + PathString(c.path);
    }
  }
  return Status(StatusCode::kConflict, std::move(message), std::move(details));
}

}  // namespace

std::vector<Path> DefaultResetFields(std::string_view subresource,
                                     bool has_status_subresource) {
  if (!has_status_subresource) return {};
  if (subresource == "status") return {{"f:spec"}};
  // A signing request's approval: only its Approved and Denied conditions.
  if (subresource == "approval")
    return {{"f:spec"}, {"f:status", "f:certificate"}};
  if (subresource.empty()) return {{"f:status"}};
  return {};
}

namespace {

// The exact path of metadata.managedFields.
const FieldSet& ManagedFieldsPath() {
  static const FieldSet* kSet = [] {
    auto* s = new FieldSet();
    s->Insert({"f:metadata", "f:managedFields"});
    return s;
  }();
  return *kSet;
}

ManagedEntry SelfEntry(const ManagerInfo& m) {
  return ManagedEntry{
      m.manager, "Update", m.api_version, m.subresource, FormatRfc3339(m.time),
      {}};
}

// What an Update does to the managers' entries: the others lose what
// changed or went away, the writer gains `mine`.
struct UpdateSets {
  FieldSet changed, removed, mine;
};

// The top-level members whose whole subtree is reset ("spec" for a status
// write): a comparison need not look inside them, SetsOf drops it all.
std::vector<std::string> ResetMembers(const std::vector<Path>& reset_fields) {
  std::vector<std::string> out;
  for (const Path& p : reset_fields) {
    if (p.size() == 1 && p[0].starts_with("f:")) out.push_back(p[0].substr(2));
  }
  return out;
}

// others_owned: whether other managers' entries are to be updated from
// changed and removed; without them (a create) the writer's own set is
// made from changed in place instead of from a copy.
UpdateSets SetsOf(Comparison c, const FieldSet& reset, bool others_owned) {
  UpdateSets u;
  // The comparison's sets are consumed in place, not copied.
  u.changed = std::move(c.modified).Union(c.added).RecursiveDifference(reset);
  // Reset fields limit what this writer may take, not what others own: a
  // status write must not take spec ownership from the spec's appliers.
  u.removed = std::move(c.removed).RecursiveDifference(reset);
  // Filter(u.changed, reset), whose reset part is already gone from changed.
  u.mine = others_owned ? u.changed.Difference(StrippedFields())
                        : std::move(u.changed).Difference(StrippedFields());
  return u;
}

// The managedFields list after an Update, starting from the entries stored
// with the old object: an entry the write does not touch is kept as
// stored, without decoding and encoding its fields again (a status write
// leaves the spec's managers alone). nullopt where the general path must
// run: an entry it cannot read, or more Update managers than are kept.
std::optional<json> UpdateStoredEntries(const json& stored, const UpdateSets& u,
                                        const ManagerInfo& m) {
  // An empty list: the object is untracked, as the general path keeps it.
  if (!stored.is_array() || stored.empty()) return std::nullopt;
  struct Kept {
    ManagedEntry entry;
    const json* as_stored;  // null: encode entry.fields
  };
  std::vector<Kept> kept;
  kept.reserve(stored.size() + 1);
  const ManagedEntry self = SelfEntry(m);
  bool self_seen = false;
  for (const json& j : stored) {
    ManagedEntry e;
    if (!DecodeEntryIdentity(j, &e)) return std::nullopt;
    const json& fields_v1 = j["fieldsV1"];
    const bool is_self = !u.mine.empty() && e.SameIdentity(self);
    if (!is_self && !u.changed.SharesMemberWith(fields_v1) &&
        !u.removed.SharesMemberWith(fields_v1)) {
      if (!fields_v1.empty()) kept.push_back({std::move(e), &j});
      continue;
    }
    auto fields = FieldSet::FromFieldsV1(fields_v1);
    if (!fields.ok()) return std::nullopt;
    e.fields = std::move(*fields).Difference(u.changed).Difference(u.removed);
    if (is_self) {
      e.fields = std::move(e.fields).Union(u.mine);
      e.time = self.time;
      self_seen = true;
    }
    if (!e.fields.empty()) kept.push_back({std::move(e), nullptr});
  }
  if (!self_seen && !u.mine.empty()) {
    kept.push_back({self, nullptr});
    kept.back().entry.fields = u.mine;
  }
  const size_t updates =
      std::count_if(kept.begin(), kept.end(),
                    [](const Kept& k) { return k.entry.operation != "Apply"; });
  if (updates > kMaxUpdateManagers) return std::nullopt;
  std::stable_sort(kept.begin(), kept.end(), [](const Kept& a, const Kept& b) {
    return StoredBefore(a.entry, b.entry);
  });
  json list = json::array();
  for (const Kept& k : kept) {
    list.push_back(
        k.as_stored != nullptr
            ? *k.as_stored
            : EncodeManagedEntry(k.entry, k.entry.fields.ToFieldsV1()));
  }
  return list;
}

// Sets metadata.managedFields to list (removes it when empty).
void SetManagedFieldsList(json& obj, json list) {
  if (!obj.is_object()) return;
  auto md = obj.find("metadata");
  if (md != obj.end() && !md->is_object()) return;
  if (list.empty()) {
    if (md != obj.end()) md->erase("managedFields");
    return;
  }
  obj["metadata"]["managedFields"] = std::move(list);
}

}  // namespace

Result<json> UpdateManagedFields(const json& old_obj, json new_obj,
                                 const ManagerInfo& m,
                                 const TypeResolver& resolver,
                                 const api::Type* root) {
  if (!new_obj.is_object()) return new_obj;
  const bool create = old_obj.is_null();
  const TypeNode rt = TypeNode::ForType(&resolver, root);
  const FieldSet reset = ResetSet(m.reset_fields);
  const std::vector<std::string> skip = ResetMembers(m.reset_fields);
  const json* stored = create ? nullptr : ManagedFieldsOf(old_obj);
  const json* sent = ManagedFieldsOf(new_obj);
  const bool from_stored = !m.subresource.empty() || sent == nullptr;

  // The common write (a controller's or kubelet's update that sends the
  // stored entries back, or none, or a status write): the old object is
  // compared as it is, its managedFields left out of what was removed.
  if (stored != nullptr && (from_stored || *sent == *stored)) {
    new_obj = WithoutManagedFields(std::move(new_obj));
    Comparison c = Compare(old_obj, new_obj, rt, skip);
    c.removed = std::move(c.removed).Difference(ManagedFieldsPath());
    UpdateSets u = SetsOf(std::move(c), reset, /*others_owned=*/true);
    if (auto list = UpdateStoredEntries(*stored, u, m)) {
      SetManagedFieldsList(new_obj, std::move(*list));
      return new_obj;
    }
  }

  // Where the managers start from.
  std::vector<ManagedEntry> entries;
  if (from_stored) {
    entries = DecodeOrEmpty(stored);
  } else if (!IsResetManagedFields(*sent)) {
    auto decoded = DecodeManagedFields(*sent);
    if (decoded.ok() && !decoded->empty()) {
      entries = std::move(decoded).value();
    } else {
      entries = DecodeOrEmpty(stored);
    }
  }
  new_obj = WithoutManagedFields(std::move(new_obj));
  // An existing object nobody tracks stays untracked.
  if (entries.empty() && !create) return new_obj;

  const json old_view =
      create ? EmptyObject(rt) : CopyWithoutManagedFields(old_obj);
  UpdateSets u = SetsOf(Compare(old_view, new_obj, rt, skip), reset,
                        /*others_owned=*/!entries.empty());
  for (ManagedEntry& e : entries) {
    e.fields = std::move(e.fields).Difference(u.changed).Difference(u.removed);
  }
  if (!u.mine.empty()) {
    ManagedEntry self = SelfEntry(m);
    auto it = std::find_if(
        entries.begin(), entries.end(),
        [&](const ManagedEntry& e) { return e.SameIdentity(self); });
    if (it == entries.end()) {
      self.fields = std::move(u.mine);
      entries.push_back(std::move(self));
    } else {
      it->fields = std::move(it->fields).Union(u.mine);
      it->time = self.time;
    }
  }
  entries.erase(
      std::remove_if(entries.begin(), entries.end(),
                     [](const ManagedEntry& e) { return e.fields.empty(); }),
      entries.end());
  CapUpdateManagers(entries);
  StoreManagedFields(new_obj, std::move(entries));
  return new_obj;
}

Result<json> UpdateManagedFields(const json& old_obj, json new_obj,
                                 const ManagerInfo& m,
                                 const api::Schema& schema,
                                 const api::Type* root) {
  TypeResolver resolver = [&schema](std::string_view n) {
    return schema.Find(n);
  };
  return UpdateManagedFields(old_obj, std::move(new_obj), m, resolver, root);
}

Result<ApplyResult> Apply(const json& live, const json& applied,
                          const ApplyOptions& o, const TypeResolver& resolver,
                          const api::Type* root) {
  const std::string body_gvk =
      GvkString(StringAt(applied, "apiVersion"), StringAt(applied, "kind"));
  if (!applied.is_object() || body_gvk != GvkString(o.api_version, o.kind)) {
    return BadRequestError("invalid object type: " + body_gvk);
  }
  if (const json* mf = ManagedFieldsOf(applied);
      mf != nullptr && !mf->is_null()) {
    return BadRequestError("metadata.managedFields must be nil");
  }
  // The walks below recurse once per level; refuse what could overflow.
  KMOCK_RETURN_IF_ERROR(patch::CheckDepth(applied, "the apply configuration"));
  const TypeNode rt = TypeNode::ForType(&resolver, root);
  const FieldSet reset = ResetSet(o.reset_fields);
  const bool create = live.is_null();
  const json live_obj =
      create ? json::object() : CopyWithoutManagedFields(live);
  const std::string now = FormatRfc3339(o.time);

  std::vector<ManagedEntry> entries;
  if (!create) {
    if (const json* mf = ManagedFieldsOf(live); mf != nullptr) {
      auto decoded = DecodeManagedFields(*mf);
      if (!decoded.ok()) {
        return InternalError("failed to decode managed fields: " +
                             decoded.status().message());
      }
      entries = std::move(decoded).value();
    }
    if (entries.empty()) {
      // Fields set before anyone applied belong to "before-first-apply".
      Comparison c = Compare(EmptyObject(rt), live_obj, rt);
      FieldSet owned = Filter(c.modified.Union(c.added), reset);
      if (!owned.empty()) {
        entries.push_back({"before-first-apply", "Update", o.api_version,
                           o.subresource, now, std::move(owned)});
      }
    }
  }

  auto config_set = ToFieldSet(applied, rt, /*strict=*/true);
  if (!config_set.ok()) {
    const json& md = ObjectAt(applied, "metadata");
    std::string ns = StringAt(md, "namespace"), name = StringAt(md, "name");
    // kube-apiserver names the object "<namespace>/<name>", the namespace
    // as the configuration gives it (empty for most).
    // A plain error there, so a 500 without a reason.
    return Status(StatusCode::kUnclassified,
                  "failed to create typed patch object (" + ns + "/" + name +
                      "; " + body_gvk + "): " + config_set.status().message());
  }
  json merged = Merge(live_obj, applied, rt);

  ManagedEntry self{o.manager, "Apply", o.api_version, o.subresource, "", {}};
  auto self_it =
      std::find_if(entries.begin(), entries.end(),
                   [&](const ManagedEntry& e) { return e.SameIdentity(self); });
  if (self_it == entries.end()) {
    entries.push_back(self);
    self_it = entries.end() - 1;
  }
  const size_t self_index = self_it - entries.begin();
  const FieldSet last = entries[self_index].fields;
  entries[self_index].fields = Filter(*config_set, reset);
  entries[self_index].api_version = o.api_version;

  if (!last.empty()) {
    // Remove what this applier applied before and no longer does, unless
    // someone else still owns it.
    auto ensure = [&](const FieldSet& s) {
      return EnsureNamedFieldsAreMembers(s, rt);
    };
    FieldSet managed;
    for (const ManagedEntry& e : entries) managed = managed.Union(e.fields);
    json pruned = merged;
    RemoveItems(pruned, ensure(last), rt);
    FieldSet merged_set = ensure(*ToFieldSet(merged, rt, false));
    FieldSet pruned_set = ensure(*ToFieldSet(pruned, rt, false));
    pruned = merged;
    RemoveItems(pruned,
                merged_set.Difference(pruned_set.Union(ensure(managed))), rt);
    pruned_set = ensure(*ToFieldSet(pruned, rt, false));
    json result = merged;
    RemoveItems(result,
                merged_set.Difference(pruned_set).Intersection(ensure(last)),
                rt);
    merged = std::move(result);
  }

  Comparison c = Compare(live_obj, merged, rt);
  FieldSet changed = c.modified.Union(c.added).RecursiveDifference(reset);
  FieldSet removed = c.removed.RecursiveDifference(reset);
  std::vector<std::pair<size_t, FieldSet>> conflicts;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i == self_index) continue;
    FieldSet conflict = entries[i].fields.Intersection(changed);
    if (!conflict.empty()) conflicts.emplace_back(i, std::move(conflict));
  }
  if (!o.force && !conflicts.empty()) {
    FieldSet allowed;
    bool relief = o.manager == "kubectl" &&
                  AllowedFromLastApplied(live_obj, rt, &allowed);
    if (relief) {
      std::vector<std::pair<size_t, FieldSet>> rest;
      for (auto& [i, set] : conflicts) {
        FieldSet left = set.Difference(allowed);
        if (!left.empty()) rest.emplace_back(i, std::move(left));
      }
      conflicts = std::move(rest);
    }
    if (!conflicts.empty()) return ConflictError(entries, conflicts);
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i == self_index) continue;
    entries[i].fields =
        entries[i].fields.Difference(changed).Difference(removed);
  }
  if (merged != live_obj || entries[self_index].time.empty()) {
    entries[self_index].time = now;
  }
  entries.erase(
      std::remove_if(entries.begin(), entries.end(),
                     [](const ManagedEntry& e) { return e.fields.empty(); }),
      entries.end());
  CapUpdateManagers(entries);

  // kubectl's server-side apply keeps a client-side apply annotation in step.
  if (o.manager == "kubectl" && merged.contains("metadata") &&
      merged["metadata"].contains("annotations") &&
      merged["metadata"]["annotations"].is_object()) {
    json& ann = merged["metadata"]["annotations"];
    if (ann.contains(kLastApplied) && ann[kLastApplied].is_string() &&
        !ann[kLastApplied].get<std::string>().empty()) {
      ann[kLastApplied] = BuildLastApplied(applied);
    }
  }
  StoreManagedFields(merged, std::move(entries));
  return ApplyResult{std::move(merged), create};
}

Result<ApplyResult> Apply(const json& live, const json& applied,
                          const ApplyOptions& o, const api::Schema& schema,
                          const api::Type* root) {
  TypeResolver resolver = [&schema](std::string_view n) {
    return schema.Find(n);
  };
  return Apply(live, applied, o, resolver, root);
}

}  // namespace kmock::fieldmanager
