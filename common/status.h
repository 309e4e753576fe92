// Errors as values: Status and Result<T>, used below the HTTP layer.
//
// A Status carries a code from a small set plus what a Kubernetes Status
// object needs (message, reason override, details, causes), so that the
// server turns any error into kube-apiserver's JSON in one place
// (server/errors.cc). The store uses the storage codes (kCompacted,
// kFutureRevision); the registry translates those into API errors.
//
// Thread safety: plain values; safe to copy between threads.
#ifndef KMOCK_COMMON_STATUS_H_
#define KMOCK_COMMON_STATUS_H_

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace kmock {

enum class StatusCode {
  kOk = 0,
  // API-level codes, each one HTTP status and Kubernetes reason.
  kBadRequest,             // 400 BadRequest
  kUnauthorized,           // 401 Unauthorized
  kForbidden,              // 403 Forbidden
  kNotFound,               // 404 NotFound
  kMethodNotAllowed,       // 405 MethodNotAllowed
  kNotAcceptable,          // 406 NotAcceptable
  kAlreadyExists,          // 409 AlreadyExists
  kConflict,               // 409 Conflict
  kGone,                   // 410 Gone
  kExpired,                // 410 Expired (compacted resourceVersion)
  kRequestEntityTooLarge,  // 413 RequestEntityTooLarge
  kUnsupportedMediaType,   // 415 UnsupportedMediaType
  kInvalid,                // 422 Invalid
  kTooManyRequests,        // 429 TooManyRequests
  kInternal,               // 500 InternalError
  kUnclassified,           // 500 without a reason: an error kube-apiserver
                           // passes on as it is, not as a Status
  kServiceUnavailable,     // 503 ServiceUnavailable
  kTimeout,                // 504 Timeout
  // Storage-level codes; the registry maps them to API codes.
  kCompacted,       // the requested revision was compacted away
  kFutureRevision,  // the requested revision is beyond the current one
  kFellBehind,      // a watcher's queue overflowed and the watch was ended;
                    // it may watch again from the last revision it saw
};

// One field error, as in a Kubernetes StatusCause.
struct StatusCause {
  std::string reason;   // e.g. "FieldValueRequired"
  std::string message;  // e.g. "Required value"
  std::string field;    // e.g. "spec.containers[0].image"
  bool operator==(const StatusCause&) const = default;
};

// Kubernetes StatusDetails.
struct StatusDetails {
  std::string name;
  std::string group;
  std::string kind;  // "pods" for most errors; the Kind ("Pod") for 422s
  std::string uid;
  std::vector<StatusCause> causes;
  int retry_after_seconds = 0;
};

// An OK Status is one word and a null pointer: the message and details of
// an error live on the heap, so that the many OK statuses and Results a
// request passes around cost nothing to make, move and destroy.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code) {
    if (!message.empty()) MutableRep().message = std::move(message);
  }
  Status(StatusCode code, std::string message, StatusDetails details)
      : code_(code) {
    Rep& r = MutableRep();
    r.message = std::move(message);
    r.details = std::move(details);
  }
  Status(const Status& other)
      : code_(other.code_),
        rep_(other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr) {}
  Status& operator=(const Status& other) {
    if (this != &other) {
      code_ = other.code_;
      rep_ = other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr;
    }
    return *this;
  }
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const {
    return rep_ ? rep_->message : EmptyString();
  }
  const StatusDetails& details() const {
    return rep_ ? rep_->details : EmptyDetails();
  }
  StatusDetails& mutable_details() { return MutableRep().details; }
  // An explicit Kubernetes reason, for the rare error whose reason differs
  // from its code's default (e.g. 403 with reason "Forbidden" is default).
  const std::string& reason() const {
    return rep_ ? rep_->reason : EmptyString();
  }
  Status& set_reason(std::string r) {
    MutableRep().reason = std::move(r);
    return *this;
  }
  // For a 410 on a list: a continue token that resumes from the same key at
  // the newest revision (kube-apiserver's "inconsistent continue" offer),
  // sent as the Status's metadata.continue.
  const std::string& list_continue() const {
    return rep_ ? rep_->list_continue : EmptyString();
  }
  Status& set_list_continue(std::string c) {
    MutableRep().list_continue = std::move(c);
    return *this;
  }
  Status& set_message(std::string m) {
    MutableRep().message = std::move(m);
    return *this;
  }

  std::string ToString() const;

 private:
  struct Rep {
    std::string message;
    std::string reason;
    std::string list_continue;
    StatusDetails details;
  };
  Rep& MutableRep() {
    if (!rep_) rep_ = std::make_unique<Rep>();
    return *rep_;
  }
  static const std::string& EmptyString() {
    static const std::string kEmpty;
    return kEmpty;
  }
  static const StatusDetails& EmptyDetails() {
    static const StatusDetails kEmpty;
    return kEmpty;
  }

  StatusCode code_ = StatusCode::kOk;
  std::unique_ptr<Rep> rep_;  // null: no message, reason or details
};

const char* StatusCodeName(StatusCode code);

// A value or an error. REQUIRES: ok() before value().
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {}  // NOLINT

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOkStatus;
    return ok() ? kOkStatus : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> v_;
};

// Convenience constructors.
inline Status NotFoundError(std::string msg) {
  return Status(StatusCode::kNotFound, std::move(msg));
}
inline Status InternalError(std::string msg) {
  return Status(StatusCode::kInternal, std::move(msg));
}
inline Status BadRequestError(std::string msg) {
  return Status(StatusCode::kBadRequest, std::move(msg));
}

}  // namespace kmock

#define KMOCK_RETURN_IF_ERROR(expr) \
  do {                              \
    ::kmock::Status _st = (expr);   \
    if (!_st.ok()) return _st;      \
  } while (0)

#define KMOCK_CONCAT_INNER(a, b) a##b
#define KMOCK_CONCAT(a, b) KMOCK_CONCAT_INNER(a, b)
#define KMOCK_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return tmp.status();               \
  lhs = std::move(tmp).value()
// KMOCK_ASSIGN_OR_RETURN(auto x, Foo()); returns the error if Foo() fails.
#define KMOCK_ASSIGN_OR_RETURN(lhs, expr) \
  KMOCK_ASSIGN_OR_RETURN_IMPL(KMOCK_CONCAT(_res_, __LINE__), lhs, expr)

#endif  // KMOCK_COMMON_STATUS_H_
