// OpenAPI documents generated from the schema (api/schema.h) and the
// catalog (api/resource.h): what `kubectl apply` checks for fieldValidation
// support, what it computes strategic merge patches from, and what
// `kubectl explain` prints.
//
// Thread safety: pure functions of immutable inputs; safe from any thread.
// Callers may cache the results (they never change while the process runs).
#ifndef KMOCK_API_OPENAPI_H_
#define KMOCK_API_OPENAPI_H_

#include <nlohmann/json.hpp>
#include <string>

#include "api/resource.h"
#include "api/schema.h"

namespace kmock::api {

// GET /openapi/v3: {"paths": {"api/v1": {"serverRelativeURL":
// "/openapi/v3/api/v1?hash=<H>"}, "apis/apps/v1": {...}, ...}}, one entry
// per group/version in the catalog; H is the hash of that document.
nlohmann::json OpenApiV3Index(const Catalog& catalog, const Schema& schema,
                              const std::string& kubernetes_version);

// GET /openapi/v3/api/v1 or /openapi/v3/apis/<group>/<version>: the full
// OpenAPI 3.0 document of one group/version: paths for every resource and
// verb (with the fieldValidation, dryRun, fieldManager parameters and the
// patch content types), components.schemas with every type reachable from
// the group/version's kinds, x-kubernetes-group-version-kind, descriptions,
// $refs, required lists, enums, formats and the patch/list extensions.
// `group` is "" for the core group. Returns null json if unknown.
nlohmann::json OpenApiV3Document(const Catalog& catalog, const Schema& schema,
                                 const std::string& group,
                                 const std::string& version,
                                 const std::string& kubernetes_version);

// GET /openapi/v2 as protobuf (gnostic openapi_v2.Document): the bytes
// kubectl 1.27/1.28 load before they use v3.
std::string OpenApiV2Protobuf(const Catalog& catalog, const Schema& schema,
                              const std::string& kubernetes_version);

}  // namespace kmock::api

#endif  // KMOCK_API_OPENAPI_H_
