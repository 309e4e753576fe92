#include "registry/api_errors.h"

#include "registry/continue_token.h"

namespace kmock::registry {

namespace {
std::string Qualified(const std::string& group, const std::string& plural) {
  return group.empty() ? plural : plural + "." + group;
}
StatusDetails Details(const std::string& group, const std::string& plural,
                      const std::string& name) {
  StatusDetails d;
  d.name = name;
  d.group = group;
  d.kind = plural;
  return d;
}
}  // namespace

Status NotFound(const std::string& group, const std::string& plural,
                const std::string& name) {
  return Status(StatusCode::kNotFound,
                Qualified(group, plural) + " \"" + name + "\" not found",
                Details(group, plural, name));
}

Status NotFound(const api::ResourceInfo& res, const std::string& name) {
  return NotFound(res.group, res.plural, name);
}

Status AlreadyExists(const api::ResourceInfo& res, const std::string& name) {
  return Status(StatusCode::kAlreadyExists,
                res.QualifiedName() + " \"" + name + "\" already exists",
                Details(res.group, res.plural, name));
}

Status Conflict(const api::ResourceInfo& res, const std::string& name,
                const std::string& detail) {
  return Status(StatusCode::kConflict,
                "Operation cannot be fulfilled on " + res.QualifiedName() +
                    " \"" + name + "\": " + detail,
                Details(res.group, res.plural, name));
}

Status ModifiedConflict(const api::ResourceInfo& res, const std::string& name) {
  return Conflict(res, name,
                  "the object has been modified; please apply your changes to "
                  "the latest version and try again");
}

Status Expired(const std::string& message) {
  return Status(StatusCode::kExpired, message);
}

Status ExpiredContinue(const std::string& start_key, int64_t current_revision) {
  Status st = Expired(
      "The provided continue parameter is too old to display a consistent "
      "list result. You can start a new list without the continue parameter, "
      "or use the continue token in this response to retrieve the remainder "
      "of the results. Continuing with the provided token results in an "
      "inconsistent list - objects that were created, modified, or deleted "
      "between the time the first chunk was returned and now may show up in "
      "the list.");
  st.set_list_continue(EncodeContinue({current_revision, start_key}));
  return st;
}

Status BadRequest(const std::string& message) {
  return Status(StatusCode::kBadRequest, message);
}

Status Forbidden(const api::ResourceInfo& res, const std::string& name,
                 const std::string& detail) {
  return Status(
      StatusCode::kForbidden,
      res.QualifiedName() + " \"" + name + "\" is forbidden: " + detail,
      Details(res.group, res.plural, name));
}

Status Internal(const std::string& detail) {
  StatusDetails d;
  d.causes.push_back({"", detail, ""});
  return Status(StatusCode::kInternal, "Internal error occurred: " + detail, d);
}

Status RequestTimedOut() {
  return Status(
      StatusCode::kTimeout,
      "Timeout: request did not complete within the allotted timeout");
}

Status CheckDeadline(
    const std::optional<std::chrono::steady_clock::time_point>& deadline) {
  if (deadline && std::chrono::steady_clock::now() >= *deadline)
    return RequestTimedOut();
  return Status::Ok();
}

}  // namespace kmock::registry
