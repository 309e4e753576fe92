// Constructors for the API errors the registry returns, with kube-apiserver's
// messages and details, e.g. NotFound → 404 `pods "x" not found`.
//
// Thread safety: pure functions.
#ifndef KMOCK_REGISTRY_API_ERRORS_H_
#define KMOCK_REGISTRY_API_ERRORS_H_

#include <chrono>
#include <optional>
#include <string>

#include "api/resource.h"
#include "common/status.h"

namespace kmock::registry {

// 404 `pods "x" not found`.
Status NotFound(const api::ResourceInfo& res, const std::string& name);
// 404 for a resource given by plural and group (e.g. namespaces).
Status NotFound(const std::string& group, const std::string& plural,
                const std::string& name);
// 409 AlreadyExists `pods "x" already exists`.
Status AlreadyExists(const api::ResourceInfo& res, const std::string& name);
// 409 Conflict `Operation cannot be fulfilled on pods "x": <detail>`.
Status Conflict(const api::ResourceInfo& res, const std::string& name,
                const std::string& detail);
// The optimistic-concurrency conflict: "the object has been modified; ...".
Status ModifiedConflict(const api::ResourceInfo& res, const std::string& name);
// 410 Expired with the given message.
Status Expired(const std::string& message);
// 410 Expired for a continue token whose revision was compacted, offering
// in metadata.continue a token that resumes at `start_key` (relative to the
// resource's key prefix) at the current revision, as kube-apiserver does.
Status ExpiredContinue(const std::string& start_key, int64_t current_revision);
// 400 BadRequest.
Status BadRequest(const std::string& message);
// 403 Forbidden `pods "x" is forbidden: <detail>`.
Status Forbidden(const api::ResourceInfo& res, const std::string& name,
                 const std::string& detail);
// 500 InternalError `Internal error occurred: <detail>`.
Status Internal(const std::string& detail);
// 504 Timeout, as kube-apiserver's timeout filter words it: "Timeout:
// request did not complete within the allotted timeout".
Status RequestTimedOut();
// RequestTimedOut() when `deadline` has passed, else Ok.
Status CheckDeadline(
    const std::optional<std::chrono::steady_clock::time_point>& deadline);

}  // namespace kmock::registry

#endif  // KMOCK_REGISTRY_API_ERRORS_H_
