#include "server/response.h"

#include "api/typed_json.h"
#include "server/errors.h"
#include "server/yaml_json.h"

namespace kmock::server {

void SetBody(httplib::Response& res, std::string body,
             const std::string& content_type) {
  res.body = std::move(body);
  res.headers.erase("Content-Type");
  res.set_header("Content-Type", content_type);
}

void WriteJson(httplib::Response& res, int code, const nlohmann::json& value,
               const std::string& content_type) {
  res.status = code;
  // kube-apiserver's JSON serializer ends every body with a newline.
  std::string body;
  api::AppendTypedJson(value, &body);
  body.push_back('\n');
  SetBody(res, std::move(body), content_type);
}

void WriteEncoded(httplib::Response& res, int code, const nlohmann::json& value,
                  const OutputFormat& format) {
  if (format.encoding == Encoding::kYaml) {
    res.status = code;
    SetBody(res, JsonToYaml(value), format.ContentType());
    return;
  }
  WriteJson(res, code, value, format.ContentType());
}

void WriteError(httplib::Response& res, const Status& status) {
  // As kube-apiserver: a suggested wait goes in Retry-After too, which
  // client-go honours by retrying the request itself.
  if (int wait = status.details().retry_after_seconds; wait > 0) {
    res.set_header("Retry-After", std::to_string(wait));
  }
  WriteJson(res, HttpCode(status), StatusJson(status));
}

std::string WarningHeaderValue(std::string_view text) {
  std::string out = "299 - \"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n' || c == '\r') {
      out += ' ';
      continue;
    }
    out += c;
  }
  out += '"';
  return out;
}

void AddWarnings(httplib::Response& res,
                 const std::vector<std::string>& warnings) {
  for (const std::string& w : warnings) {
    res.headers.emplace("Warning", WarningHeaderValue(w));
  }
}

}  // namespace kmock::server
