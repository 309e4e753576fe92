// Writing responses: JSON or YAML bodies, Status errors (through
// errors.h), and Warning headers.
//
// Thread safety: functions over a caller-owned Response; no shared state.
#ifndef KMOCK_SERVER_RESPONSE_H_
#define KMOCK_SERVER_RESPONSE_H_

#include <httplib.h>

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "server/negotiation.h"

namespace kmock::server {

// `body` as the response's body with that Content-Type, moved, not copied
// (the library's set_content copies its argument: a second whole body).
void SetBody(httplib::Response& res, std::string body,
             const std::string& content_type);
// Body `value` as one line of JSON and a newline, with the given code and
// Content-Type.
void WriteJson(httplib::Response& res, int code, const nlohmann::json& value,
               const std::string& content_type = "application/json");
// Body `value` encoded as `format` says (JSON or YAML).
void WriteEncoded(httplib::Response& res, int code, const nlohmann::json& value,
                  const OutputFormat& format);
// The Status as kube-apiserver's error answer (always JSON).
void WriteError(httplib::Response& res, const Status& status);
// One `Warning: 299 - "<text>"` header per warning.
void AddWarnings(httplib::Response& res,
                 const std::vector<std::string>& warnings);
// The Warning header value for one text.
std::string WarningHeaderValue(std::string_view text);

}  // namespace kmock::server

#endif  // KMOCK_SERVER_RESPONSE_H_
