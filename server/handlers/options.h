// Query parameters (and DeleteOptions bodies) → registry options, with
// kube-apiserver's checks: dryRun must be "All"; fieldValidation one of
// Strict/Warn/Ignore (default Warn); limit and timeoutSeconds integers.
// A missing fieldManager is derived from the User-Agent (the part before
// the first '/'), as kube-apiserver does.
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_SERVER_HANDLERS_OPTIONS_H_
#define KMOCK_SERVER_HANDLERS_OPTIONS_H_

#include <httplib.h>

#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "registry/registry.h"
#include "server/request_info.h"

namespace kmock::server {

// The first value of a query parameter, "" if absent.
std::string QueryParam(const httplib::Request& req, const std::string& name);

Result<registry::ListOptions> ListOptionsFrom(const httplib::Request& req);
// `info` adds metadata.name=<name> for a legacy /watch/.../<name> path.
Result<registry::WatchOptions> WatchOptionsFrom(const httplib::Request& req,
                                                const RequestInfo& info);
// timeoutSeconds, if given (kBadRequest if not a number).
Result<std::optional<int64_t>> TimeoutSecondsFrom(const httplib::Request& req);

// `options_kind` names the options type in errors: "CreateOptions",
// "UpdateOptions" or "PatchOptions".
Result<registry::WriteOptions> WriteOptionsFrom(const httplib::Request& req,
                                                const registry::UserInfo& user,
                                                std::string_view options_kind);

struct DeleteRequest {
  registry::DeleteOptions options;
  // orphanDependents: false was given explicitly (a pending deletion then
  // answers 202 rather than 200, as kube-apiserver does).
  bool orphan_dependents_false = false;
};

// From query parameters, then the JSON DeleteOptions body (which wins).
Result<DeleteRequest> DeleteRequestFrom(const httplib::Request& req,
                                        std::string_view body,
                                        const registry::UserInfo& user);
// The same with the DeleteOptions already decoded (null: none), as an
// Eviction carries them.
Result<DeleteRequest> DeleteRequestFromJson(const httplib::Request& req,
                                            const nlohmann::json& body,
                                            const registry::UserInfo& user);

}  // namespace kmock::server

#endif  // KMOCK_SERVER_HANDLERS_OPTIONS_H_
