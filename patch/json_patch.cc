#include "patch/json_patch.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "patch/go_format.h"
#include "patch/json_depth.h"
#include "patch/patch_status.h"

namespace kmock::patch {
namespace {

using json = nlohmann::json;

constexpr char kMissing[] = "missing value";
constexpr char kInvalidIndex[] = "invalid index referenced";
constexpr char kTestFailed[] = "test failed";
// Not the library's: an operation whose result would nest deeper than
// kMaxPatchDepth is refused before it is carried out, so that repeated
// copies cannot double a document's depth until walking it exhausts the
// stack.
constexpr char kTooDeep[] = "the patched object would nest too deeply";

// RFC 6901 unescaping: "~1" is "/", "~0" is "~", scanned left to right.
std::string DecodeToken(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '~' && i + 1 < token.size() &&
        (token[i + 1] == '0' || token[i + 1] == '1')) {
      out += token[i + 1] == '1' ? '/' : '~';
      ++i;
    } else {
      out += token[i];
    }
  }
  return out;
}

std::vector<std::string_view> SplitPath(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) {
      parts.push_back(path.substr(start));
      return parts;
    }
    parts.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
}

// strconv.Atoi: optional sign, decimal digits, int64 range.
std::optional<int64_t> Atoi(std::string_view s, std::string* err) {
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    negative = s[i] == '-';
    ++i;
  }
  if (i == s.size()) {
    *err = "strconv.Atoi: parsing " + GoQuote(s) + ": invalid syntax";
    return std::nullopt;
  }
  uint64_t magnitude = 0;
  bool overflow = false;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') {
      *err = "strconv.Atoi: parsing " + GoQuote(s) + ": invalid syntax";
      return std::nullopt;
    }
    uint64_t digit = static_cast<uint64_t>(s[i] - '0');
    if (magnitude > (std::numeric_limits<uint64_t>::max() - digit) / 10) {
      overflow = true;
    } else {
      magnitude = magnitude * 10 + digit;
    }
  }
  uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  if (overflow || magnitude > limit) {
    *err = "strconv.Atoi: parsing " + GoQuote(s) + ": value out of range";
    return std::nullopt;
  }
  if (negative) {
    return magnitude == (uint64_t{1} << 63)
               ? std::numeric_limits<int64_t>::min()
               : -static_cast<int64_t>(magnitude);
  }
  return static_cast<int64_t>(magnitude);
}

std::string InvalidIndex(int64_t idx) {
  return "Unable to access invalid index: " + std::to_string(idx) + ": " +
         kInvalidIndex;
}

// A location inside the document: an object or array plus the last token,
// and how many tokens lead to it (the levels above a value put there).
struct Target {
  json* container = nullptr;
  std::string key;
  size_t depth = 0;
};

// Whether `value` put at `t` keeps the document within kMaxPatchDepth.
bool FitsDepth(const Target& t, const json& value) {
  return t.depth <= kMaxPatchDepth &&
         !DeeperThan(value, kMaxPatchDepth - t.depth);
}

// The element an array token designates, with get's bounds rules.
std::optional<size_t> ArrayIndexForGet(const json& array, std::string_view key,
                                       std::string* err) {
  std::optional<int64_t> idx = Atoi(key, err);
  if (!idx) return std::nullopt;
  int64_t n = static_cast<int64_t>(array.size());
  int64_t i = *idx;
  if (i < 0) {
    if (i < -n) {
      *err = InvalidIndex(i);
      return std::nullopt;
    }
    i += n;
  }
  if (i >= n) {
    *err = InvalidIndex(i);
    return std::nullopt;
  }
  return static_cast<size_t>(i);
}

// The container's value at key: nullptr when an object lacks the key or
// holds null there (the library cannot tell these apart). Sets *err only for
// array lookups that fail.
json* Get(const Target& t, std::string* err) {
  if (t.container->is_object()) {
    auto it = t.container->find(t.key);
    if (it == t.container->end() || it->is_null()) return nullptr;
    return &*it;
  }
  std::optional<size_t> idx = ArrayIndexForGet(*t.container, t.key, err);
  if (!idx) return nullptr;
  json& v = (*t.container)[*idx];
  return v.is_null() ? nullptr : &v;
}

// Walks every token but the last; nullopt when the walk fails.
std::optional<Target> FindObject(json* doc, std::string_view path) {
  std::vector<std::string_view> split = SplitPath(path);
  if (split.size() < 2) return std::nullopt;
  json* current = doc;
  for (size_t i = 1; i + 1 < split.size(); ++i) {
    std::string err;
    json* next = Get(Target{current, DecodeToken(split[i])}, &err);
    if (next == nullptr || !err.empty()) return std::nullopt;
    if (!next->is_object() && !next->is_array()) return std::nullopt;
    current = next;
  }
  return Target{current, DecodeToken(split.back()), split.size() - 1};
}

// Replace's set: the key exists (Get succeeded first).
std::string Set(const Target& t, json value) {
  if (!FitsDepth(t, value)) return kTooDeep;
  if (t.container->is_object()) {
    (*t.container)[t.key] = std::move(value);
    return "";
  }
  std::string err;
  std::optional<int64_t> idx = Atoi(t.key, &err);
  if (!idx) return err;
  int64_t n = static_cast<int64_t>(t.container->size());
  int64_t i = *idx;
  if (i < 0) {
    if (i < -n) return InvalidIndex(i);
    i += n;
  }
  if (i >= n) return InvalidIndex(i);  // unreachable after Get; stay safe
  (*t.container)[static_cast<size_t>(i)] = std::move(value);
  return "";
}

std::string Add(const Target& t, json value) {
  if (!FitsDepth(t, value)) return kTooDeep;
  if (t.container->is_object()) {
    (*t.container)[t.key] = std::move(value);
    return "";
  }
  if (t.key == "-") {
    t.container->push_back(std::move(value));
    return "";
  }
  std::string err;
  std::optional<int64_t> idx = Atoi(t.key, &err);
  if (!idx) {
    return "value was not a proper array index: '" + t.key + "': " + err;
  }
  int64_t size = static_cast<int64_t>(t.container->size()) + 1;
  int64_t i = *idx;
  if (i >= size) return InvalidIndex(i);
  if (i < 0) {
    if (i < -size) return InvalidIndex(i);
    i += size;
  }
  t.container->insert(t.container->begin() + i, std::move(value));
  return "";
}

std::string Remove(const Target& t) {
  if (t.container->is_object()) {
    auto it = t.container->find(t.key);
    if (it == t.container->end()) {
      return "Unable to remove nonexistent key: " + t.key + ": " + kMissing;
    }
    t.container->erase(it);
    return "";
  }
  std::string err;
  std::optional<int64_t> idx = Atoi(t.key, &err);
  if (!idx) return err;
  int64_t n = static_cast<int64_t>(t.container->size());
  int64_t i = *idx;
  if (i >= n) return InvalidIndex(i);
  if (i < 0) {
    if (i < -n) return InvalidIndex(i);
    i += n;
  }
  t.container->erase(t.container->begin() + i);
  return "";
}

// The library's structural equality, document value first: objects match
// when every key of `doc` is in `value` with an equal value.
bool LibraryEqual(const json& doc, const json& value) {
  if (doc.is_object()) {
    if (!value.is_object()) return false;
    for (const auto& [k, v] : doc.items()) {
      auto it = value.find(k);
      if (it == value.end()) return false;
      if (v.is_null() && it->is_null()) continue;
      if (v.is_null() || it->is_null()) return false;
      if (!LibraryEqual(v, *it)) return false;
    }
    return true;
  }
  if (doc.is_array()) {
    if (!value.is_array() || value.size() != doc.size()) return false;
    for (size_t i = 0; i < doc.size(); ++i) {
      if (doc[i].is_null() && value[i].is_null()) continue;
      if (doc[i].is_null() || value[i].is_null()) return false;
      if (!LibraryEqual(doc[i], value[i])) return false;
    }
    return true;
  }
  if (value.is_object() || value.is_array() || value.is_null()) return false;
  return doc.dump() == value.dump();
}

// Operation accessors. A field holding null counts as absent.
const json* Field(const json& op, const char* name) {
  if (!op.is_object()) return nullptr;
  auto it = op.find(name);
  if (it == op.end() || it->is_null()) return nullptr;
  return &*it;
}

std::string Kind(const json& op) {
  const json* v = Field(op, "op");
  if (v == nullptr || !v->is_string()) return "unknown";
  return v->get<std::string>();
}

// op.Path()/op.From(): the string or the decode error.
std::optional<std::string> StringField(const json& op, const char* name,
                                       const std::string& missing,
                                       std::string* err) {
  const json* v = Field(op, name);
  if (v == nullptr) {
    *err = missing;
    return std::nullopt;
  }
  if (!v->is_string()) {
    *err = "json: cannot unmarshal " + GoJsonKind(*v) +
           " into Go value of type string";
    return std::nullopt;
  }
  return v->get<std::string>();
}

std::optional<std::string> PathOf(const json& op, std::string* err) {
  return StringField(op, "path",
                     std::string("operation missing path field: ") + kMissing,
                     err);
}

std::optional<std::string> FromOf(const json& op, std::string* err) {
  return StringField(op, "from",
                     std::string("operation, missing from field: ") + kMissing,
                     err);
}

json ValueOf(const json& op) {
  const json* v = Field(op, "value");
  return v == nullptr ? json(nullptr) : *v;
}

std::string OpAdd(json* doc, const json& op) {
  std::string err;
  std::optional<std::string> path = PathOf(op, &err);
  if (!path)
    return std::string("add operation failed to decode path: ") + kMissing;
  std::optional<Target> t = FindObject(doc, *path);
  if (!t) {
    return "add operation does not apply: doc is missing path: \"" + *path +
           "\": " + kMissing;
  }
  err = Add(*t, ValueOf(op));
  if (!err.empty()) return "error in add for path: '" + *path + "': " + err;
  return "";
}

std::string OpRemove(json* doc, const json& op) {
  std::string err;
  std::optional<std::string> path = PathOf(op, &err);
  if (!path) {
    return std::string("remove operation failed to decode path: ") + kMissing;
  }
  std::optional<Target> t = FindObject(doc, *path);
  if (!t) {
    return "remove operation does not apply: doc is missing path: \"" + *path +
           "\": " + kMissing;
  }
  err = Remove(*t);
  if (!err.empty()) return "error in remove for path: '" + *path + "': " + err;
  return "";
}

std::string OpReplace(json* doc, const json& op) {
  std::string err;
  std::optional<std::string> path = PathOf(op, &err);
  if (!path) return "replace operation failed to decode path: " + err;
  if (path->empty()) {
    json value = ValueOf(op);
    if (!value.is_object() && !value.is_array()) {
      return "replace operation value must be object or array: %!w(<nil>)";
    }
    *doc = std::move(value);
    return "";
  }
  std::optional<Target> t = FindObject(doc, *path);
  if (!t) {
    return "replace operation does not apply: doc is missing path: " + *path +
           ": " + kMissing;
  }
  Get(*t, &err);
  if (!err.empty()) {
    return "replace operation does not apply: doc is missing key: " + *path +
           ": " + kMissing;
  }
  err = Set(*t, ValueOf(op));
  if (!err.empty()) return "error in remove for path: '" + *path + "': " + err;
  return "";
}

std::string OpMove(json* doc, const json& op) {
  std::string err;
  std::optional<std::string> from = FromOf(op, &err);
  if (!from) return "move operation failed to decode from: " + err;
  std::optional<Target> t = FindObject(doc, *from);
  if (!t) {
    return "move operation does not apply: doc is missing from path: " + *from +
           ": " + kMissing;
  }
  const json* found = Get(*t, &err);
  if (!err.empty()) return "error in move for path: '" + t->key + "': " + err;
  json value = found == nullptr ? json(nullptr) : *found;
  err = Remove(*t);
  if (!err.empty()) return "error in move for path: '" + t->key + "': " + err;
  std::optional<std::string> path = PathOf(op, &err);
  if (!path) return "move operation failed to decode path: " + err;
  t = FindObject(doc, *path);
  if (!t) {
    return "move operation does not apply: doc is missing destination path: " +
           *path + ": " + kMissing;
  }
  err = Add(*t, std::move(value));
  if (!err.empty()) return "error in move for path: '" + *path + "': " + err;
  return "";
}

std::string OpCopy(json* doc, const json& op) {
  std::string err;
  std::optional<std::string> from = FromOf(op, &err);
  if (!from) return "copy operation failed to decode from: " + err;
  std::optional<Target> t = FindObject(doc, *from);
  if (!t) {
    return "copy operation does not apply: doc is missing from path: " + *from +
           ": " + kMissing;
  }
  const json* found = Get(*t, &err);
  if (!err.empty()) return "error in copy for from: '" + *from + "': " + err;
  json value = found == nullptr ? json(nullptr) : *found;
  std::optional<std::string> path = PathOf(op, &err);
  if (!path) {
    return std::string("copy operation failed to decode path: ") + kMissing;
  }
  t = FindObject(doc, *path);
  if (!t) {
    return "copy operation does not apply: doc is missing destination path: " +
           *path + ": " + kMissing;
  }
  err = Add(*t, std::move(value));
  if (!err.empty()) return "error while adding value during copy: " + err;
  return "";
}

std::string OpTest(json* doc, const json& op) {
  std::string err;
  std::optional<std::string> path = PathOf(op, &err);
  if (!path) return "test operation failed to decode path: " + err;
  json value = ValueOf(op);
  std::string failed =
      "testing value " + *path + " failed: " + std::string(kTestFailed);
  if (path->empty()) return LibraryEqual(*doc, value) ? "" : failed;
  std::optional<Target> t = FindObject(doc, *path);
  if (!t) {
    return "test operation does not apply: is missing path: " + *path + ": " +
           kMissing;
  }
  const json* found = Get(*t, &err);
  if (!err.empty()) return "error in test for path: '" + *path + "': " + err;
  if (found == nullptr) return value.is_null() ? "" : failed;
  if (value.is_null()) return failed;
  return LibraryEqual(*found, value) ? "" : failed;
}

// The strict decode kube-apiserver runs first: the body must be an array
// (or null) of objects (or nulls) whose op/path/from are strings (or null).
std::string StrictDecodeError(const json& patch) {
  if (patch.is_null()) return "";
  if (!patch.is_array()) {
    return "json: cannot unmarshal " + GoJsonKind(patch) +
           " into Go value of type []handlers.jsonPatchOp";
  }
  for (const json& op : patch) {
    if (op.is_null()) continue;
    if (!op.is_object()) {
      return "json: cannot unmarshal " + GoJsonKind(op) +
             " into Go value of type handlers.jsonPatchOp";
    }
    for (const char* name : {"op", "path", "from"}) {
      auto it = op.find(name);
      if (it != op.end() && !it->is_null() && !it->is_string()) {
        return "json: cannot unmarshal " + GoJsonKind(*it) +
               " into Go struct field jsonPatchOp." + name + " of type string";
      }
    }
  }
  return "";
}

}  // namespace

std::string ApplyJsonPatchOperations(json* doc, const json& operations) {
  try {
    if (!doc->is_object() && !doc->is_array()) {
      return "json: cannot unmarshal " + GoJsonKind(*doc) +
             " into Go value of type jsonpatch.partialDoc";
    }
    if (!operations.is_array()) return "";
    for (const json& op : operations) {
      std::string kind = Kind(op);
      std::string err;
      if (kind == "add") {
        err = OpAdd(doc, op);
      } else if (kind == "remove") {
        err = OpRemove(doc, op);
      } else if (kind == "replace") {
        err = OpReplace(doc, op);
      } else if (kind == "move") {
        err = OpMove(doc, op);
      } else if (kind == "test") {
        err = OpTest(doc, op);
      } else if (kind == "copy") {
        err = OpCopy(doc, op);
      } else {
        err = "Unexpected kind: " + kind;
      }
      if (!err.empty()) return err;
    }
    return "";
  } catch (const std::exception& e) {
    return std::string("internal error applying JSON patch: ") + e.what();
  }
}

Result<json> ApplyJsonPatch(const json& original, const json& patch) {
  try {
    std::string decode_error = StrictDecodeError(patch);
    if (!decode_error.empty()) {
      return BadRequestError("error decoding patch: " + decode_error);
    }
    size_t count = patch.is_array() ? patch.size() : 0;
    if (count > kMaxJsonPatchOperations) {
      return Status(StatusCode::kRequestEntityTooLarge,
                    "The allowed maximum operations in a JSON patch is " +
                        std::to_string(kMaxJsonPatchOperations) + ", got " +
                        std::to_string(count));
    }
    KMOCK_RETURN_IF_ERROR(CheckDepth(patch, "the patch"));
    KMOCK_RETURN_IF_ERROR(CheckDepth(original, "the object"));
    json doc = original;
    std::string err = ApplyJsonPatchOperations(&doc, patch);
    if (err.find(kTooDeep) != std::string::npos)
      return BadRequestError("the patched object nests deeper than " +
                             std::to_string(kMaxPatchDepth) + " levels");
    if (!err.empty()) return RejectedError();
    return doc;
  } catch (const std::exception& e) {
    return InternalError(std::string("applying JSON patch: ") + e.what());
  }
}

}  // namespace kmock::patch
