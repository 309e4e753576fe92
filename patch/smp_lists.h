// List helpers for strategic merge patch that must order elements exactly
// as apimachinery's strategicpatch does (pkg/util/strategicpatch/patch.go:
// normalizeElementOrder, normalizeSliceOrder, mergeSortedSlice,
// deduplicateScalars). Their results depend on Go details we reproduce:
// interface equality of scalars (int64 and float64 never equal), the
// swap-with-last duplicate removal, and sort.SliceStable's algorithm
// (insertion sort on blocks of 20, then in-place symmetric merges) run with
// upstream's comparator, which is not a strict weak ordering.
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_PATCH_SMP_LISTS_H_
#define KMOCK_PATCH_SMP_LISTS_H_

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/status.h"

namespace kmock::patch {

using JsonList = std::vector<nlohmann::json>;

// Go's == on two interface{} values holding decoded JSON scalars. Objects
// and arrays are never equal (Go would panic comparing them).
bool GoEqual(const nlohmann::json& a, const nlohmann::json& b);

// sort.SliceStable(list, less) where less(i, j) sees the current list.
void GoStableSort(
    JsonList& list,
    const std::function<bool(const JsonList&, size_t, size_t)>& less);

// deduplicateScalars: removes later duplicates by moving the last element
// into their place.
JsonList DeduplicateScalars(JsonList list);

// deleteFromSlice: current without the values in to_delete.
JsonList DeleteFromSlice(const JsonList& current, const JsonList& to_delete);

// The value merge lists are matched on: the element's merge-key value for
// lists of maps (null when absent or not a map), else the element itself.
const nlohmann::json& MatchValue(const nlohmann::json& item,
                                 const std::string& merge_key, bool maps);

// index(): position of item in list by MatchValue, or -1.
int IndexIn(const JsonList& list, const nlohmann::json& item,
            const std::string& merge_key, bool maps);

// findMapInSliceBasedOnKeyValue: the index of the first map whose merge key
// equals value, -1 if none; error if an element is not a map.
Result<int> FindMapByKey(const JsonList& list, const std::string& key,
                         const nlohmann::json& value);

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
