// Walks the keys of one LIST at one revision, a chunk at a time: the
// options' checks (resourceVersion and resourceVersionMatch, continue
// tokens, selectors), the revision every chunk reads, the limit, and the
// continue token and remainingItemCount of a page that stops early. Callers
// decide what an item is (a decoded object, or JSON spliced from stored
// bytes) and whether it matches; the cursor counts the matches.
//
// Reading in chunks keeps a LIST of 150,000 objects from holding all their
// stored bytes at once.
//
// Thread safety: one cursor per reader; the Storage it reads is
// thread-safe.
#ifndef KMOCK_REGISTRY_LIST_CURSOR_H_
#define KMOCK_REGISTRY_LIST_CURSOR_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "api/resource.h"
#include "common/status.h"
#include "registry/object_codec.h"
#include "store/storage.h"

namespace kmock::registry {

struct ListOptions;

// Keys read per chunk: a few MB of stored bytes at a time.
inline constexpr size_t kListChunk = 1000;

class ListCursor {
 public:
  // Checks the options; 400, 410 or 504 (too large resourceVersion) as
  // kube-apiserver answers bad ones.
  static Result<ListCursor> Open(store::Storage* storage,
                                 const api::ResourceInfo& res,
                                 std::string_view ns, const ListOptions& opts);

  // Reads up to `chunk` more keys (fewer when the limit is near) and calls
  // visit for each, which says whether the item matched (and was taken).
  // The item's key and value are views into the store's buffers, valid
  // during the call. Returns whether keys may remain: false once the list
  // is complete or its limit reached. An error from visit ends the walk
  // with that error.
  Result<bool> Next(
      size_t chunk,
      const std::function<Result<bool>(const store::KeyValueView&)>& visit);

  // The list's revision (known after the first Next).
  int64_t revision() const { return list_rev_; }
  const Filter& filter() const { return filter_; }
  int64_t matched() const { return count_; }
  // Empty when the list is complete.
  std::string continue_token() const;
  // With a continue token, when the list has no selectors.
  std::optional<int64_t> remaining_item_count() const;

 private:
  ListCursor() = default;

  store::Storage* storage_ = nullptr;
  const api::ResourceInfo* res_ = nullptr;
  Filter filter_;
  std::string prefix_;
  std::string start_key_;
  std::string next_key_;
  bool continuing_ = false;  // opened with a continue token
  int64_t read_rev_ = 0;     // 0: the current revision, until the first read
  int64_t list_rev_ = 0;
  int64_t limit_ = 0;
  int64_t count_ = 0;
  bool done_ = false;
  bool more_ = false;  // the limit cut the list short
  int64_t remaining_ = 0;
};

}  // namespace kmock::registry

#endif  // KMOCK_REGISTRY_LIST_CURSOR_H_
