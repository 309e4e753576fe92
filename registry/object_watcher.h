// Watches of one resource for the registry: turns store events under the
// resource's key prefix into ADDED/MODIFIED/DELETED events of served objects,
// filtered by namespace, label and field selectors.
//
// A MODIFIED change becomes ADDED when the object enters the selection and
// DELETED when it leaves it (as kube-apiserver re-types events). A watch
// from resourceVersion "" or "0" (or with sendInitialEvents) starts with a
// synthetic ADDED event per current object; with sendInitialEvents and
// bookmarks it then sends the "k8s.io/initial-events-end" BOOKMARK.
// Bookmarks, when allowed, come about once a minute.
//
// Thread safety: one watcher is used by one thread at a time.
#ifndef KMOCK_REGISTRY_OBJECT_WATCHER_H_
#define KMOCK_REGISTRY_OBJECT_WATCHER_H_

#include <memory>
#include <string_view>

#include "registry/registry.h"

namespace kmock::registry {

Result<std::unique_ptr<ObjectWatcher>> StartObjectWatch(
    Registry* registry, const api::ResourceInfo& res, std::string_view ns,
    const WatchOptions& opts);

}  // namespace kmock::registry

#endif  // KMOCK_REGISTRY_OBJECT_WATCHER_H_
