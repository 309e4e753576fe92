// A LIST's items written as JSON straight from stored bytes: each item is
// its stored bytes with the resourceVersion put back (registry/stored_json),
// decoded only when a field selector must read it or the bytes cannot be
// spliced. What GET of a collection sends in the common case (JSON, not a
// Table), a chunk at a time, so the server can stream a list of 150,000
// pods without building it.
//
// Thread safety: one writer per request; it reads the thread-safe Storage
// and ServedObjectCache.
#ifndef KMOCK_REGISTRY_LIST_JSON_H_
#define KMOCK_REGISTRY_LIST_JSON_H_

#include <cstdint>
#include <optional>
#include <string>

#include "registry/list_cursor.h"
#include "registry/served_object.h"

namespace kmock::registry {

class ListJsonWriter {
 public:
  ListJsonWriter(ListCursor cursor, const api::ResourceInfo& res,
                 ServedObjectCache* cache, bool metadata_view)
      : cursor_(std::move(cursor)),
        res_(res),
        cache_(cache),
        metadata_view_(metadata_view) {}

  // Appends the next chunk of items, comma-separated (and after a comma
  // when items came before). Returns whether more may follow.
  Result<bool> Next(std::string* out, size_t chunk = kListChunk);

  // Valid after the first Next.
  int64_t revision() const { return cursor_.revision(); }
  std::string continue_token() const { return cursor_.continue_token(); }
  std::optional<int64_t> remaining_item_count() const {
    return cursor_.remaining_item_count();
  }

 private:
  // Appends kv as a list item if it matches; returns whether it did.
  Result<bool> AppendItem(const store::KeyValueView& kv, std::string* out);

  ListCursor cursor_;
  const api::ResourceInfo& res_;
  ServedObjectCache* cache_;
  const bool metadata_view_;
  bool any_ = false;
};

}  // namespace kmock::registry

#endif  // KMOCK_REGISTRY_LIST_JSON_H_
