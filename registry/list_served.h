// A LIST's items as shared served objects (each decoded once, through the
// ServedObjectCache), a chunk at a time: what a Table or a YAML LIST
// renders, so that a long one is never decoded whole; Registry::ListServed
// reads one to its end.
//
// Thread safety: one reader per request; it reads the thread-safe Storage
// and ServedObjectCache.
#ifndef KMOCK_REGISTRY_LIST_SERVED_H_
#define KMOCK_REGISTRY_LIST_SERVED_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "registry/list_cursor.h"
#include "registry/served_object.h"

namespace kmock::registry {

class ServedListReader {
 public:
  ServedListReader(ListCursor cursor, const api::ResourceInfo& res,
                   ServedObjectCache* cache, bool metadata_view)
      : cursor_(std::move(cursor)),
        res_(res),
        cache_(cache),
        metadata_view_(metadata_view) {}

  // Appends the matching items among up to `chunk` more keys. Returns
  // whether more may follow.
  Result<bool> Next(std::vector<ServedPtr>* out, size_t chunk = kListChunk);

  // Valid after the first Next.
  int64_t revision() const { return cursor_.revision(); }
  std::string continue_token() const { return cursor_.continue_token(); }
  std::optional<int64_t> remaining_item_count() const {
    return cursor_.remaining_item_count();
  }

 private:
  ListCursor cursor_;
  const api::ResourceInfo& res_;
  ServedObjectCache* cache_;
  const bool metadata_view_;
};

}  // namespace kmock::registry

#endif  // KMOCK_REGISTRY_LIST_SERVED_H_
