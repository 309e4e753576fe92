#include "api/field_errors.h"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

#include "common/go_quote.h"

namespace kmock::api {

namespace {

void Push(std::vector<StatusCause>* causes, const char* reason,
          const std::string& field, std::string message) {
  causes->push_back(StatusCause{reason, std::move(message), field});
}

std::string WithDetail(std::string body, const std::string& detail) {
  if (!detail.empty()) body += ": " + detail;
  return body;
}

}  // namespace

std::string FieldValueString(const nlohmann::json& value) {
  if (value.is_string()) return GoQuote(value.get<std::string>());
  if (value.is_null()) return "null";
  return value.dump();
}

void FieldErrors::Required(const std::string& field,
                           const std::string& detail) {
  Push(&causes_, "FieldValueRequired", field,
       WithDetail("Required value", detail));
}

void FieldErrors::Invalid(const std::string& field, const nlohmann::json& value,
                          const std::string& detail) {
  Push(&causes_, "FieldValueInvalid", field,
       WithDetail("Invalid value: " + FieldValueString(value), detail));
}

void FieldErrors::NotSupported(const std::string& field,
                               const nlohmann::json& value,
                               const std::vector<std::string>& valid) {
  std::string detail;
  if (!valid.empty()) {
    detail = "supported values: ";
    for (size_t i = 0; i < valid.size(); ++i) {
      if (i > 0) detail += ", ";
      detail += GoQuote(valid[i]);
    }
  }
  Push(&causes_, "FieldValueNotSupported", field,
       WithDetail("Unsupported value: " + FieldValueString(value), detail));
}

void FieldErrors::Forbidden(const std::string& field,
                            const std::string& detail) {
  Push(&causes_, "FieldValueForbidden", field, WithDetail("Forbidden", detail));
}

void FieldErrors::Duplicate(const std::string& field,
                            const nlohmann::json& value) {
  Push(&causes_, "FieldValueDuplicate", field,
       "Duplicate value: " + FieldValueString(value));
}

void FieldErrors::TooLong(const std::string& field,
                          const nlohmann::json& /*value*/, int max) {
  std::string detail = "value is too long";
  if (max >= 0) {
    detail = "may not be more than " + std::to_string(max) +
             (max == 1 ? " byte" : " bytes");
  }
  Push(&causes_, "FieldValueTooLong", field, WithDetail("Too long", detail));
}

void FieldErrors::NotFound(const std::string& field,
                           const nlohmann::json& value) {
  Push(&causes_, "FieldValueNotFound", field,
       "Not found: " + FieldValueString(value));
}

void FieldErrors::Immutable(const std::string& field,
                            const nlohmann::json& value,
                            const std::string& detail) {
  Invalid(field, value, detail);
}

void FieldErrors::Add(StatusCause cause) {
  causes_.push_back(std::move(cause));
}

void FieldErrors::Append(const FieldErrors& other) {
  causes_.insert(causes_.end(), other.causes_.begin(), other.causes_.end());
}

Status FieldErrors::ToStatus(const std::string& kind, const std::string& group,
                             const std::string& /*resource*/,
                             const std::string& name) const {
  // The qualified kind reads "Pod" for the core group, "Deployment.apps"
  // otherwise; identical messages are reported once.
  std::string qualified = group.empty() ? kind : kind + "." + group;
  std::string message = qualified + " " + GoQuote(name) + " is invalid";
  std::vector<std::string> parts;
  std::set<std::string> seen;
  for (const StatusCause& c : causes_) {
    std::string full = c.field.empty() ? c.message : c.field + ": " + c.message;
    if (seen.insert(full).second) parts.push_back(std::move(full));
  }
  if (parts.size() == 1) {
    message += ": " + parts[0];
  } else if (parts.size() > 1) {
    message += ": [";
    for (size_t i = 0; i < parts.size(); ++i) {
      if (i > 0) message += ", ";
      message += parts[i];
    }
    message += "]";
  }
  StatusDetails details;
  details.name = name;
  details.group = group;
  details.kind = kind;
  details.causes = causes_;
  return Status(StatusCode::kInvalid, std::move(message), std::move(details));
}

}  // namespace kmock::api
