// managedFields on every write and server-side apply, as kube-apiserver's
// field manager does them (structured-merge-diff ownership rules).
//
// UpdateManagedFields runs on create, update and non-apply patch: the
// writer takes the fields whose values it set or changed, the other
// managers lose those fields and any removed ones, and the result carries
// the new metadata.managedFields. Apply merges an apply configuration into
// the live object, prunes what the applier stopped applying, reports
// conflicts with other managers as a 409 with FieldManagerConflict causes
// and kubectl's message, and records the applier's "Apply" entry.
//
// Fields upstream never tracks (apiVersion, kind, metadata.name,
// namespace, uid, resourceVersion, generation, creationTimestamp,
// managedFields, selfLink) are left out of every set; reset fields (status
// on the main resource of kinds with a status subresource, spec on the
// status subresource) are ignored as the resource's strategy asks.
//
// Thread safety: pure functions; safe from any thread. Schema objects are
// only read.
#ifndef KMOCK_FIELDMANAGER_FIELD_MANAGER_H_
#define KMOCK_FIELDMANAGER_FIELD_MANAGER_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "api/schema.h"
#include "common/clock.h"
#include "common/status.h"
#include "fieldmanager/field_set.h"
#include "fieldmanager/type_node.h"

namespace kmock::fieldmanager {

struct ManagerInfo {
  std::string manager;               // fieldManager, else from the user agent
  std::string operation = "Update";  // UpdateManagedFields writes "Update"
  std::string api_version;           // "v1", "apps/v1"
  std::string subresource;           // "" or "status"
  TimePoint time;                    // the write time
  // Paths (with everything below them) no manager may own on this
  // endpoint; see DefaultResetFields.
  std::vector<Path> reset_fields;
};

struct ApplyOptions {
  std::string manager;
  bool force = false;
  std::string api_version;  // expected apiVersion of the body, "apps/v1"
  std::string kind;         // expected kind, "Deployment"
  std::string subresource;  // "" or "status"
  TimePoint time;
  std::vector<Path> reset_fields;
};

struct ApplyResult {
  nlohmann::json object;  // the merged object with its managedFields
  bool created = false;   // live was null
};

// {f:status} for the main resource of a kind with a status subresource,
// {f:spec} for its status subresource, nothing otherwise.
std::vector<Path> DefaultResetFields(std::string_view subresource,
                                     bool has_status_subresource);

// old_obj: null on create. new_obj: what is about to be stored; the
// managedFields it carries are used as a starting point when non-empty
// (a client may replace them, or clear them by sending [{}]), except on
// subresources, where the live object's count. Returns new_obj with
// metadata.managedFields set (removed when no entry is left).
Result<nlohmann::json> UpdateManagedFields(const nlohmann::json& old_obj,
                                           nlohmann::json new_obj,
                                           const ManagerInfo& m,
                                           const api::Schema& schema,
                                           const api::Type* root);
Result<nlohmann::json> UpdateManagedFields(const nlohmann::json& old_obj,
                                           nlohmann::json new_obj,
                                           const ManagerInfo& m,
                                           const TypeResolver& resolver,
                                           const api::Type* root);

// live: null when the object does not exist (apply creates it). applied:
// the apply configuration as JSON. Errors: 400 "invalid object type: ..."
// when apiVersion/kind do not match, 400 "metadata.managedFields must be
// nil", 500 for configurations the schema rejects (a keyed-list item
// without its keys, duplicate items), 409 Conflict for conflicts.
Result<ApplyResult> Apply(const nlohmann::json& live,
                          const nlohmann::json& applied, const ApplyOptions& o,
                          const api::Schema& schema, const api::Type* root);
Result<ApplyResult> Apply(const nlohmann::json& live,
                          const nlohmann::json& applied, const ApplyOptions& o,
                          const TypeResolver& resolver, const api::Type* root);

}  // namespace kmock::fieldmanager

#endif  // KMOCK_FIELDMANAGER_FIELD_MANAGER_H_
