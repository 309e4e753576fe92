#include "fieldmanager/typed_ops.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace kmock::fieldmanager {

using nlohmann::json;
using Kind = TypeNode::Kind;

namespace {

bool IsContainer(Kind k) { return k != Kind::kLeaf; }

// The kind both sides agree on; a leaf when they disagree. Nulls take the
// other side's shape (an absent map or list).
Kind EffectiveKind(const json* l, const json* r, const TypeNode& t) {
  bool has_l = l != nullptr && !l->is_null();
  bool has_r = r != nullptr && !r->is_null();
  if (!has_l && !has_r) {
    Kind k = t.kind();
    return k == Kind::kUntyped ? Kind::kLeaf : k;
  }
  Kind kl = has_l ? t.KindFor(*l) : Kind::kLeaf;
  Kind kr = has_r ? t.KindFor(*r) : Kind::kLeaf;
  if (has_l && has_r) return kl == kr ? kl : Kind::kLeaf;
  return has_l ? kl : kr;
}

bool EmptyContainer(const json* v) {
  return v == nullptr || v->is_null() || (v->is_object() && v->empty()) ||
         (v->is_array() && v->empty());
}

Path Append(const Path& p, const std::string& pe) {
  Path out = p;
  out.push_back(pe);
  return out;
}

// A list's items by path element, in order, first occurrence winning.
struct IndexedList {
  std::vector<std::string> order;
  std::map<std::string, const json*> items;
};

Status IndexList(const json* list, const TypeNode& t, const Path& path,
                 bool strict, IndexedList* out) {
  if (list == nullptr || !list->is_array()) return Status::Ok();
  for (size_t i = 0; i < list->size(); ++i) {
    const json& item = (*list)[i];
    auto pe = t.ItemElement(item);
    if (!pe.ok()) {
      if (strict) {
        return Status(StatusCode::kInternal, PathString(path) + ": element " +
                                                 std::to_string(i) + ": " +
                                                 pe.status().message());
      }
      continue;
    }
    if (!out->items.emplace(*pe, &item).second) {
      if (strict) {
        return Status(StatusCode::kInternal,
                      PathString(path) + ": duplicate entries for key " +
                          PathString({*pe}));
      }
      continue;
    }
    out->order.push_back(*pe);
  }
  return Status::Ok();
}

// The order of a merged list: the right side's order, with items only on
// the left kept where they were relative to the shared ones.
std::vector<std::string> MergedOrder(const IndexedList& l,
                                     const IndexedList& r) {
  std::vector<std::string> shared;
  for (const std::string& pe : r.order) {
    if (l.items.count(pe)) shared.push_back(pe);
  }
  size_t next_shared = 0;
  std::vector<std::string> out;
  size_t li = 0, ri = 0;
  while (li < l.order.size() || ri < r.order.size()) {
    if (li < l.order.size() && ri < r.order.size()) {
      const std::string& pe = l.order[li];
      if (pe == r.order[ri]) {
        out.push_back(pe);
        ++li;
        ++ri;
        if (next_shared < shared.size()) ++next_shared;
        continue;
      }
      if (r.items.count(pe) && next_shared < shared.size() &&
          shared[next_shared] != pe) {
        ++li;  // shared, but it comes later on the right
        continue;
      }
    }
    if (li < l.order.size() && !r.items.count(l.order[li])) {
      out.push_back(l.order[li++]);
      continue;
    }
    if (ri < r.order.size()) {
      const std::string& pe = r.order[ri++];
      out.push_back(pe);
      if (next_shared < shared.size() && shared[next_shared] == pe) {
        ++next_shared;
      }
      continue;
    }
    ++li;  // a shared left item already taken from the right
  }
  return out;
}

// A struct whose schema lists every field it may hold (not one that keeps
// unknown fields).
bool DeclaresEveryField(const TypeNode& t) {
  return t.kind() == TypeNode::Kind::kStruct && t.type() != nullptr &&
         !t.type()->preserve_unknown_fields;
}

Status ToSet(const json& v, const TypeNode& t, const Path& path, bool strict,
             FieldSet* out) {
  Kind k = t.KindFor(v);
  switch (k) {
    case Kind::kStruct:
    case Kind::kMap:
      for (const auto& [key, val] : v.items()) {
        bool is_field = false;
        TypeNode ct = t.Child(key, &is_field);
        Path cp = Append(path, "f:" + key);
        if (strict && !is_field && DeclaresEveryField(t) &&
            !(path.empty() && (key == "apiVersion" || key == "kind"))) {
          return Status(StatusCode::kInternal,
                        PathString(cp) + ": field not declared in schema");
        }
        KMOCK_RETURN_IF_ERROR(ToSet(val, ct, cp, strict, out));
        if (val.is_null() || (val.is_object() && val.empty()) || !is_field) {
          out->Insert(cp);
        }
      }
      return Status::Ok();
    case Kind::kKeyedList:
    case Kind::kSetList: {
      IndexedList idx;
      KMOCK_RETURN_IF_ERROR(IndexList(&v, t, path, strict, &idx));
      TypeNode et = t.Element();
      for (const std::string& pe : idx.order) {
        Path cp = Append(path, pe);
        KMOCK_RETURN_IF_ERROR(ToSet(*idx.items[pe], et, cp, strict, out));
        out->Insert(cp);
      }
      return Status::Ok();
    }
    default:
      out->Insert(path);
      return Status::Ok();
  }
}

// Records what changed from l to r at *path, which it extends and restores
// on the way down. REQUIRES: not both present and equal (the caller checks,
// so an unchanged subtree costs one deep comparison and no walk: a status
// write leaves spec and most metadata as they were).
void CompareAt(const json* l, const json* r, const TypeNode& t, Path* path,
               Comparison* c, const std::vector<std::string>* skip = nullptr) {
  Kind k = EffectiveKind(l, r, t);
  if (!IsContainer(k) || (EmptyContainer(l) && EmptyContainer(r))) {
    if (l == nullptr) {
      c->added.Insert(*path);
    } else if (r == nullptr) {
      c->removed.Insert(*path);
    } else if (*l != *r) {
      c->modified.Insert(*path);
    }
    return;
  }
  auto child = [&](const json* lc, const json* rc, const TypeNode& ct,
                   std::string pe) {
    path->push_back(std::move(pe));
    CompareAt(lc, rc, ct, path, c);
    path->pop_back();
  };
  auto same = [](const json* lc, const json* rc) {
    return lc != nullptr && rc != nullptr && *lc == *rc;
  };
  if (k == Kind::kStruct || k == Kind::kMap) {
    // Objects keep their members in key order: walk both side by side. A
    // member equal on both sides costs one comparison: no key copy, no
    // path element, no type lookup.
    static const json kNoMembers = json::object();
    const json& lo = l != nullptr && l->is_object() ? *l : kNoMembers;
    const json& ro = r != nullptr && r->is_object() ? *r : kNoMembers;
    auto li = lo.begin(), ri = ro.begin();
    while (li != lo.end() || ri != ro.end()) {
      const json* lc = nullptr;
      const json* rc = nullptr;
      const std::string* key;
      if (ri == ro.end() || (li != lo.end() && li.key() < ri.key())) {
        key = &li.key();
        lc = &*li++;
      } else if (li == lo.end() || ri.key() < li.key()) {
        key = &ri.key();
        rc = &*ri++;
      } else {
        key = &li.key();
        lc = &*li++;
        rc = &*ri++;
      }
      if (skip != nullptr &&
          std::find(skip->begin(), skip->end(), *key) != skip->end())
        continue;
      if (same(lc, rc)) continue;
      child(lc, rc, t.Child(*key), "f:" + *key);
    }
  } else {
    IndexedList li, ri;
    (void)IndexList(l, t, *path, false, &li);
    (void)IndexList(r, t, *path, false, &ri);
    TypeNode et = t.Element();
    for (const std::string& pe : MergedOrder(li, ri)) {
      auto lit = li.items.find(pe);
      auto rit = ri.items.find(pe);
      const json* lc = lit == li.items.end() ? nullptr : lit->second;
      const json* rc = rit == ri.items.end() ? nullptr : rit->second;
      if (!same(lc, rc)) child(lc, rc, et, pe);
    }
  }
  if (l == nullptr) {
    c->added.Insert(*path);
  } else if (r == nullptr) {
    c->removed.Insert(*path);
  }
}

json MergeAt(const json* l, const json& r, const TypeNode& t) {
  if (r.is_null()) return r;
  Kind k = EffectiveKind(l, &r, t);
  switch (k) {
    case Kind::kStruct:
    case Kind::kMap: {
      json out = (l != nullptr && l->is_object()) ? *l : json::object();
      for (const auto& [key, rv] : r.items()) {
        auto it = out.find(key);
        json merged =
            MergeAt(it == out.end() ? nullptr : &*it, rv, t.Child(key));
        if (merged.is_null()) {
          out.erase(key);
        } else {
          out[key] = std::move(merged);
        }
      }
      return out;
    }
    case Kind::kKeyedList:
    case Kind::kSetList: {
      IndexedList li, ri;
      (void)IndexList(l, t, {}, false, &li);
      (void)IndexList(&r, t, {}, false, &ri);
      TypeNode et = t.Element();
      json out = json::array();
      for (const std::string& pe : MergedOrder(li, ri)) {
        auto lit = li.items.find(pe);
        auto rit = ri.items.find(pe);
        if (rit == ri.items.end()) {
          out.push_back(*lit->second);
        } else {
          out.push_back(MergeAt(lit == li.items.end() ? nullptr : lit->second,
                                *rit->second, et));
        }
      }
      return out;
    }
    default:
      return r;
  }
}

}  // namespace

Result<FieldSet> ToFieldSet(const json& value, const TypeNode& type,
                            bool strict) {
  FieldSet out;
  Status st = ToSet(value, type, {}, strict, &out);
  if (!st.ok()) return st;
  return out;
}

Comparison Compare(const json& lhs, const json& rhs, const TypeNode& type,
                   const std::vector<std::string>& skip) {
  Comparison c;
  if (lhs == rhs) return c;
  Path path;
  CompareAt(&lhs, &rhs, type, &path, &c, skip.empty() ? nullptr : &skip);
  return c;
}

json Merge(const json& live, const json& config, const TypeNode& type) {
  json out = MergeAt(&live, config, type);
  return out.is_null() ? json::object() : out;
}

void RemoveItems(json& value, const FieldSet& set, const TypeNode& type) {
  if (set.empty()) return;
  Kind k = type.KindFor(value);
  if (k == Kind::kStruct || k == Kind::kMap) {
    for (auto it = value.begin(); it != value.end();) {
      std::string pe = "f:" + it.key();
      if (set.HasMember(pe)) {
        it = value.erase(it);
        continue;
      }
      if (const FieldSet* sub = set.Child(pe);
          sub != nullptr && !sub->empty()) {
        RemoveItems(it.value(), *sub, type.Child(it.key()));
      }
      ++it;
    }
  } else if (k == Kind::kKeyedList || k == Kind::kSetList) {
    json out = json::array();
    TypeNode et = type.Element();
    for (json& item : value) {
      auto pe = type.ItemElement(item);
      if (pe.ok()) {
        if (set.HasMember(*pe)) continue;
        if (const FieldSet* sub = set.Child(*pe);
            sub != nullptr && !sub->empty())
          RemoveItems(item, *sub, et);
      }
      out.push_back(std::move(item));
    }
    value = std::move(out);
  }
}

FieldSet EnsureNamedFieldsAreMembers(const FieldSet& set,
                                     const TypeNode& type) {
  FieldSet out;
  for (const auto& [pe, child] : set.children()) {
    bool is_field = false;
    TypeNode ct;
    if (pe.rfind("f:", 0) == 0) {
      ct = type.Child(pe.substr(2), &is_field);
      if (type.kind() != Kind::kStruct) is_field = false;
    } else {
      ct = type.Element();
    }
    bool member = set.HasMember(pe) || is_field;
    out.SetChild(pe, EnsureNamedFieldsAreMembers(child, ct), member);
  }
  return out;
}

namespace {

// Fields an encoded empty object of a type always carries besides the
// top-level metadata/spec/status: Go value structs ({}) and non-omitempty
// slices and pointers (null). Keyed by the type's short name.
const std::map<std::string, std::vector<std::string>>& AlwaysWritten() {
  static const auto* kFields =
      new std::map<std::string, std::vector<std::string>>{
          {"ObjectMeta", {"creationTimestamp"}},
          {"PodSpec", {"containers"}},
          {"PodTemplateSpec", {"metadata", "spec"}},
          {"DeploymentSpec", {"selector", "template", "strategy"}},
          {"ReplicaSetSpec", {"selector", "template"}},
          {"StatefulSetSpec", {"selector", "template", "updateStrategy"}},
          {"DaemonSetSpec", {"selector", "template", "updateStrategy"}},
          {"JobSpec", {"template"}},
          {"CronJobSpec", {"jobTemplate"}},
          {"JobTemplateSpec", {"metadata", "spec"}},
          {"ServiceStatus", {"loadBalancer"}},
      };
  return *kFields;
}

std::string ShortName(const std::string& name) {
  size_t dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(dot + 1);
}

json EmptyOf(const TypeNode& t, int depth) {
  json out = json::object();
  if (t.kind() != Kind::kStruct || depth > 8) return out;
  auto it = AlwaysWritten().find(ShortName(t.type()->name));
  if (it == AlwaysWritten().end()) return out;
  for (const std::string& name : it->second) {
    TypeNode ct = t.Child(name);
    out[name] = ct.kind() == Kind::kStruct ? EmptyOf(ct, depth + 1) : json();
  }
  return out;
}

}  // namespace

json EmptyObject(const TypeNode& root) {
  json out = json::object();
  if (root.kind() != Kind::kStruct) return out;
  for (const char* name : {"metadata", "spec", "status"}) {
    bool is_field = false;
    TypeNode ct = root.Child(name, &is_field);
    if (is_field && ct.kind() == Kind::kStruct) out[name] = EmptyOf(ct, 1);
  }
  return out;
}

}  // namespace kmock::fieldmanager
