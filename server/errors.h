// Turns a Status into kube-apiserver's answer: the HTTP code and the
// metav1.Status JSON body. This is the ONE place where error codes become
// HTTP; every handler writes errors through it.
//
// Also holds the constructors for errors the HTTP layer itself raises
// (unknown path, method not allowed, unauthorized, too large, unsupported
// media type, not acceptable, invalid request options), with the messages
// kube-apiserver uses.
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_SERVER_ERRORS_H_
#define KMOCK_SERVER_ERRORS_H_

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace kmock::server {

// The HTTP status code for a Status (200 for OK).
int HttpCode(const Status& status);
// The Kubernetes reason ("NotFound", "Invalid", ...): the Status's explicit
// reason if set, else the default for its code; "" for OK.
std::string Reason(const Status& status);
// {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
//  "message":..., "reason":..., "details":{...}, "code":N}.
nlohmann::json StatusJson(const Status& status);
// A Success Status (e.g. what a delete returns when the object is gone).
nlohmann::json SuccessStatusJson(const StatusDetails& details);

// 404 "the server could not find the requested resource" (details {}).
Status NotFoundPathError();
// 405 "the server does not allow this method on the requested resource".
Status MethodNotAllowedError();
// 401 "Unauthorized".
Status UnauthorizedError();
// 413 "Request entity too large: limit is N".
Status RequestEntityTooLargeError(size_t limit);
// 415 "the body of the request was in an unknown format - accepted media
// types include: a, b".
Status UnsupportedMediaTypeError(const std::vector<std::string>& accepted);
// 406 "only the following media types are accepted: ...".
Status NotAcceptableError(const std::vector<std::string>& accepted);
// 422 for a bad request option, e.g. kind "CreateOptions", field "dryRun",
// detail `Unsupported value: []string{"x"}: supported values: "All"`:
// `CreateOptions.meta.k8s.io "" is invalid: dryRun: <detail>`.
Status InvalidOptionsError(std::string_view options_kind,
                           std::string_view field, std::string_view reason,
                           std::string_view detail);

}  // namespace kmock::server

#endif  // KMOCK_SERVER_ERRORS_H_
