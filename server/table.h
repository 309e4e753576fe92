// Table output (Accept ...;as=Table;g=meta.k8s.io): a List or one object
// turned into a metav1 Table with the resource's printer columns.
//
// rows[].object is, per includeObject: Metadata (default) a
// PartialObjectMetadata {kind, apiVersion meta.k8s.io/<v>, metadata};
// Object the full object; None nothing. The Table's metadata carries the
// List's resourceVersion, continue and remainingItemCount.
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_SERVER_TABLE_H_
#define KMOCK_SERVER_TABLE_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "api/resource.h"
#include "common/clock.h"
#include "common/status.h"

namespace kmock::server {

enum class IncludeObject { kNone, kMetadata, kObject };

struct TableOptions {
  std::string version = "v1";  // meta.k8s.io version: "v1" or "v1beta1"
  IncludeObject include = IncludeObject::kMetadata;
};

// The includeObject query parameter: "" and "Metadata", "Object", "None";
// anything else is kBadRequest.
Result<IncludeObject> ParseIncludeObject(std::string_view value);

// The Table of a List object (its items become rows).
nlohmann::json ListToTable(const api::ResourceInfo& res,
                           const nlohmann::json& list, TimePoint now,
                           const TableOptions& opts);
// A Table with no rows, its metadata taken from a List's `list_meta`
// (resourceVersion, continue, remainingItemCount): what a streamed Table
// starts from.
nlohmann::json TableFrame(const api::ResourceInfo& res,
                          const nlohmann::json& list_meta,
                          const TableOptions& opts);
// One row of a Table, for an item of a List.
nlohmann::json TableRow(const api::ResourceInfo& res, const nlohmann::json& obj,
                        TimePoint now, const TableOptions& opts);
// A one-row Table of a single object.
nlohmann::json ObjectToTable(const api::ResourceInfo& res,
                             const nlohmann::json& obj, TimePoint now,
                             const TableOptions& opts);

}  // namespace kmock::server

#endif  // KMOCK_SERVER_TABLE_H_
