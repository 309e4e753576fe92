#include "server/handlers/options.h"

#include <charconv>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <vector>

#include "common/go_quote.h"
#include "server/errors.h"
#include "server/negotiation.h"

namespace kmock::server {
namespace {

using nlohmann::json;

std::vector<std::string> QueryValues(const httplib::Request& req,
                                     const std::string& name) {
  std::vector<std::string> out;
  auto range = req.params.equal_range(name);
  for (auto it = range.first; it != range.second; ++it)
    out.push_back(it->second);
  return out;
}

Result<int64_t> ParseInt(const std::string& name, const std::string& value) {
  int64_t v = 0;
  auto [ptr, ec] =
      std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || ptr != value.data() + value.size()) {
    return BadRequestError("invalid value for " + name + ": \"" + value +
                           "\": must be an integer");
  }
  return v;
}

// Go's %#v of a []string, as validation messages print it.
std::string GoStringSlice(const std::vector<std::string>& values) {
  std::string out = "[]string{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += "\"" + values[i] + "\"";
  }
  return out + "}";
}

Status CheckDryRun(const std::vector<std::string>& values,
                   std::string_view kind, bool* dry_run) {
  *dry_run = false;
  if (values.empty()) return Status::Ok();
  for (const std::string& v : values) {
    if (v != "All") {
      return InvalidOptionsError(kind, "dryRun", "FieldValueNotSupported",
                                 "Unsupported value: " + GoStringSlice(values) +
                                     ": supported values: \"All\"");
    }
  }
  *dry_run = true;
  return Status::Ok();
}

// kube-apiserver's ValidateFieldManager: at most 128 bytes, printable.
Status CheckFieldManager(const std::string& manager, std::string_view kind) {
  constexpr size_t kMaxFieldManagerBytes = 128;
  if (manager.size() > kMaxFieldManagerBytes) {
    return InvalidOptionsError(kind, "fieldManager", "FieldValueTooLong",
                               "Too long: may not be more than " +
                                   std::to_string(kMaxFieldManagerBytes) +
                                   " bytes");
  }
  for (size_t i = 0; i < manager.size(); ++i) {
    auto c = static_cast<unsigned char>(manager[i]);
    if (c >= 0x20 && c != 0x7f) continue;
    char code[8];
    std::snprintf(code, sizeof(code), "U+%04X", c);
    return InvalidOptionsError(kind, "fieldManager", "FieldValueInvalid",
                               "Invalid value: " + GoQuote(manager) +
                                   ": invalid character " + code +
                                   " (at position " + std::to_string(i) + ")");
  }
  return Status::Ok();
}

std::string ManagerFromUserAgent(const std::string& ua) {
  std::string out = ua.substr(0, ua.find('/'));
  if (out.size() > 128) out.resize(128);
  return out;
}

}  // namespace

std::string QueryParam(const httplib::Request& req, const std::string& name) {
  return req.has_param(name) ? req.get_param_value(name) : "";
}

Result<registry::ListOptions> ListOptionsFrom(const httplib::Request& req) {
  registry::ListOptions o;
  o.label_selector = QueryParam(req, "labelSelector");
  o.field_selector = QueryParam(req, "fieldSelector");
  o.continue_token = QueryParam(req, "continue");
  o.resource_version = QueryParam(req, "resourceVersion");
  o.resource_version_match = QueryParam(req, "resourceVersionMatch");
  std::string limit = QueryParam(req, "limit");
  if (!limit.empty()) {
    KMOCK_ASSIGN_OR_RETURN(o.limit, ParseInt("limit", limit));
    if (o.limit < 0) o.limit = 0;
  }
  return o;
}

Result<registry::WatchOptions> WatchOptionsFrom(const httplib::Request& req,
                                                const RequestInfo& info) {
  registry::WatchOptions o;
  o.label_selector = QueryParam(req, "labelSelector");
  o.field_selector = QueryParam(req, "fieldSelector");
  if (!info.name.empty()) {
    // A legacy /watch/.../<name> path watches that one object.
    std::string by_name = "metadata.name=" + info.name;
    o.field_selector =
        o.field_selector.empty() ? by_name : o.field_selector + "," + by_name;
  }
  o.resource_version = QueryParam(req, "resourceVersion");
  o.allow_bookmarks = IsTrueParam(QueryParam(req, "allowWatchBookmarks"));
  o.send_initial_events = IsTrueParam(QueryParam(req, "sendInitialEvents"));
  return o;
}

Result<std::optional<int64_t>> TimeoutSecondsFrom(const httplib::Request& req) {
  std::string v = QueryParam(req, "timeoutSeconds");
  if (v.empty()) return std::optional<int64_t>();
  KMOCK_ASSIGN_OR_RETURN(int64_t t, ParseInt("timeoutSeconds", v));
  return std::optional<int64_t>(t);
}

Result<registry::WriteOptions> WriteOptionsFrom(const httplib::Request& req,
                                                const registry::UserInfo& user,
                                                std::string_view options_kind) {
  registry::WriteOptions o;
  o.user = user;
  KMOCK_RETURN_IF_ERROR(
      CheckDryRun(QueryValues(req, "dryRun"), options_kind, &o.dry_run));
  o.field_manager = QueryParam(req, "fieldManager");
  KMOCK_RETURN_IF_ERROR(CheckFieldManager(o.field_manager, options_kind));
  if (o.field_manager.empty()) {
    o.field_manager = ManagerFromUserAgent(req.get_header_value("User-Agent"));
  }
  std::string fv = QueryParam(req, "fieldValidation");
  if (fv.empty() || fv == "Warn") {
    o.field_validation = registry::FieldValidation::kWarn;
  } else if (fv == "Strict") {
    o.field_validation = registry::FieldValidation::kStrict;
  } else if (fv == "Ignore") {
    o.field_validation = registry::FieldValidation::kIgnore;
  } else {
    return InvalidOptionsError(options_kind, "fieldValidation",
                               "FieldValueNotSupported",
                               "Unsupported value: \"" + fv +
                                   "\": supported values: \"\", \"Ignore\", "
                                   "\"Strict\", \"Warn\"");
  }
  std::string force = QueryParam(req, "force");
  o.force = IsTrueParam(force);
  return o;
}

Result<DeleteRequest> DeleteRequestFrom(const httplib::Request& req,
                                        std::string_view body,
                                        const registry::UserInfo& user) {
  bool has_body = body.find_first_not_of(" \t\r\n") != std::string_view::npos;
  if (!has_body) return DeleteRequestFromJson(req, json(), user);
  KMOCK_ASSIGN_OR_RETURN(
      json b, DecodeBody(req.get_header_value("Content-Type"), body));
  if (!b.is_object())
    return BadRequestError("the DeleteOptions body must be an object");
  return DeleteRequestFromJson(req, b, user);
}

Result<DeleteRequest> DeleteRequestFromJson(const httplib::Request& req,
                                            const json& b,
                                            const registry::UserInfo& user) {
  DeleteRequest d;
  registry::DeleteOptions& o = d.options;
  o.user = user;
  std::vector<std::string> dry_run = QueryValues(req, "dryRun");
  std::string grace = QueryParam(req, "gracePeriodSeconds");
  if (!grace.empty()) {
    KMOCK_ASSIGN_OR_RETURN(int64_t g, ParseInt("gracePeriodSeconds", grace));
    o.grace_period_seconds = g;
  }
  o.propagation_policy = QueryParam(req, "propagationPolicy");
  std::string orphan = QueryParam(req, "orphanDependents");

  if (b.is_object()) {
    try {
      if (b.contains("gracePeriodSeconds") &&
          !b["gracePeriodSeconds"].is_null()) {
        o.grace_period_seconds = b["gracePeriodSeconds"].get<int64_t>();
      }
      if (b.contains("propagationPolicy") &&
          !b["propagationPolicy"].is_null()) {
        o.propagation_policy = b["propagationPolicy"].get<std::string>();
      }
      if (b.contains("orphanDependents") &&
          b["orphanDependents"].is_boolean()) {
        orphan = b["orphanDependents"].get<bool>() ? "true" : "false";
      }
      if (b.contains("preconditions") && b["preconditions"].is_object()) {
        const json& p = b["preconditions"];
        if (p.contains("uid") && p["uid"].is_string())
          o.precondition_uid = p["uid"];
        if (p.contains("resourceVersion") && p["resourceVersion"].is_string()) {
          o.precondition_resource_version = p["resourceVersion"];
        }
      }
      if (b.contains("dryRun") && b["dryRun"].is_array()) {
        dry_run = b["dryRun"].get<std::vector<std::string>>();
      }
    } catch (const json::exception& e) {
      return BadRequestError(std::string("error decoding DeleteOptions: ") +
                             e.what());
    }
  }
  KMOCK_RETURN_IF_ERROR(CheckDryRun(dry_run, "DeleteOptions", &o.dry_run));
  if (!orphan.empty()) {
    bool orphan_true = IsTrueParam(orphan);
    if (!o.propagation_policy.empty()) {
      return InvalidOptionsError(
          "DeleteOptions", "propagationPolicy", "FieldValueInvalid",
          "Invalid value: \"" + o.propagation_policy +
              "\": orphanDependents and deletionPropagation "
              "cannot be both set");
    }
    o.propagation_policy = orphan_true ? "Orphan" : "";
    d.orphan_dependents_false = !orphan_true;
  }
  if (!o.propagation_policy.empty() && o.propagation_policy != "Orphan" &&
      o.propagation_policy != "Background" &&
      o.propagation_policy != "Foreground") {
    return InvalidOptionsError("DeleteOptions", "propagationPolicy",
                               "FieldValueNotSupported",
                               "Unsupported value: \"" + o.propagation_policy +
                                   "\": supported values: \"Foreground\", "
                                   "\"Background\", \"Orphan\", \"nil\"");
  }
  return d;
}

}  // namespace kmock::server
