#include "server/negotiation.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <regex>
#include <set>

#include "api/protobuf_decode.h"
#include "api/schema.h"
#include "common/go_quote.h"
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

namespace {

// Builds the JSON value from the parser's events, as json::parse does, and
// notes every key an object already holds: the path of the repetition
// ("spec.replicas", "spec.containers[0].name"), each path once. Checking the
// object being built costs one map lookup per key and no extra memory.
class DuplicateNotingBuilder {
 public:
  DuplicateNotingBuilder(json* root, std::vector<std::string>* duplicates)
      : root_(root), duplicates_(duplicates) {}

  bool null() { return Put(nullptr); }
  bool boolean(bool v) { return Put(v); }
  bool number_integer(json::number_integer_t v) { return Put(v); }
  bool number_unsigned(json::number_unsigned_t v) { return Put(v); }
  bool number_float(json::number_float_t v, const std::string&) {
    return Put(v);
  }
  bool string(std::string& v) { return Put(std::move(v)); }
  bool binary(json::binary_t& v) { return Put(std::move(v)); }
  bool start_object(std::size_t) {
    if (TooDeep('{')) return false;
    stack_.push_back(Frame{Place(json::value_t::object), nullptr, nullptr});
    return true;
  }
  bool key(std::string& k) {
    Frame& f = stack_.back();
    auto& members = f.node->get_ref<json::object_t&>();
    auto [it, inserted] = members.try_emplace(k);
    f.key = &it->first;
    f.slot = &it->second;
    if (!inserted) {
      it->second = nullptr;  // the last one wins, as in json::parse
      NoteDuplicate();
    }
    return true;
  }
  bool end_object() {
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t) {
    if (TooDeep('[')) return false;
    stack_.push_back(Frame{Place(json::value_t::array), nullptr, nullptr});
    return true;
  }
  bool end_array() {
    stack_.pop_back();
    return true;
  }
  bool parse_error(std::size_t, const std::string&,
                   const nlohmann::detail::exception& e) {
    error_ = e.what();
    return false;
  }

  const std::string& error() const { return error_; }

 private:
  struct Frame {
    json* node;              // the object or array being filled
    json* slot;              // objects: where the current key's value goes
    const std::string* key;  // objects: the current key
  };

  // Places a new value where the parser is and returns it.
  template <typename V>
  json* Place(V&& v) {
    if (stack_.empty()) {
      *root_ = json(std::forward<V>(v));
      return root_;
    }
    Frame& f = stack_.back();
    if (f.node->is_array()) {
      f.node->emplace_back(std::forward<V>(v));
      return &f.node->back();
    }
    *f.slot = json(std::forward<V>(v));
    return f.slot;
  }

  template <typename V>
  bool Put(V&& v) {
    Place(std::forward<V>(v));
    return true;
  }

  void NoteDuplicate() {
    std::string path;
    for (const Frame& f : stack_) {
      if (f.node->is_array()) {
        path += "[" + std::to_string(f.node->size() - 1) + "]";
      } else {
        if (!path.empty()) path += '.';
        path += *f.key;
      }
    }
    if (std::find(duplicates_->begin(), duplicates_->end(), path) ==
        duplicates_->end()) {
      duplicates_->push_back(std::move(path));
    }
  }

  // Go's decoder stops at 10000 levels (encoding/json maxNestingDepth);
  // deeper values would also overflow the stack of every recursive walk
  // (copies, dumps, schema checks) that follows.
  bool TooDeep(char opening) {
    if (stack_.size() < kMaxNestingDepth) return false;
    error_ =
        std::string("invalid character '") + opening + "' exceeded max depth";
    return true;
  }
  static constexpr size_t kMaxNestingDepth = 10000;

  json* root_;
  std::vector<std::string>* duplicates_;
  std::vector<Frame> stack_;
  std::string error_;
};

// go-yaml prints a map key with %#v: strings quoted, numbers and booleans
// bare.
std::string YamlKeyText(const YAML::Node& key) {
  static const std::regex kBare(
      "[-+]?(0|[1-9][0-9]*)|[-+]?([0-9]+\\.[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?|"
      "true|True|TRUE|false|False|FALSE");
  const std::string& text = key.Scalar();
  if (key.Tag() != "!" && std::regex_match(text, kBare)) return text;
  return GoQuote(text);
}

// Depth first, a value before the key that holds it, as go-yaml decodes.
void CollectYamlDuplicates(const YAML::Node& node,
                           std::vector<std::string>* lines) {
  if (node.IsSequence()) {
    for (const YAML::Node& item : node) CollectYamlDuplicates(item, lines);
    return;
  }
  if (!node.IsMap()) return;
  std::set<std::string> seen;
  for (const auto& kv : node) {
    CollectYamlDuplicates(kv.second, lines);
    if (!kv.first.IsScalar()) continue;
    if (!seen.insert(kv.first.Scalar()).second) {
      lines->push_back("line " + std::to_string(kv.second.Mark().line + 1) +
                       ": key " + YamlKeyText(kv.first) +
                       " already set in map");
    }
  }
}

}  // namespace

Result<json> ParseJsonFindingDuplicates(std::string_view text,
                                        std::vector<std::string>* duplicates) {
  json out;
  DuplicateNotingBuilder builder(&out, duplicates);
  if (!json::sax_parse(text, &builder)) {
    // The decoder's message, as kube-apiserver wraps it in a 400.
    return BadRequestError("error decoding request body: " + builder.error());
  }
  return out;
}

std::string YamlDuplicateKeyError(std::string_view yaml) {
  std::vector<std::string> lines;
  try {
    CollectYamlDuplicates(YAML::Load(std::string(yaml)), &lines);
  } catch (const std::exception&) {
    return "";
  }
  if (lines.empty()) return "";
  std::string out = "yaml: unmarshal errors:";
  for (const std::string& line : lines) out += "\n  " + line;
  return out;
}

Result<DecodedBody> DecodeBodyWithFindings(std::string_view content_type,
                                           std::string_view body,
                                           const api::Type* expected) {
  std::string media = MediaType(content_type);
  DecodedBody out;
  if (media.empty() || media == "application/json") {
    KMOCK_ASSIGN_OR_RETURN(
        out.object,
        ParseJsonFindingDuplicates(body, &out.findings.duplicate_fields));
    return out;
  }
  if (media == "application/yaml") {
    KMOCK_ASSIGN_OR_RETURN(out.object, YamlToJson(body));
    out.findings.yaml_error = YamlDuplicateKeyError(body);
    return out;
  }
  KMOCK_ASSIGN_OR_RETURN(out.object, DecodeBody(content_type, body, expected));
  return out;
}

Result<json> DecodeBody(std::string_view content_type, std::string_view body,
                        const api::Type* expected) {
  std::string media = MediaType(content_type);
  if (media.empty() || media == "application/json") {
    std::vector<std::string> ignored;
    return ParseJsonFindingDuplicates(body, &ignored);
  }
  if (media == "application/yaml") return YamlToJson(body);
  if (media == "application/vnd.kubernetes.protobuf") {
    // The envelope names the type; callers still check it against the URL.
    // Protobuf carries built-in kinds only (custom resources refuse it).
    return api::DecodeProtobufObject(body, api::Schema::Builtin(), expected);
  }
  return UnsupportedMediaTypeError({"application/json", "application/yaml",
                                    "application/vnd.kubernetes.protobuf"});
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
