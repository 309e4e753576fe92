// Builds Catalogs from the resource data: the built-in resources embedded
// from api/resources/*.yaml, and single entries in the same JSON form (the
// path custom resources take). Each entry is joined with its kind code
// (api/kinds/kind_code.h) or gets the generic strategy, its printer
// columns are compiled into a row printer and its selectable fields into
// value functions.
//
// Thread safety: pure functions of their arguments; safe from any thread.
#ifndef KMOCK_API_CATALOG_LOADER_H_
#define KMOCK_API_CATALOG_LOADER_H_

#include <memory>
#include <nlohmann/json.hpp>

#include "api/resource.h"
#include "api/schema.h"
#include "common/status.h"

namespace kmock::api {

// One resource from an entry as the build embeds it (see
// api/tools/schema_embed.cc for the JSON keys). Errors name the entry.
Result<std::unique_ptr<ResourceInfo>> ResourceFromData(
    const nlohmann::json& entry, const Schema& schema);

// The newest Kubernetes minor version whose API the catalog serves, and
// the oldest kubectl that talks to it (1.27).
inline constexpr int kNewestServedMinor = 33;

// Every built-in resource a 1.`minor` server serves (entries carry the
// versions that serve them: servedFrom, servedUntil). Fails only if the
// embedded data is inconsistent with the code (a unit test loads it, so
// that never ships).
Result<std::unique_ptr<Catalog>> LoadBuiltinCatalog(
    const Schema& schema, int minor = kNewestServedMinor);

}  // namespace kmock::api

#endif  // KMOCK_API_CATALOG_LOADER_H_
