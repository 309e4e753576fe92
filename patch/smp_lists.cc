#include "patch/smp_lists.h"

#include <cmath>
#include <functional>
#include <set>
#include <utility>

#include "patch/go_format.h"
#include "patch/go_stable_sort.h"
#include "patch/patch_status.h"

namespace kmock::patch {
namespace {

using json = nlohmann::json;

thread_local uint64_t comparisons = 0;

const json& NullJson() {
  static const json kNull;
  return kNull;
}

// Whether GoEqual can find value equal to anything (itself included).
bool Indexable(const json& value) {
  if (value.is_structured()) return false;
  return !value.is_number_float() || !std::isnan(value.get<double>());
}

bool HasDeleteDirective(const json& item) {
  if (!item.is_object()) return false;
  auto it = item.find("$patch");
  return it != item.end() && it->is_string() && *it == "delete";
}

// The position of each element's match value in order (upstream's
// index(order, element)), -1 when absent.
std::vector<long> PositionsIn(const JsonList& list, const JsonList& order,
                              const std::string& merge_key, bool maps) {
  ValuePositions index(order, merge_key, maps);
  std::vector<long> out;
  out.reserve(list.size());
  for (const json& item : list) {
    out.push_back(index.First(MatchValue(item, merge_key, maps)));
  }
  return out;
}

// normalizeSliceOrder.
Result<JsonList> NormalizeSliceOrder(JsonList to_sort, const JsonList& order,
                                     const std::string& merge_key, bool maps) {
  JsonList to_delete;
  if (maps) {
    for (const JsonList* list :
         {static_cast<const JsonList*>(&to_sort), &order}) {
      for (const json& item : *list) {
        if (!item.is_object()) {
          return UnconvertedError(
              BadArgTypeMessage("map[string]interface {}", item));
        }
        if (!item.contains(merge_key)) {
          return UnconvertedError(NoMergeKeyMessage(item, merge_key));
        }
      }
    }
    JsonList keep;
    for (json& item : to_sort) {
      (HasDeleteDirective(item) ? to_delete : keep).push_back(std::move(item));
    }
    to_sort = std::move(keep);
  }
  // Upstream's comparator looks both elements up in order on every call;
  // sorting (position in order, element index) pairs compares the same
  // positions in O(1).
  std::vector<long> rank = PositionsIn(to_sort, order, merge_key, maps);
  std::vector<std::pair<long, size_t>> keyed;
  keyed.reserve(to_sort.size());
  for (size_t i = 0; i < to_sort.size(); ++i) keyed.emplace_back(rank[i], i);
  GoStableSort(keyed, [](const std::vector<std::pair<long, size_t>>& list,
                         size_t i, size_t j) {
    ++comparisons;
    long ii = list[i].first;
    if (ii >= 0) {
      long ij = list[j].first;
      if (ij >= 0) return ii < ij;
    }
    return true;
  });
  JsonList sorted;
  sorted.reserve(keyed.size() + to_delete.size());
  for (const auto& [unused, i] : keyed) sorted.push_back(std::move(to_sort[i]));
  for (json& item : to_delete) sorted.push_back(std::move(item));
  return sorted;
}

// mergeSortedSlice: inserts each of left into right by server order.
JsonList MergeSortedSlice(JsonList left, JsonList right,
                          const JsonList& server_order,
                          const std::string& merge_key, bool maps) {
  std::vector<long> left_rank =
      PositionsIn(left, server_order, merge_key, maps);
  std::vector<long> right_rank =
      PositionsIn(right, server_order, merge_key, maps);
  JsonList out;
  size_t size = left.size() + right.size();
  out.reserve(size);
  size_t i = 0, j = 0;
  for (size_t k = 0; k < size; ++k) {
    if (i >= left.size() && j < right.size()) {
      out.push_back(std::move(right[j++]));
    } else if (j >= right.size() && i < left.size()) {
      out.push_back(std::move(left[i++]));
    } else {
      long li = left_rank[i];
      long ri = right_rank[j];
      if (li >= 0 && ri >= 0 && li < ri) {
        out.push_back(std::move(left[i++]));
      } else {
        out.push_back(std::move(right[j++]));
      }
    }
  }
  return out;
}

}  // namespace

bool GoEqual(const json& a, const json& b) {
  ++comparisons;
  if (a.is_structured() || b.is_structured()) return false;
  if (a.type() != b.type() && GoTypeName(a) != GoTypeName(b)) return false;
  return a == b;
}

uint64_t ListComparisons() { return comparisons; }

size_t ValuePositions::Hash::operator()(const json& v) const {
  // Consistent with GoEqual: integers compare as int64 whatever their
  // nlohmann type, floats by value (0.0 == -0.0).
  switch (v.type()) {
    case json::value_t::string:
      return std::hash<std::string>()(v.get_ref<const std::string&>());
    case json::value_t::number_integer:
      return std::hash<int64_t>()(v.get<int64_t>()) ^ 0x1;
    case json::value_t::number_unsigned:
      return std::hash<int64_t>()(static_cast<int64_t>(v.get<uint64_t>())) ^
             0x1;
    case json::value_t::number_float: {
      double d = v.get<double>();
      return std::hash<double>()(d == 0 ? 0.0 : d) ^ 0x2;
    }
    case json::value_t::boolean:
      return v.get<bool>() ? 0x3 : 0x4;
    default:
      return 0x5;
  }
}

ValuePositions::ValuePositions(const JsonList& list,
                               const std::string& merge_key, bool maps) {
  map_.reserve(list.size());
  for (size_t i = 0; i < list.size(); ++i) {
    Add(MatchValue(list[i], merge_key, maps), i);
  }
}

void ValuePositions::Add(const json& value, size_t position) {
  if (!Indexable(value)) return;
  map_[value].positions.push_back(position);
}

long ValuePositions::First(const json& value) const {
  if (!Indexable(value)) return -1;
  auto it = map_.find(value);
  if (it == map_.end() || it->second.head >= it->second.positions.size()) {
    return -1;
  }
  return static_cast<long>(it->second.positions[it->second.head]);
}

void ValuePositions::DropFirst(const json& value) {
  if (!Indexable(value)) return;
  auto it = map_.find(value);
  if (it != map_.end()) ++it->second.head;
}

std::vector<size_t> ValuePositions::TakeAll(const json& value) {
  std::vector<size_t> out;
  if (!Indexable(value)) return out;
  auto it = map_.find(value);
  if (it == map_.end()) return out;
  Entry& e = it->second;
  out.assign(e.positions.begin() + static_cast<long>(e.head),
             e.positions.end());
  e.head = e.positions.size();
  return out;
}

JsonList DeduplicateScalars(JsonList s) {
  // Upstream compares every pair: for each i it scans j > i and replaces
  // each s[j] equal to s[i] by the last element (rechecking j). The same
  // moves, found through the positions of each value: the next j to handle
  // is always the smallest position > i holding s[i]'s value.
  if (s.size() < 2) return s;
  // Equal values share a class; values GoEqual never matches get their own.
  std::vector<size_t> cls(s.size());
  size_t classes = 0;
  {
    ValuePositions first;
    for (size_t i = 0; i < s.size(); ++i) {
      long f = first.First(s[i]);
      if (f >= 0) {
        cls[i] = cls[static_cast<size_t>(f)];
      } else {
        cls[i] = classes++;
        first.Add(s[i], i);
      }
    }
  }
  std::vector<std::set<size_t>> at(classes);
  for (size_t i = 0; i < s.size(); ++i) at[cls[i]].insert(i);
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    std::set<size_t>& same = at[cls[i]];
    while (true) {
      auto it = same.upper_bound(i);
      if (it == same.end()) break;
      size_t j = *it;
      size_t last = s.size() - 1;
      same.erase(it);
      if (j != last) {
        size_t moved = cls[last];
        at[moved].erase(last);
        at[moved].insert(j);
        s[j] = std::move(s[last]);
        cls[j] = moved;
      }
      s.pop_back();
    }
  }
  return s;
}

JsonList DeleteFromSlice(const JsonList& current, const JsonList& to_delete) {
  ValuePositions deleted(to_delete, "", false);
  JsonList out;
  for (const json& v : current) {
    if (deleted.First(v) < 0) out.push_back(v);
  }
  return out;
}

const json& MatchValue(const json& item, const std::string& merge_key,
                       bool maps) {
  if (!maps) return item;
  if (!item.is_object()) return NullJson();
  auto it = item.find(merge_key);
  return it == item.end() ? NullJson() : *it;
}

void PartitionPrimitives(const JsonList& list, const JsonList& by,
                         JsonList* present, JsonList* absent) {
  ValuePositions index(by, "", false);
  for (const json& v : list) {
    (index.First(v) >= 0 ? present : absent)->push_back(v);
  }
}

Status PartitionMaps(const JsonList& list, const JsonList& by,
                     const std::string& merge_key, JsonList* present,
                     JsonList* absent) {
  // Upstream scans `by` for each element and fails on the first non-map it
  // meets before a match: index the maps before the first non-map.
  size_t first_bad = 0;
  while (first_bad < by.size() && by[first_bad].is_object()) ++first_bad;
  ValuePositions index;
  for (size_t i = 0; i < first_bad; ++i) {
    auto key = by[i].find(merge_key);
    if (key != by[i].end()) index.Add(*key, i);
  }
  for (const json& v : list) {
    if (!v.is_object()) {
      return UnconvertedError(BadArgTypeMessage("map[string]interface {}", v));
    }
    auto key = v.find(merge_key);
    if (key == v.end()) {
      return UnconvertedError(NoMergeKeyMessage(v, merge_key));
    }
    if (index.First(*key) >= 0) {
      present->push_back(v);
    } else if (first_bad < by.size()) {
      return UnconvertedError("value for key " + std::to_string(first_bad) +
                              " is not a map");
    } else {
      absent->push_back(v);
    }
  }
  return Status::Ok();
}

Result<JsonList> NormalizeElementOrder(
    JsonList patch_items, JsonList server_only, const JsonList& patch_order,
    const JsonList& server_order, const std::string& merge_key, bool maps) {
  KMOCK_ASSIGN_OR_RETURN(JsonList patch_sorted,
                         NormalizeSliceOrder(std::move(patch_items),
                                             patch_order, merge_key, maps));
  KMOCK_ASSIGN_OR_RETURN(JsonList server_sorted,
                         NormalizeSliceOrder(std::move(server_only),
                                             server_order, merge_key, maps));
  return MergeSortedSlice(std::move(server_sorted), std::move(patch_sorted),
                          server_order, merge_key, maps);
}

std::string NoMergeKeyMessage(const json& map, const std::string& key) {
  return "map: " + GoValue(map) +
         " does not contain declared merge key: " + key;
}

std::string BadArgTypeMessage(const char* expected_type, const json& actual) {
  return std::string("expected a ") + expected_type + ", but received a " +
         GoTypeName(actual);
}

}  // namespace kmock::patch
