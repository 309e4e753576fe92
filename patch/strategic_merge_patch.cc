#include "patch/strategic_merge_patch.h"

#include <algorithm>
#include <functional>
#include <initializer_list>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "patch/go_format.h"
#include "patch/json_depth.h"
#include "patch/patch_status.h"
#include "patch/smp_lists.h"

namespace kmock::patch {
namespace {

using json = nlohmann::json;

constexpr char kDirective[] = "$patch";
constexpr char kRetainKeys[] = "$retainKeys";
constexpr char kDeletePrefix[] = "$deleteFromPrimitiveList";
constexpr char kOrderPrefix[] = "$setElementOrder";
constexpr char kMapType[] = "map[string]interface {}";
constexpr char kSliceType[] = "[]interface {}";

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool IsDirective(const json& value, const char* directive) {
  return value.is_string() && value.get_ref<const std::string&>() == directive;
}

JsonList ToList(const json& array) {
  return JsonList(array.begin(), array.end());
}

json FromList(JsonList list) {
  json out = json::array();
  for (json& v : list) out.push_back(std::move(v));
  return out;
}

Status BadPatchType(const json& directive, const json& map) {
  return UnconvertedError("unknown patch type: " + GoStringVerb(directive) +
                          " in map: " + GoValue(map));
}

// "$setElementOrder/containers" -> "containers".
Result<std::string> ExtractKey(const std::string& key,
                               std::string_view prefix) {
  size_t slash = key.find('/');
  if (slash == std::string::npos || key.substr(0, slash) != prefix) {
    if (prefix == kDeletePrefix) {
      return BadRequestError("invalid patch format of primitive list");
    }
    return BadRequestError("invalid patch format of setElementOrder list");
  }
  return key.substr(slash + 1);
}

// discardNullValuesFromPatch: drops null members of maps, recursively.
void DiscardNulls(json& value) {
  if (value.is_object()) {
    for (auto it = value.begin(); it != value.end();) {
      if (it->is_null()) {
        it = value.erase(it);
      } else {
        DiscardNulls(*it);
        ++it;
      }
    }
  } else if (value.is_array()) {
    for (json& v : value) DiscardNulls(v);
  }
}

// removeDirectives: drops every map that carries $patch. Returns false when
// value itself is such a map (the caller then drops it).
bool RemoveDirectives(json& value) {
  if (value.is_object()) {
    if (value.contains(kDirective)) return false;
    for (auto it = value.begin(); it != value.end();) {
      if (!RemoveDirectives(*it)) {
        it = value.erase(it);
      } else {
        ++it;
      }
    }
  } else if (value.is_array()) {
    json kept = json::array();
    for (json& v : value) {
      if (RemoveDirectives(v)) kept.push_back(std::move(v));
    }
    value = std::move(kept);
  }
  return true;
}

// sliceElementType: whether the elements (all of one Go type) are maps.
Result<bool> ElementsAreMaps(std::initializer_list<const JsonList*> slices) {
  const json* first = nullptr;
  std::string first_type;
  for (const JsonList* list : slices) {
    for (const json& v : *list) {
      if (first == nullptr) {
        if (v.is_null()) {
          return UnconvertedError(
              "runtime error: invalid memory address or nil pointer "
              "dereference");
        }
        if (v.is_array()) return RejectedError();  // lists of lists
        first = &v;
        first_type = GoTypeName(v);
      } else if (GoTypeName(v) != first_type) {
        json all = json::array();
        for (const JsonList* l : slices) all.push_back(FromList(*l));
        return UnconvertedError("list element types are not identical: " +
                                GoValue(all));
      }
    }
  }
  if (first == nullptr) {
    return UnconvertedError("no elements in any of the given slices");
  }
  return first->is_object();
}

Status MergeMap(json& original, json& patch, const SchemaNode& node);

// mergeSliceWithSpecialElements: applies `$patch: delete` elements to
// *original and returns the patch without directive elements; on
// `$patch: replace` the original becomes that patch and the patch empty.
// REQUIRES: every element of *original is a map (MergeSlice checked it), so
// upstream's scans of it for a key cannot fail.
Result<JsonList> ApplySpecialElements(JsonList* original, JsonList patch,
                                      const std::string& key) {
  // Upstream removes every match of each deleted key by rescanning the
  // list; the index finds them, and the list is compacted once at the end.
  ValuePositions positions;
  for (size_t i = 0; i < original->size(); ++i) {
    auto value = (*original)[i].find(key);
    if (value != (*original)[i].end()) positions.Add(*value, i);
  }
  std::vector<bool> deleted(original->size(), false);
  bool any_deleted = false;
  JsonList plain;
  bool replace = false;
  for (json& v : patch) {
    auto d = v.find(kDirective);
    if (d == v.end()) {
      plain.push_back(std::move(v));
    } else if (IsDirective(*d, "delete")) {
      auto value = v.find(key);
      if (value == v.end()) return UnconvertedError(NoMergeKeyMessage(v, key));
      for (size_t i : positions.TakeAll(*value)) {
        deleted[i] = true;
        any_deleted = true;
      }
    } else if (IsDirective(*d, "replace")) {
      replace = true;
    } else if (IsDirective(*d, "merge")) {
      return UnconvertedError(
          "merging lists cannot yet be specified in the patch");
    } else {
      return BadPatchType(*d, v);
    }
  }
  if (replace) {
    *original = std::move(plain);
    return JsonList();
  }
  if (any_deleted) {
    JsonList kept;
    for (size_t i = 0; i < original->size(); ++i) {
      if (!deleted[i]) kept.push_back(std::move((*original)[i]));
    }
    *original = std::move(kept);
  }
  return plain;
}

// mergeSliceWithoutSpecialElements: merges each patch element into the
// first original element with the same key, or appends it.
Result<JsonList> MergeKeyedElements(JsonList original, const JsonList& patch,
                                    const std::string& key,
                                    const SchemaNode& element) {
  // Upstream scans the list (appended elements included) for each patch
  // element; the index holds, for each key value, the elements that still
  // carry it, in list order.
  ValuePositions positions;
  for (size_t i = 0; i < original.size(); ++i) {
    auto value = original[i].find(key);
    if (value != original[i].end()) positions.Add(*value, i);
  }
  for (const json& v : patch) {
    auto value = v.find(key);
    if (value == v.end()) return UnconvertedError(NoMergeKeyMessage(v, key));
    long idx = positions.First(*value);
    if (idx >= 0) {
      json& target = original[static_cast<size_t>(idx)];
      json patch_element = v;
      KMOCK_RETURN_IF_ERROR(MergeMap(target, patch_element, element));
      // The merge keeps the key's value, except that a null key in the
      // patch deletes it: then later lookups skip this element.
      auto kept = target.find(key);
      if (kept == target.end() || !GoEqual(*kept, *value)) {
        positions.DropFirst(*value);
      }
    } else {
      positions.Add(*value, original.size());
      original.push_back(v);
    }
  }
  return original;
}

// mergeSlice.
Result<JsonList> MergeSlice(JsonList original, JsonList patch,
                            const FieldMeta& meta, bool is_delete_list) {
  if (original.empty() && patch.empty()) return original;
  KMOCK_ASSIGN_OR_RETURN(bool maps, ElementsAreMaps({&original, &patch}));
  const std::string& key = meta.merge_key;
  JsonList merged;
  if (!maps) {
    if (is_delete_list) return DeleteFromSlice(original, patch);
    JsonList both = original;
    both.insert(both.end(), patch.begin(), patch.end());
    merged = DeduplicateScalars(std::move(both));
  } else {
    if (key.empty()) {
      return UnconvertedError(
          "cannot merge lists without merge key for struct");
    }
    KMOCK_ASSIGN_OR_RETURN(
        patch, ApplySpecialElements(&original, std::move(patch), key));
    KMOCK_ASSIGN_OR_RETURN(
        merged, MergeKeyedElements(original, patch, key, meta.value));
  }
  JsonList present, absent;
  if (key.empty()) {
    PartitionPrimitives(merged, patch, &present, &absent);
  } else {
    KMOCK_RETURN_IF_ERROR(PartitionMaps(merged, patch, key, &present, &absent));
  }
  return NormalizeElementOrder(std::move(present), std::move(absent), patch,
                               original, key, maps);
}

// mergeSliceHandler: merge lists (and deletion lists) merge, others replace.
Result<json> MergeSliceHandler(const json& original, json patch,
                               const FieldMeta& meta, bool is_delete_list) {
  if (meta.strategy == "merge" || is_delete_list) {
    KMOCK_ASSIGN_OR_RETURN(
        JsonList merged,
        MergeSlice(ToList(original), ToList(patch), meta, is_delete_list));
    return FromList(std::move(merged));
  }
  return patch;
}

// applyRetainKeysDirective.
Status ApplyRetainKeys(json& original, json& patch) {
  auto it = patch.find(kRetainKeys);
  if (it == patch.end()) return Status::Ok();
  json retain = std::move(*it);
  patch.erase(it);
  if (!retain.is_array()) {
    return BadRequestError("invalid patch format of retainKeys");
  }
  std::set<std::string, std::less<>> kept;
  for (const json& k : retain) {
    if (k.is_string()) kept.insert(k.get<std::string>());
  }
  auto retained = [&kept](const std::string& key) {
    return kept.count(key) > 0;
  };
  for (const auto& [k, v] : patch.items()) {
    if (v.is_null() || StartsWith(k, kDeletePrefix) ||
        StartsWith(k, kOrderPrefix)) {
      continue;
    }
    if (!retained(k)) {
      return BadRequestError("invalid patch format of retainKeys");
    }
  }
  for (auto o = original.begin(); o != original.end();) {
    if (!retained(o.key())) {
      o = original.erase(o);
    } else {
      ++o;
    }
  }
  return Status::Ok();
}

// mergeKeyValueEqual.
Result<bool> MergeKeyValueEqual(const json& left, const json& right,
                                const std::string& key) {
  if (key.empty()) return GoEqual(left, right);
  for (const json* side : {&left, &right}) {
    if (!side->is_object()) {
      return UnconvertedError(BadArgTypeMessage(kMapType, *side));
    }
    if (!side->contains(key)) {
      return UnconvertedError(NoMergeKeyMessage(*side, key));
    }
  }
  return GoEqual(left.at(key), right.at(key));
}

// validatePatchWithSetOrderList: the patch list's order must agree with
// the $setElementOrder list.
Status ValidateOrder(const JsonList& patch_list, const JsonList& order,
                     const std::string& key) {
  if (order.empty() || patch_list.empty()) return Status::Ok();
  JsonList kept;
  if (!key.empty()) {
    for (const json& item : patch_list) {
      if (!item.is_object()) {
        return UnconvertedError(BadArgTypeMessage(kMapType, item));
      }
      auto d = item.find(kDirective);
      if (d == item.end() || !IsDirective(*d, "delete")) kept.push_back(item);
    }
  } else {
    kept = patch_list;
  }
  size_t pi = 0, si = 0;
  while (pi < kept.size() && si < order.size()) {
    if (kept[pi].is_object() && kept[pi].contains(kDirective)) {
      ++pi;
      continue;
    }
    KMOCK_ASSIGN_OR_RETURN(bool equal,
                           MergeKeyValueEqual(kept[pi], order[si], key));
    if (equal) ++pi;
    ++si;
  }
  if (pi < kept.size() && si >= order.size()) {
    return UnconvertedError("the order in patch list:\n" +
                            GoValue(FromList(patch_list)) +
                            "\n doesn't match " + kOrderPrefix + " list:\n" +
                            GoValue(FromList(order)));
  }
  return Status::Ok();
}

// The live list as upstream's mergePatchIntoOriginal orders by after
// merging a keyed list. Go removes `$patch: delete` elements and appends new
// ones inside the live list's own array, so the list it then uses (still of
// the live length) holds the survivors, then the first appended elements,
// then stale copies the deletes left behind. The order of live-only
// elements depends on it: live [1, 2, 4] with $setElementOrder [2, 3] and
// patch [3, {1: delete}] gives [2, 4, 3], not [2, 3, 4].
JsonList ServerOrderAfterMerge(const JsonList& live, const JsonList& patch,
                               const std::string& key) {
  for (const JsonList* list : {&live, &patch}) {
    for (const json& v : *list) {
      if (!v.is_object()) return live;  // the merge itself fails
    }
  }
  // Go shifts the survivors left over each deleted element; the slot freed
  // at the end keeps the element that was last before the shift (the
  // deleted one itself when it was last). The same, without the shifts:
  // the live elements still in the list are the ones not deleted, and the
  // last of them is found by walking back over deleted ones.
  const size_t n = live.size();
  ValuePositions positions;
  for (size_t i = 0; i < n; ++i) {
    auto value = live[i].find(key);
    if (value != live[i].end()) positions.Add(*value, i);
  }
  std::vector<bool> deleted(n, false);
  std::vector<const json*> slots(n, nullptr);
  size_t size = n;
  size_t last = n;  // one past the last live element still in the list
  bool replace = false;
  for (const json& v : patch) {
    auto d = v.find(kDirective);
    if (d == v.end()) continue;
    if (IsDirective(*d, "replace")) replace = true;
    auto value = v.find(key);
    if (!IsDirective(*d, "delete") || value == v.end()) continue;
    for (size_t i : positions.TakeAll(*value)) {
      while (deleted[last - 1]) --last;
      slots[size - 1] = &live[last - 1];
      deleted[i] = true;
      --size;
    }
  }
  JsonList merged;
  merged.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (!deleted[i]) merged.push_back(live[i]);
  }
  for (size_t i = size; i < n; ++i) merged.push_back(*slots[i]);
  if (replace) return merged;  // the replacement is a new array
  // Elements new to the list are appended, overwriting the stale slots
  // while there are any.
  ValuePositions present;
  for (size_t i = 0; i < size; ++i) {
    auto value = merged[i].find(key);
    if (value != merged[i].end()) present.Add(*value, i);
  }
  size_t appended = size;
  for (const json& v : patch) {
    auto value = v.find(key);
    if (v.contains(kDirective) || value == v.end()) continue;
    if (present.First(*value) >= 0) continue;
    present.Add(*value, appended);
    if (appended < n) merged[appended] = v;
    ++appended;
  }
  return merged;
}

// mergePatchIntoOriginal: merges each list that has a $setElementOrder
// directive and orders it; removes both from the patch.
Status MergeOrderedLists(json& original, json& patch, const SchemaNode& node) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : patch.items()) {
    if (StartsWith(k, kOrderPrefix)) keys.push_back(k);
  }
  for (const std::string& directive_key : keys) {
    auto d = patch.find(directive_key);
    if (d == patch.end()) continue;
    json set_order = std::move(*d);
    patch.erase(d);
    if (!set_order.is_array()) {
      return UnconvertedError(BadArgTypeMessage(kSliceType, set_order));
    }
    KMOCK_ASSIGN_OR_RETURN(std::string list_key,
                           ExtractKey(directive_key, kOrderPrefix));
    auto o = original.find(list_key);
    auto p = patch.find(list_key);
    bool found_original = o != original.end();
    bool found_patch = p != patch.end();
    JsonList original_list, patch_list;
    if (found_original) {
      if (!o->is_array()) {
        return UnconvertedError(BadArgTypeMessage(kSliceType, *o));
      }
      original_list = ToList(*o);
    }
    if (found_patch) {
      if (!p->is_array()) {
        return UnconvertedError(BadArgTypeMessage(kSliceType, *p));
      }
      patch_list = ToList(*p);
    }
    FieldMeta meta = node.Lookup(list_key);
    JsonList order = ToList(set_order);
    KMOCK_RETURN_IF_ERROR(ValidateOrder(patch_list, order, meta.merge_key));
    JsonList merged;
    JsonList server_order = original_list;
    if (found_original && !found_patch) {
      merged = original_list;
    } else if (!found_original && found_patch) {
      json added = *p;
      RemoveDirectives(added);
      merged = ToList(added);
    } else if (found_original && found_patch) {
      KMOCK_ASSIGN_OR_RETURN(json result,
                             MergeSliceHandler(*o, *p, meta, false));
      merged = ToList(result);
      if (meta.strategy == "merge" && !meta.merge_key.empty()) {
        server_order =
            ServerOrderAfterMerge(original_list, patch_list, meta.merge_key);
      }
    } else {
      continue;
    }
    JsonList present, absent;
    if (meta.merge_key.empty()) {
      PartitionPrimitives(merged, order, &present, &absent);
    } else {
      KMOCK_RETURN_IF_ERROR(
          PartitionMaps(merged, order, meta.merge_key, &present, &absent));
    }
    KMOCK_ASSIGN_OR_RETURN(bool maps,
                           ElementsAreMaps({&original_list, &patch_list}));
    KMOCK_ASSIGN_OR_RETURN(
        JsonList ordered,
        NormalizeElementOrder(std::move(present), std::move(absent), order,
                              server_order, meta.merge_key, maps));
    original[list_key] = FromList(std::move(ordered));
    patch.erase(list_key);
  }
  return Status::Ok();
}

// mergeMap: merges patch into original (an object) in place.
Status MergeMap(json& original, json& patch, const SchemaNode& node) {
  auto d = patch.find(kDirective);
  if (d != patch.end()) {
    if (IsDirective(*d, "replace")) {
      patch.erase(d);
      original = std::move(patch);
      return Status::Ok();
    }
    if (IsDirective(*d, "delete")) {
      original = json::object();
      return Status::Ok();
    }
    return BadPatchType(*d, patch);
  }
  if (!original.is_object()) original = json::object();
  KMOCK_RETURN_IF_ERROR(ApplyRetainKeys(original, patch));
  KMOCK_RETURN_IF_ERROR(MergeOrderedLists(original, patch, node));

  std::vector<std::string> keys;
  for (const auto& [k, v] : patch.items()) keys.push_back(k);
  for (const std::string& patch_key : keys) {
    json& patch_value = patch.at(patch_key);
    std::string key = patch_key;
    bool is_delete_list = false;
    if (StartsWith(key, kDeletePrefix)) {
      KMOCK_ASSIGN_OR_RETURN(key, ExtractKey(patch_key, kDeletePrefix));
      is_delete_list = true;
    }
    if (patch_value.is_null()) {
      original.erase(key);
      continue;
    }
    auto it = original.find(key);
    if (it == original.end()) {
      if (!is_delete_list) {
        DiscardNulls(patch_value);
        if (RemoveDirectives(patch_value))
          original[key] = std::move(patch_value);
      }
      continue;
    }
    json& current = *it;
    bool both_maps = current.is_object() && patch_value.is_object();
    bool both_lists = current.is_array() && patch_value.is_array();
    if (!both_maps && !both_lists) {
      bool same_type =
          !current.is_null() && GoTypeName(current) == GoTypeName(patch_value);
      if (!same_type) {
        if (is_delete_list) continue;
        DiscardNulls(patch_value);
      }
      if (RemoveDirectives(patch_value)) {
        current = std::move(patch_value);
      } else {
        original.erase(it);
      }
      continue;
    }
    FieldMeta meta = node.Lookup(key);
    if (both_maps) {
      if (meta.strategy == "replace") {
        current = std::move(patch_value);
      } else {
        KMOCK_RETURN_IF_ERROR(MergeMap(current, patch_value, meta.value));
      }
    } else {
      KMOCK_ASSIGN_OR_RETURN(
          json merged, MergeSliceHandler(current, std::move(patch_value), meta,
                                         is_delete_list));
      current = std::move(merged);
    }
  }
  return Status::Ok();
}

}  // namespace

Result<json> ApplyStrategicMergePatch(const json& original, const json& patch,
                                      const TypeResolver& resolver,
                                      const api::Type* root) {
  try {
    if (patch.is_null()) return original;
    if (!patch.is_object()) {
      return BadRequestError("json: cannot unmarshal " + GoJsonKind(patch) +
                             " into Go value of type map[string]interface {}");
    }
    KMOCK_RETURN_IF_ERROR(CheckDepth(patch, "the patch"));
    KMOCK_RETURN_IF_ERROR(CheckDepth(original, "the object"));
    if (!original.is_object()) return UnconvertedError("invalid JSON document");
    json result = original;
    json patch_copy = patch;
    KMOCK_RETURN_IF_ERROR(
        MergeMap(result, patch_copy, SchemaNode::ForType(&resolver, root)));
    return result;
  } catch (const std::exception& e) {
    return InternalError(std::string("applying strategic merge patch: ") +
                         e.what());
  }
}

Result<json> ApplyStrategicMergePatch(const json& original, const json& patch,
                                      const api::Schema& schema,
                                      const api::Type* root) {
  TypeResolver resolver = [&schema](std::string_view name) -> const api::Type* {
    auto it = schema.types().find(name);
    return it == schema.types().end() ? nullptr : &it->second;
  };
  return ApplyStrategicMergePatch(original, patch, resolver, root);
}

}  // namespace kmock::patch
