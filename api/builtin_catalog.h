// The built-in catalog as one shared instance, for unit tests and fuzz
// targets that need the real resources without a registry. The server
// itself never uses it: the registry owns the catalog it serves.
//
// Thread safety: built once (function-local static); a Catalog is safe
// from any thread.
#ifndef KMOCK_API_BUILTIN_CATALOG_H_
#define KMOCK_API_BUILTIN_CATALOG_H_

#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "api/catalog_loader.h"

namespace kmock::api::testing {

inline const Catalog& BuiltinCatalog() {
  static const Catalog* catalog = [] {
    auto loaded = LoadBuiltinCatalog(Schema::Builtin());
    if (!loaded.ok()) {
      std::fprintf(stderr, "built-in catalog: %s\n",
                   loaded.status().message().c_str());
      std::abort();
    }
    return std::move(loaded).value().release();
  }();
  return *catalog;
}

// The Table row the built-in resource group/v1/plural prints for obj.
inline std::vector<nlohmann::json> RowOf(std::string_view group,
                                         std::string_view plural,
                                         const nlohmann::json& obj,
                                         TimePoint now) {
  return BuiltinCatalog().Find(group, "v1", plural)->cells(obj, now);
}

inline const std::vector<PrinterColumn>& ColumnsOf(std::string_view group,
                                                   std::string_view plural) {
  return BuiltinCatalog().Find(group, "v1", plural)->columns;
}

}  // namespace kmock::api::testing

#endif  // KMOCK_API_BUILTIN_CATALOG_H_
