#include "server/negotiation.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "api/protobuf_decode.h"
#include "api/schema.h"
#include "server/errors.h"
#include "server/yaml_json.h"

namespace kmock::server {
namespace {

using nlohmann::json;

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::vector<std::string> Split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t i = s.find(sep, start);
    out.emplace_back(
        s.substr(start, i == std::string_view::npos ? i : i - start));
    if (i == std::string_view::npos) break;
    start = i + 1;
  }
  return out;
}

std::string Param(const MediaRange& m, const std::string& key) {
  auto it = m.params.find(key);
  return it == m.params.end() ? "" : it->second;
}

bool IsJsonLike(const MediaRange& m) {
  if (m.type == "*" && m.subtype == "*") return true;
  if (m.type != "application") return false;
  return m.subtype == "*" || m.subtype == "json" ||
         m.subtype == "vnd.kubernetes.protobuf";
}

const std::vector<std::string>& AcceptedOutputTypes() {
  static const std::vector<std::string> kTypes = {
      "application/json", "application/yaml",
      "application/vnd.kubernetes.protobuf"};
  return kTypes;
}

}  // namespace

std::string OutputFormat::ContentType() const {
  std::string base =
      encoding == Encoding::kYaml ? "application/yaml" : "application/json";
  if (table) base += ";as=Table;v=" + table_version + ";g=meta.k8s.io";
  return base;
}

std::vector<MediaRange> ParseAccept(std::string_view accept) {
  std::vector<MediaRange> out;
  for (const std::string& entry : Split(accept, ',')) {
    std::vector<std::string> fields = Split(entry, ';');
    std::string type = Lower(Trim(fields[0]));
    if (type.empty()) continue;
    MediaRange m;
    size_t slash = type.find('/');
    if (slash == std::string::npos) {
      if (type != "*") continue;
      m.type = m.subtype = "*";
    } else {
      m.type = type.substr(0, slash);
      m.subtype = type.substr(slash + 1);
    }
    for (size_t i = 1; i < fields.size(); ++i) {
      size_t eq = fields[i].find('=');
      if (eq == std::string::npos) continue;
      std::string key = Lower(Trim(std::string_view(fields[i]).substr(0, eq)));
      std::string value = Trim(std::string_view(fields[i]).substr(eq + 1));
      if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
        value = value.substr(1, value.size() - 2);
      }
      if (key == "q") {
        m.q = std::strtod(value.c_str(), nullptr);
      } else {
        m.params[key] = value;
      }
    }
    out.push_back(std::move(m));
  }
  std::stable_sort(
      out.begin(), out.end(),
      [](const MediaRange& a, const MediaRange& b) { return a.q > b.q; });
  return out;
}

Result<OutputFormat> NegotiateOutput(std::string_view accept,
                                     bool allow_table) {
  if (Trim(accept).empty()) return OutputFormat{};
  for (const MediaRange& m : ParseAccept(accept)) {
    if (m.q <= 0) continue;
    OutputFormat out;
    if (m.type == "application" && m.subtype == "yaml") {
      out.encoding = Encoding::kYaml;
    } else if (!IsJsonLike(m)) {
      continue;
    }
    std::string as = Param(m, "as");
    if (as.empty()) return out;
    if (as == "Table" && allow_table && Param(m, "g") == "meta.k8s.io") {
      std::string v = Param(m, "v");
      if (v == "v1" || v == "v1beta1") {
        out.table = true;
        out.table_version = v;
        return out;
      }
    }
    // Any other conversion (PartialObjectMetadata, discovery) is not
    // served here; try the next entry.
  }
  return NotAcceptableError(AcceptedOutputTypes());
}

DiscoveryFormat NegotiateDiscovery(std::string_view accept) {
  bool v2beta1 = false;
  for (const MediaRange& m : ParseAccept(accept)) {
    if (m.q <= 0 || !IsJsonLike(m)) continue;
    if (Param(m, "as") != "APIGroupDiscoveryList" ||
        Param(m, "g") != "apidiscovery.k8s.io") {
      continue;
    }
    std::string v = Param(m, "v");
    if (v == "v2") return DiscoveryFormat::kAggregatedV2;
    if (v == "v2beta1") v2beta1 = true;
  }
  return v2beta1 ? DiscoveryFormat::kAggregatedV2Beta1
                 : DiscoveryFormat::kLegacy;
}

std::string MediaType(std::string_view content_type) {
  size_t semi = content_type.find(';');
  return Lower(Trim(content_type.substr(0, semi)));
}

Result<json> DecodeBody(std::string_view content_type, std::string_view body,
                        const api::Type* expected) {
  std::string media = MediaType(content_type);
  if (media.empty() || media == "application/json") {
    try {
      return json::parse(body);
    } catch (const json::exception& e) {
      // The decoder's message, as kube-apiserver wraps it in a 400.
      return BadRequestError(std::string("error decoding request body: ") +
                             e.what());
    }
  }
  if (media == "application/yaml") return YamlToJson(body);
  if (media == "application/vnd.kubernetes.protobuf") {
    // The envelope names the type; callers still check it against the URL.
    return api::DecodeProtobufObject(body, api::Schema::Get(), expected);
  }
  return UnsupportedMediaTypeError(
      {"application/json", "application/yaml", "application/vnd.kubernetes.protobuf"});
}

namespace {

// Go's encoding/json quotes the offending byte this way.
std::string QuoteChar(char c) {
  if (c == '\'') return "'\\''";
  if (c == '"') return "'\"'";
  return std::string("'") + c + "'";
}

// Go's syntax error for the input nlohmann rejected: what the scanner was
// looking for, from the context nlohmann names.
std::string GoSyntaxMessage(const json::parse_error& e, std::string_view body) {
  if (e.byte == 0 || e.byte > body.size()) {
    return "unexpected end of JSON input";
  }
  std::string what = e.what();
  size_t at = e.byte - 1;
  if (what.find("invalid literal") != std::string::npos) {
    size_t start = at;
    while (start > 0 &&
           std::isalpha(static_cast<unsigned char>(body[start - 1]))) {
      --start;
    }
    std::string_view word = body[start] == 'n'   ? "null"
                            : body[start] == 't' ? "true"
                                                 : "false";
    if (at > start && at - start < word.size()) {
      return "invalid character " + QuoteChar(body[at]) + " in literal " +
             std::string(word) + " (expecting " + QuoteChar(word[at - start]) +
             ")";
    }
  }
  std::string context = "looking for beginning of value";
  if (what.find("while parsing object key") != std::string::npos) {
    context = "looking for beginning of object key string";
  } else if (what.find("while parsing object separator") != std::string::npos) {
    context = "after object key";
  } else if (what.find("while parsing object") != std::string::npos) {
    context = "after object key:value pair";
  } else if (what.find("while parsing array") != std::string::npos) {
    context = "after array element";
  } else if (what.find("expected end of input") != std::string::npos) {
    context = "after top-level value";
  }
  return "invalid character " + QuoteChar(body[at]) + " " + context;
}

// The start of a body for an error message: text if it looks like JSON,
// else hex, cut at 30 bytes.
std::string SummarizeBody(std::string_view body) {
  constexpr size_t kMax = 30;
  if (body.empty()) return "<empty>";
  std::string_view head = body.substr(0, kMax);
  std::string out;
  if (body[0] == '{') {
    out = std::string(head);
  } else {
    static constexpr char kHex[] = "0123456789abcdef";
    for (unsigned char c : head) {
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (body.size() > kMax) out += " ...";
  return out;
}

}  // namespace

Status UnrecognizedObjectError(std::string_view kind, std::string_view body) {
  std::string reason = "unexpected end of JSON input";
  try {
    json parsed = json::parse(body);
    static_cast<void>(parsed);
  } catch (const json::parse_error& e) {
    reason = GoSyntaxMessage(e, body);
  } catch (const json::exception&) {
  }
  return BadRequestError(
      "the object provided is unrecognized (must be of "
      "type " +
      std::string(kind) + "): couldn't get version/kind; json parse error: " +
      reason + " (" + SummarizeBody(body) + ")");
}

Result<registry::PatchType> PatchTypeOf(std::string_view content_type) {
  std::string media = MediaType(content_type);
  if (media == "application/json-patch+json")
    return registry::PatchType::kJsonPatch;
  if (media == "application/merge-patch+json")
    return registry::PatchType::kMergePatch;
  if (media == "application/strategic-merge-patch+json") {
    return registry::PatchType::kStrategicMerge;
  }
  if (media == "application/apply-patch+yaml")
    return registry::PatchType::kApply;
  return UnsupportedMediaTypeError({"application/json-patch+json",
                                    "application/merge-patch+json",
                                    "application/apply-patch+yaml",
                                    "application/strategic-merge-patch+json"});
}

}  // namespace kmock::server
