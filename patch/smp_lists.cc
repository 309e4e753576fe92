#include "patch/smp_lists.h"

#include <utility>

#include "patch/go_format.h"
#include "patch/patch_status.h"

namespace kmock::patch {
namespace {

using json = nlohmann::json;
using Less = std::function<bool(const JsonList&, size_t, size_t)>;

const json& NullJson() {
  static const json kNull;
  return kNull;
}

// The pieces of Go's stable sort (sort/zsortfunc.go), on [a, b).
void InsertionSort(JsonList& data, const Less& less, size_t a, size_t b) {
  for (size_t i = a + 1; i < b; ++i) {
    for (size_t j = i; j > a && less(data, j, j - 1); --j) {
      std::swap(data[j], data[j - 1]);
    }
  }
}

void SwapRange(JsonList& data, size_t a, size_t b, size_t n) {
  for (size_t i = 0; i < n; ++i) std::swap(data[a + i], data[b + i]);
}

void Rotate(JsonList& data, size_t a, size_t m, size_t b) {
  size_t i = m - a;
  size_t j = b - m;
  while (i != j) {
    if (i > j) {
      SwapRange(data, m - i, m, j);
      i -= j;
    } else {
      SwapRange(data, m - i, m + j - i, i);
      j -= i;
    }
  }
  SwapRange(data, m - i, m, i);
}

void SymMerge(JsonList& data, const Less& less, size_t a, size_t m, size_t b) {
  if (m - a == 1) {
    size_t i = m, j = b;
    while (i < j) {
      size_t h = (i + j) >> 1;
      if (less(data, h, a)) {
        i = h + 1;
      } else {
        j = h;
      }
    }
    for (size_t k = a; k + 1 < i; ++k) std::swap(data[k], data[k + 1]);
    return;
  }
  if (b - m == 1) {
    size_t i = a, j = m;
    while (i < j) {
      size_t h = (i + j) >> 1;
      if (!less(data, m, h)) {
        i = h + 1;
      } else {
        j = h;
      }
    }
    for (size_t k = m; k > i; --k) std::swap(data[k], data[k - 1]);
    return;
  }
  size_t mid = (a + b) >> 1;
  size_t n = mid + m;
  size_t start, r;
  if (m > mid) {
    start = n - b;
    r = mid;
  } else {
    start = a;
    r = m;
  }
  size_t p = n - 1;
  while (start < r) {
    size_t c = (start + r) >> 1;
    if (!less(data, p - c, c)) {
      start = c + 1;
    } else {
      r = c;
    }
  }
  size_t end = n - start;
  if (start < m && m < end) Rotate(data, start, m, end);
  if (a < start && start < mid) SymMerge(data, less, a, start, mid);
  if (mid < end && end < b) SymMerge(data, less, mid, end, b);
}

bool HasDeleteDirective(const json& item) {
  if (!item.is_object()) return false;
  auto it = item.find("$patch");
  return it != item.end() && it->is_string() && *it == "delete";
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
  GoStableSort(to_sort, [&](const JsonList& list, size_t i, size_t j) {
    int ii = IndexIn(order, list[i], merge_key, maps);
    if (ii >= 0) {
      int ij = IndexIn(order, list[j], merge_key, maps);
      if (ij >= 0) return ii < ij;
    }
    return true;
  });
  for (json& item : to_delete) to_sort.push_back(std::move(item));
  return to_sort;
}

// mergeSortedSlice: inserts each of left into right by server order.
JsonList MergeSortedSlice(JsonList left, JsonList right,
                          const JsonList& server_order,
                          const std::string& merge_key, bool maps) {
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
      int li = IndexIn(server_order, left[i], merge_key, maps);
      int ri = IndexIn(server_order, right[j], merge_key, maps);
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
  if (a.is_structured() || b.is_structured()) return false;
  if (GoTypeName(a) != GoTypeName(b)) return false;
  return a == b;
}

void GoStableSort(JsonList& data, const Less& less) {
  const size_t n = data.size();
  size_t block = 20;
  size_t a = 0, b = block;
  while (b <= n) {
    InsertionSort(data, less, a, b);
    a = b;
    b += block;
  }
  InsertionSort(data, less, a, n);
  while (block < n) {
    a = 0;
    b = 2 * block;
    while (b <= n) {
      SymMerge(data, less, a, a + block, b);
      a = b;
      b += 2 * block;
    }
    size_t m = a + block;
    if (m < n) SymMerge(data, less, a, m, n);
    block *= 2;
  }
}

JsonList DeduplicateScalars(JsonList s) {
  // Signed indices as in Go: `length` can reach -1 for an empty list.
  long length = static_cast<long>(s.size()) - 1;
  for (long i = 0; i < length; ++i) {
    for (long j = i + 1; j <= length; ++j) {
      if (GoEqual(s[i], s[j])) {
        s[j] = s[length];
        s.resize(static_cast<size_t>(length));
        --length;
        --j;
      }
    }
  }
  return s;
}

JsonList DeleteFromSlice(const JsonList& current, const JsonList& to_delete) {
  JsonList out;
  for (const json& v : current) {
    bool found = false;
    for (const json& d : to_delete) {
      if (GoEqual(v, d)) {
        found = true;
        break;
      }
    }
    if (!found) out.push_back(v);
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

int IndexIn(const JsonList& list, const json& item,
            const std::string& merge_key, bool maps) {
  const json& wanted = MatchValue(item, merge_key, maps);
  for (size_t i = 0; i < list.size(); ++i) {
    if (GoEqual(wanted, MatchValue(list[i], merge_key, maps))) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

Result<int> FindMapByKey(const JsonList& list, const std::string& key,
                         const json& value) {
  for (size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_object()) {
      return UnconvertedError("value for key " + std::to_string(i) +
                              " is not a map");
    }
    auto it = list[i].find(key);
    if (it != list[i].end() && GoEqual(*it, value)) return static_cast<int>(i);
  }
  return -1;
}

void PartitionPrimitives(const JsonList& list, const JsonList& by,
                         JsonList* present, JsonList* absent) {
  for (const json& v : list) {
    bool found = false;
    for (const json& b : by) {
      if (GoEqual(v, b)) {
        found = true;
        break;
      }
    }
    (found ? present : absent)->push_back(v);
  }
}

Status PartitionMaps(const JsonList& list, const JsonList& by,
                     const std::string& merge_key, JsonList* present,
                     JsonList* absent) {
  for (const json& v : list) {
    if (!v.is_object()) {
      return UnconvertedError(BadArgTypeMessage("map[string]interface {}", v));
    }
    auto key = v.find(merge_key);
    if (key == v.end()) {
      return UnconvertedError(NoMergeKeyMessage(v, merge_key));
    }
    KMOCK_ASSIGN_OR_RETURN(int idx, FindMapByKey(by, merge_key, *key));
    (idx >= 0 ? present : absent)->push_back(v);
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
