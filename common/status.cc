#include "common/status.h"

namespace kmock {

const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "OK";
    case StatusCode::kBadRequest:
      return "BadRequest";
    case StatusCode::kUnauthorized:
      return "Unauthorized";
    case StatusCode::kForbidden:
      return "Forbidden";
    case StatusCode::kNotFound:
      return "NotFound";
    case StatusCode::kMethodNotAllowed:
      return "MethodNotAllowed";
    case StatusCode::kNotAcceptable:
      return "NotAcceptable";
    case StatusCode::kAlreadyExists:
      return "AlreadyExists";
    case StatusCode::kConflict:
      return "Conflict";
    case StatusCode::kGone:
      return "Gone";
    case StatusCode::kExpired:
      return "Expired";
    case StatusCode::kRequestEntityTooLarge:
      return "RequestEntityTooLarge";
    case StatusCode::kUnsupportedMediaType:
      return "UnsupportedMediaType";
    case StatusCode::kInvalid:
      return "Invalid";
    case StatusCode::kTooManyRequests:
      return "TooManyRequests";
    case StatusCode::kInternal:
      return "InternalError";
    case StatusCode::kUnclassified:
      return "Unclassified";
    case StatusCode::kServiceUnavailable:
      return "ServiceUnavailable";
    case StatusCode::kTimeout:
      return "Timeout";
    case StatusCode::kCompacted:
      return "Compacted";
    case StatusCode::kFutureRevision:
      return "FutureRevision";
    case StatusCode::kFellBehind:
      return "FellBehind";
  }
  return "Unknown";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::string(StatusCodeName(code_)) + ": " + message();
}

}  // namespace kmock
