// Field errors gathered by validation, in kube-apiserver's words.
//
// Validation collects every error in a FieldErrors; the registry turns a
// non-empty list into one 422 Invalid Status whose causes are these errors
// and whose message is "<Kind> \"<name>\" is invalid: <err1>, <err2>" (a
// list in brackets when there is more than one), as kube-apiserver does.
//
// Thread safety: a plain value; not shared between threads.
#ifndef KMOCK_API_FIELD_ERRORS_H_
#define KMOCK_API_FIELD_ERRORS_H_

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "common/status.h"

namespace kmock::api {

class FieldErrors {
 public:
  // "Required value" (reason FieldValueRequired).
  void Required(const std::string& field, const std::string& detail = "");
  // "Invalid value: <json value>: <detail>" (FieldValueInvalid).
  void Invalid(const std::string& field, const nlohmann::json& value,
               const std::string& detail);
  // "Unsupported value: <v>: supported values: \"a\", \"b\""
  // (FieldValueNotSupported).
  void NotSupported(const std::string& field, const nlohmann::json& value,
                    const std::vector<std::string>& valid);
  // "Forbidden: <detail>" (FieldValueForbidden).
  void Forbidden(const std::string& field, const std::string& detail);
  // "Duplicate value: <v>" (FieldValueDuplicate).
  void Duplicate(const std::string& field, const nlohmann::json& value);
  // "Too long: may not be more than <n> bytes" (FieldValueTooLong).
  void TooLong(const std::string& field, const nlohmann::json& value, int max);
  // "Not found: <v>" (FieldValueNotFound).
  void NotFound(const std::string& field, const nlohmann::json& value);
  // "Invalid value: <v>: field is immutable" and friends.
  void Immutable(const std::string& field, const nlohmann::json& value,
                 const std::string& detail = "field is immutable");
  // A cause whose message is already complete, e.g. unknown-field errors.
  void Add(StatusCause cause);
  void Append(const FieldErrors& other);

  bool empty() const { return causes_.empty(); }
  size_t size() const { return causes_.size(); }
  const std::vector<StatusCause>& causes() const { return causes_; }

  // The 422: kind is the Kind ("Pod"), resource the plural ("pods").
  Status ToStatus(const std::string& kind, const std::string& group,
                  const std::string& resource, const std::string& name) const;

 private:
  std::vector<StatusCause> causes_;
};

// Formats a value as Go's %v-ish quoting does in field errors: strings
// quoted ("abc"), numbers and bools bare, null as "null".
std::string FieldValueString(const nlohmann::json& value);

}  // namespace kmock::api

#endif  // KMOCK_API_FIELD_ERRORS_H_
