#include "server/errors.h"

#include "patch/patch_status.h"

namespace kmock::server {
namespace {

using nlohmann::json;

struct CodeInfo {
  int http;
  const char* reason;
  // kube-apiserver's constructors for these reasons always set details,
  // so an empty details object is still sent.
  bool always_details;
};

CodeInfo Info(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return {200, "", false};
    case StatusCode::kBadRequest:
      return {400, "BadRequest", false};
    case StatusCode::kUnauthorized:
      return {401, "Unauthorized", false};
    case StatusCode::kForbidden:
      return {403, "Forbidden", true};
    case StatusCode::kNotFound:
      return {404, "NotFound", true};
    case StatusCode::kMethodNotAllowed:
      return {405, "MethodNotAllowed", true};
    case StatusCode::kNotAcceptable:
      return {406, "NotAcceptable", false};
    case StatusCode::kAlreadyExists:
      return {409, "AlreadyExists", true};
    case StatusCode::kConflict:
      return {409, "Conflict", true};
    case StatusCode::kGone:
      return {410, "Gone", false};
    case StatusCode::kExpired:
    case StatusCode::kCompacted:
    case StatusCode::kFellBehind:
      return {410, "Expired", false};
    case StatusCode::kRequestEntityTooLarge:
      return {413, "RequestEntityTooLarge", false};
    case StatusCode::kUnsupportedMediaType:
      return {415, "UnsupportedMediaType", false};
    case StatusCode::kInvalid:
      return {422, "Invalid", true};
    case StatusCode::kTooManyRequests:
      return {429, "TooManyRequests", true};
    case StatusCode::kInternal:
      return {500, "InternalError", true};
    case StatusCode::kUnclassified:
      return {500, "", false};
    case StatusCode::kServiceUnavailable:
      return {503, "ServiceUnavailable", false};
    case StatusCode::kTimeout:
    case StatusCode::kFutureRevision:
      return {504, "Timeout", true};
  }
  return {500, "InternalError", true};
}

bool DetailsEmpty(const StatusDetails& d) {
  return d.name.empty() && d.group.empty() && d.kind.empty() && d.uid.empty() &&
         d.causes.empty() && d.retry_after_seconds == 0;
}

json DetailsJson(const StatusDetails& d) {
  json out = json::object();
  if (!d.name.empty()) out["name"] = d.name;
  if (!d.group.empty()) out["group"] = d.group;
  if (!d.kind.empty()) out["kind"] = d.kind;
  if (!d.uid.empty()) out["uid"] = d.uid;
  if (!d.causes.empty()) {
    json causes = json::array();
    for (const StatusCause& c : d.causes) {
      json cause = json::object();
      if (!c.reason.empty()) cause["reason"] = c.reason;
      if (!c.message.empty()) cause["message"] = c.message;
      if (!c.field.empty()) cause["field"] = c.field;
      causes.push_back(std::move(cause));
    }
    out["causes"] = std::move(causes);
  }
  if (d.retry_after_seconds > 0)
    out["retryAfterSeconds"] = d.retry_after_seconds;
  return out;
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) {
    if (!out.empty()) out += ", ";
    out += s;
  }
  return out;
}

}  // namespace

int HttpCode(const Status& status) { return Info(status.code()).http; }

std::string Reason(const Status& status) {
  if (!status.reason().empty()) return status.reason();
  return Info(status.code()).reason;
}

json StatusJson(const Status& status) {
  CodeInfo info = Info(status.code());
  json out = {{"kind", "Status"},
              {"apiVersion", "v1"},
              {"metadata", json::object()},
              {"status", status.ok() ? "Success" : "Failure"}};
  if (!status.list_continue().empty())
    out["metadata"]["continue"] = status.list_continue();
  if (!status.message().empty()) out["message"] = status.message();
  std::string reason = Reason(status);
  // Go's StatusReasonUnknown is "": an error nobody converted is sent with
  // neither reason nor details, and kubectl prints "Error from server: ...".
  bool unconverted = reason == patch::kReasonUnknown;
  if (!reason.empty() && !unconverted) out["reason"] = reason;
  if (!unconverted &&
      (!DetailsEmpty(status.details()) || info.always_details)) {
    out["details"] = DetailsJson(status.details());
  }
  out["code"] = info.http;
  return out;
}

json SuccessStatusJson(const StatusDetails& details) {
  json out = {{"kind", "Status"},
              {"apiVersion", "v1"},
              {"metadata", json::object()},
              {"status", "Success"}};
  out["details"] = DetailsJson(details);
  return out;
}

Status NotFoundPathError() {
  return Status(StatusCode::kNotFound,
                "the server could not find the requested resource");
}

Status MethodNotAllowedError() {
  return Status(StatusCode::kMethodNotAllowed,
                "the server does not allow this method on the requested "
                "resource");
}

Status UnauthorizedError() {
  return Status(StatusCode::kUnauthorized, "Unauthorized");
}

Status RequestEntityTooLargeError(size_t limit) {
  return Status(StatusCode::kRequestEntityTooLarge,
                "Request entity too large: limit is " + std::to_string(limit));
}

Status UnsupportedMediaTypeError(const std::vector<std::string>& accepted) {
  return Status(StatusCode::kUnsupportedMediaType,
                "the body of the request was in an unknown format - accepted "
                "media types include: " +
                    Join(accepted));
}

Status NotAcceptableError(const std::vector<std::string>& accepted) {
  return Status(
      StatusCode::kNotAcceptable,
      "only the following media types are accepted: " + Join(accepted));
}

Status InvalidOptionsError(std::string_view options_kind,
                           std::string_view field, std::string_view reason,
                           std::string_view detail) {
  StatusDetails details;
  details.group = "meta.k8s.io";
  details.kind = std::string(options_kind);
  details.causes.push_back(
      {std::string(reason), std::string(detail), std::string(field)});
  std::string msg = std::string(options_kind) +
                    ".meta.k8s.io \"\" is invalid: " + std::string(field) +
                    ": " + std::string(detail);
  return Status(StatusCode::kInvalid, std::move(msg), std::move(details));
}

}  // namespace kmock::server
