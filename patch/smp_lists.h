// List helpers for strategic merge patch that must order elements exactly
// as apimachinery's strategicpatch does (pkg/util/strategicpatch/patch.go:
// normalizeElementOrder, normalizeSliceOrder, mergeSortedSlice,
// deduplicateScalars). Their results depend on Go details we reproduce:
// interface equality of scalars (int64 and float64 never equal), the
// swap-with-last duplicate removal, and sort.SliceStable's algorithm
// (go_stable_sort.h) run with upstream's comparator, which is not a strict
// weak ordering.
//
// Upstream finds elements by scanning lists, which makes a merge of two
// lists of n elements cost O(n^2) comparisons (O(n^2 log^2 n) for the
// sorts): minutes for 20,000 env entries. Here every lookup goes through a
// hash index (ValuePositions) and the sorts compare precomputed positions,
// so the same results cost O(n log^2 n) at worst, O(n) for most steps.
//
// Thread safety: pure functions; safe from any thread. ValuePositions is a
// plain value (const methods safe from many threads). The comparison
// counter is per thread.
#ifndef KMOCK_PATCH_SMP_LISTS_H_
#define KMOCK_PATCH_SMP_LISTS_H_

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/status.h"

namespace kmock::patch {

using JsonList = std::vector<nlohmann::json>;

// Go's == on two interface{} values holding decoded JSON scalars. Objects
// and arrays are never equal (Go would panic comparing them).
bool GoEqual(const nlohmann::json& a, const nlohmann::json& b);

// Element comparisons made by this file's helpers on the calling thread so
// far: GoEqual calls (each hash-index hit costs one) and sort comparator
// calls. Tests read it to pin the lists' cost as a count, which no slow
// machine can make flaky.
uint64_t ListComparisons();

// The positions of values in a list under GoEqual: what upstream finds by
// scanning the list, in O(1). Maps, lists (never equal to anything in Go)
// and NaN are not indexed, so lookups of them find nothing, as GoEqual
// does. The positions of one value stay in the order they were added.
class ValuePositions {
 public:
  ValuePositions() = default;
  // Every element of list by MatchValue (what upstream's index() compares).
  ValuePositions(const JsonList& list, const std::string& merge_key, bool maps);

  void Add(const nlohmann::json& value, size_t position);
  // The first position of value still held, or -1.
  long First(const nlohmann::json& value) const;
  // Forgets the first position of value. REQUIRES: First(value) >= 0.
  void DropFirst(const nlohmann::json& value);
  // The positions of value still held, in order; forgets them.
  std::vector<size_t> TakeAll(const nlohmann::json& value);

 private:
  struct Hash {
    size_t operator()(const nlohmann::json& v) const;
  };
  struct Equal {
    bool operator()(const nlohmann::json& a, const nlohmann::json& b) const {
      return GoEqual(a, b);
    }
  };
  struct Entry {
    std::vector<size_t> positions;
    size_t head = 0;  // positions before it were dropped
  };
  std::unordered_map<nlohmann::json, Entry, Hash, Equal> map_;
};

// deduplicateScalars: removes later duplicates by moving the last element
// into their place.
JsonList DeduplicateScalars(JsonList list);

// deleteFromSlice: current without the values in to_delete.
JsonList DeleteFromSlice(const JsonList& current, const JsonList& to_delete);

// The value merge lists are matched on: the element's merge-key value for
// lists of maps (null when absent or not a map), else the element itself.
const nlohmann::json& MatchValue(const nlohmann::json& item,
                                 const std::string& merge_key, bool maps);

// partitionPrimitivesByPresentInList / partitionMapsByPresentInList:
// elements of list present in `by` go to *present, the others to *absent.
void PartitionPrimitives(const JsonList& list, const JsonList& by,
                         JsonList* present, JsonList* absent);
Status PartitionMaps(const JsonList& list, const JsonList& by,
                     const std::string& merge_key, JsonList* present,
                     JsonList* absent);

// normalizeElementOrder: sorts patch_items by patch_order and server_only by
// server_order, then interleaves them keeping each side's order.
Result<JsonList> NormalizeElementOrder(JsonList patch_items,
                                       JsonList server_only,
                                       const JsonList& patch_order,
                                       const JsonList& server_order,
                                       const std::string& merge_key, bool maps);

// mergepatch error texts.
std::string NoMergeKeyMessage(const nlohmann::json& map,
                              const std::string& key);
std::string BadArgTypeMessage(const char* expected_type,
                              const nlohmann::json& actual);

}  // namespace kmock::patch

#endif  // KMOCK_PATCH_SMP_LISTS_H_
