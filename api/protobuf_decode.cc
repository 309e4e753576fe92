#include "api/protobuf_decode.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>

#include "common/clock.h"

namespace kmock::api {
namespace {

using nlohmann::json;

// Protobuf wire types (3, start group, is refused as an unknown type).
constexpr int kVarint = 0;
constexpr int kFixed64 = 1;
constexpr int kLengthDelimited = 2;
constexpr int kEndGroup = 4;
constexpr int kFixed32 = 5;

// Go's generated decoders word their errors this way.
constexpr char kUnexpectedEof[] = "unexpected EOF";
constexpr char kIntOverflow[] = "proto: integer overflow";
constexpr char kNegativeLength[] =
    "proto: negative length found during unmarshaling";
constexpr char kTooDeep[] = "proto: nesting too deep";

// Time values Go can print (years 1678 to 2261 fit a nanosecond clock).
constexpr int64_t kMinSeconds = -9'000'000'000;
constexpr int64_t kMaxSeconds = 9'000'000'000;

std::string ShortName(std::string_view full) {
  size_t dot = full.rfind('.');
  return std::string(dot == std::string_view::npos ? full
                                                   : full.substr(dot + 1));
}

// Go's struct field name, near enough: the JSON name capitalised.
std::string GoFieldName(std::string_view json_name) {
  std::string out(json_name);
  if (!out.empty() && out[0] >= 'a' && out[0] <= 'z') out[0] -= 'a' - 'A';
  return out;
}

std::string WrongWireType(int wire, std::string_view field) {
  return "proto: wrong wireType = " + std::to_string(wire) + " for field " +
         GoFieldName(field);
}

// Reads protobuf primitives from a byte range; every read is bounds-checked.
class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}

  bool done() const { return pos_ >= data_.size(); }

  // "" on success, else Go's error text.
  std::string Varint(uint64_t* out) {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      if (shift >= 64) return kIntOverflow;
      if (pos_ >= data_.size()) return kUnexpectedEof;
      auto b = static_cast<uint8_t>(data_[pos_++]);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (b < 0x80) break;
    }
    *out = v;
    return "";
  }

  std::string Fixed(size_t n, uint64_t* out) {
    if (data_.size() - pos_ < n) return kUnexpectedEof;
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) {
      v |= static_cast<uint64_t>(static_cast<uint8_t>(data_[pos_ + i]))
           << (8 * i);
    }
    pos_ += n;
    *out = v;
    return "";
  }

  std::string Bytes(std::string_view* out) {
    uint64_t len = 0;
    if (std::string err = Varint(&len); !err.empty()) return err;
    if (static_cast<int64_t>(len) < 0) return kNegativeLength;
    if (len > data_.size() - pos_) return kUnexpectedEof;
    *out = data_.substr(pos_, len);
    pos_ += len;
    return "";
  }

  // Reads a tag; `message` names the message for Go's wording.
  std::string Tag(std::string_view message, int* field, int* wire) {
    uint64_t tag = 0;
    if (std::string err = Varint(&tag); !err.empty()) return err;
    *wire = static_cast<int>(tag & 7);
    uint64_t number = tag >> 3;
    if (*wire == kEndGroup) {
      return "proto: " + std::string(message) +
             ": wiretype end group for non-group";
    }
    if (number == 0 || number > 0x1fffffff) {
      return "proto: " + std::string(message) + ": illegal tag " +
             std::to_string(static_cast<int64_t>(number)) + " (wire type " +
             std::to_string(*wire) + ")";
    }
    *field = static_cast<int>(number);
    return "";
  }

  // Skips a value of an unknown field. Groups (long deprecated, never
  // written by Kubernetes) are refused.
  std::string Skip(int wire) {
    uint64_t ignored = 0;
    std::string_view bytes;
    switch (wire) {
      case kVarint:
        return Varint(&ignored);
      case kFixed64:
        return Fixed(8, &ignored);
      case kLengthDelimited:
        return Bytes(&bytes);
      case kFixed32:
        return Fixed(4, &ignored);
      default:
        return "proto: illegal wireType " + std::to_string(wire);
    }
  }

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

// Go's JSON encoder replaces each byte of invalid UTF-8 with U+FFFD.
std::string ValidUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<uint8_t>(s[i]);
    size_t n = 0;
    uint32_t min = 0, cp = 0;
    if (c < 0x80) {
      out += static_cast<char>(c);
      ++i;
      continue;
    } else if ((c & 0xe0) == 0xc0) {
      n = 2, min = 0x80, cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
      n = 3, min = 0x800, cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
      n = 4, min = 0x10000, cp = c & 0x07;
    }
    bool ok = n != 0 && i + n <= s.size();
    for (size_t k = 1; ok && k < n; ++k) {
      auto cc = static_cast<uint8_t>(s[i + k]);
      if ((cc & 0xc0) != 0x80) ok = false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    ok = ok && cp >= min && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
    if (ok) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      out += "\xef\xbf\xbd";
      ++i;
    }
  }
  return out;
}

std::string Base64(std::string_view in) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = (static_cast<uint8_t>(in[i]) << 16) |
                 (static_cast<uint8_t>(in[i + 1]) << 8) |
                 static_cast<uint8_t>(in[i + 2]);
    for (int shift = 18; shift >= 0; shift -= 6) {
      out += kAlphabet[(v >> shift) & 63];
    }
  }
  if (i < in.size()) {
    uint32_t v = static_cast<uint8_t>(in[i]) << 16;
    if (i + 1 < in.size()) v |= static_cast<uint8_t>(in[i + 1]) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < in.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

// What a value looks like: a field, a list element or a map value.
struct ValueSpec {
  ValueKind kind;
  std::string_view format;
  std::string_view ref;
};

// The special protobuf encodings of scalar-like types.
enum class Shape {
  kPlain,
  kMessage,
  kQuantity,
  kTime,
  kMicroTime,
  kIntOrString,
  kRawJson,
  kUnreadable
};

struct Envelope {
  std::string api_version, kind;
  std::string_view raw;
};

class Decoder {
 public:
  explicit Decoder(const Schema& schema) : schema_(schema) {}

  // Decodes the message `data` of `type` into the object *out (keys are
  // added; a repeated occurrence merges, as protobuf does).
  std::string Message(std::string_view data, const Type& type, int depth,
                      json* out) {
    if (depth > kMaxProtobufDepth) return kTooDeep;
    if (!out->is_object()) *out = json::object();
    std::string type_name = ShortName(type.name);
    Reader r(data);
    while (!r.done()) {
      int number = 0, wire = 0;
      if (std::string err = r.Tag(type_name, &number, &wire); !err.empty()) {
        return err;
      }
      const Field* f = type.FindFieldByProto(number);
      std::string err;
      if (f == nullptr) {
        err = r.Skip(wire);
      } else if (f->name.empty()) {
        err = Inline(r, *f, wire, depth, out);
      } else if (f->kind == ValueKind::kArray) {
        err = Repeated(r, *f, wire, depth, out);
      } else if (f->kind == ValueKind::kMap) {
        err = MapEntry(r, *f, wire, depth, out);
      } else {
        err = Single(r, type_name, *f, wire, depth, out);
      }
      if (!err.empty()) return err;
    }
    return "";
  }

  // Reads the runtime.Unknown envelope after the magic.
  std::string ReadEnvelope(std::string_view data, Envelope* env) {
    Reader r(data);
    while (!r.done()) {
      int number = 0, wire = 0;
      if (std::string err = r.Tag("Unknown", &number, &wire); !err.empty()) {
        return err;
      }
      std::string_view bytes;
      if (number >= 1 && number <= 4) {
        if (wire != kLengthDelimited) {
          static const char* kNames[] = {"", "TypeMeta", "Raw",
                                         "ContentEncoding", "ContentType"};
          return "proto: wrong wireType = " + std::to_string(wire) +
                 " for field " + kNames[number];
        }
        if (std::string err = r.Bytes(&bytes); !err.empty()) return err;
      } else if (std::string err = r.Skip(wire); !err.empty()) {
        return err;
      }
      if (number == 1) {
        if (std::string err = ReadTypeMeta(bytes, env); !err.empty()) {
          return err;
        }
      } else if (number == 2) {
        env->raw = bytes;
      }
    }
    return "";
  }

  // Decodes a whole body (magic included) found inside a RawExtension.
  std::string Nested(std::string_view body, int depth, json* out) {
    Envelope env;
    if (std::string err =
            ReadEnvelope(body.substr(kProtobufMagic.size()), &env);
        !err.empty()) {
      return err;
    }
    const Type* type = FindByGvk(env.api_version, env.kind);
    if (type == nullptr) {
      return "no kind \"" + env.kind + "\" is registered for version \"" +
             env.api_version + "\"";
    }
    *out = json::object();
    if (std::string err = Message(env.raw, *type, depth + 1, out);
        !err.empty()) {
      return err;
    }
    (*out)["apiVersion"] = env.api_version;
    (*out)["kind"] = env.kind;
    return "";
  }

  const Type* FindByGvk(std::string_view api_version, std::string_view kind) {
    std::string_view group, version = api_version;
    if (size_t slash = api_version.find('/'); slash != std::string_view::npos) {
      group = api_version.substr(0, slash);
      version = api_version.substr(slash + 1);
    }
    const Type* meta_fallback = nullptr;
    for (const auto& [name, t] : schema_.types()) {
      if (t.gvk_kind != kind || kind.empty()) continue;
      if (t.gvk_group == group && t.gvk_version == version) return &t;
      // Option kinds (DeleteOptions, ...) are registered in every group.
      if (name.rfind("io.k8s.apimachinery.pkg.apis.meta.", 0) == 0) {
        meta_fallback = &t;
      }
    }
    return meta_fallback;
  }

 private:
  std::string ReadTypeMeta(std::string_view data, Envelope* env) {
    Reader r(data);
    while (!r.done()) {
      int number = 0, wire = 0;
      if (std::string err = r.Tag("TypeMeta", &number, &wire); !err.empty()) {
        return err;
      }
      if (number != 1 && number != 2) {
        if (std::string err = r.Skip(wire); !err.empty()) return err;
        continue;
      }
      if (wire != kLengthDelimited) {
        return WrongWireType(wire, number == 1 ? "APIVersion" : "Kind");
      }
      std::string_view bytes;
      if (std::string err = r.Bytes(&bytes); !err.empty()) return err;
      (number == 1 ? env->api_version : env->kind) = ValidUtf8(bytes);
    }
    return "";
  }

  Shape ShapeOf(const ValueSpec& spec) const {
    if (!spec.ref.empty()) {
      const Type* t = schema_.Find(spec.ref);
      if (t != nullptr) {
        const std::string& s = t->proto_shape;
        if (s == "quantity") return Shape::kQuantity;
        if (s == "time") return Shape::kTime;
        if (s == "microtime") return Shape::kMicroTime;
        if (s == "intorstring") return Shape::kIntOrString;
        if (s == "rawextension") return Shape::kRawJson;
        if (ShortName(t->name) == "FieldsV1") return Shape::kRawJson;
        if (t->kind == ValueKind::kObject) return Shape::kMessage;
      }
    }
    if (spec.kind == ValueKind::kObject) return Shape::kMessage;
    if (spec.kind == ValueKind::kAny || spec.kind == ValueKind::kArray ||
        spec.kind == ValueKind::kMap) {
      return Shape::kUnreadable;
    }
    return Shape::kPlain;
  }

  // Reads one value of `spec` whose tag said `wire`. Sets *present to false
  // when the value cannot be read as JSON (it is skipped).
  std::string Value(Reader& r, const ValueSpec& spec, std::string_view name,
                    int wire, int depth, json* out, bool* present) {
    *present = true;
    Shape shape = ShapeOf(spec);
    if (shape == Shape::kUnreadable) {
      *present = false;
      return r.Skip(wire);
    }
    if (shape == Shape::kPlain) return Scalar(r, spec, name, wire, out);
    if (wire != kLengthDelimited) return WrongWireType(wire, name);
    std::string_view bytes;
    if (std::string err = r.Bytes(&bytes); !err.empty()) return err;
    if (depth + 1 > kMaxProtobufDepth) return kTooDeep;
    switch (shape) {
      case Shape::kMessage: {
        const Type* t = schema_.Find(spec.ref);
        if (t == nullptr) {
          *present = false;
          return "";
        }
        return Message(bytes, *t, depth + 1, out);
      }
      case Shape::kQuantity:
        return QuantityValue(bytes, out);
      case Shape::kTime:
      case Shape::kMicroTime:
        return TimeValue(bytes, shape == Shape::kMicroTime, out);
      case Shape::kIntOrString:
        return IntOrStringValue(bytes, out);
      case Shape::kRawJson:
        return RawValue(bytes, depth, out);
      default:
        return "";
    }
  }

  std::string Scalar(Reader& r, const ValueSpec& spec, std::string_view name,
                     int wire, json* out) {
    uint64_t v = 0;
    switch (spec.kind) {
      case ValueKind::kInteger:
      case ValueKind::kBoolean: {
        if (wire != kVarint) return WrongWireType(wire, name);
        if (std::string err = r.Varint(&v); !err.empty()) return err;
        if (spec.kind == ValueKind::kBoolean) {
          *out = v != 0;
        } else if (spec.format == "int32") {
          *out = static_cast<int32_t>(static_cast<uint32_t>(v));
        } else {
          *out = static_cast<int64_t>(v);
        }
        return "";
      }
      case ValueKind::kNumber: {
        if (wire == kFixed64) {
          if (std::string err = r.Fixed(8, &v); !err.empty()) return err;
          double d;
          std::memcpy(&d, &v, sizeof d);
          *out = d;
        } else if (wire == kFixed32) {
          if (std::string err = r.Fixed(4, &v); !err.empty()) return err;
          float f;
          auto u = static_cast<uint32_t>(v);
          std::memcpy(&f, &u, sizeof f);
          *out = static_cast<double>(f);
        } else {
          return WrongWireType(wire, name);
        }
        // JSON has no NaN or infinity; Go would refuse to encode them.
        if (!std::isfinite(out->get<double>())) *out = 0.0;
        return "";
      }
      default: {
        if (wire != kLengthDelimited) return WrongWireType(wire, name);
        std::string_view bytes;
        if (std::string err = r.Bytes(&bytes); !err.empty()) return err;
        *out = spec.format == "byte" ? Base64(bytes) : ValidUtf8(bytes);
        return "";
      }
    }
  }

  // Quantity{1: string}; Go writes the zero quantity as "0".
  std::string QuantityValue(std::string_view data, json* out) {
    std::string s;
    Reader r(data);
    while (!r.done()) {
      int number = 0, wire = 0;
      if (std::string err = r.Tag("Quantity", &number, &wire); !err.empty()) {
        return err;
      }
      if (number != 1) {
        if (std::string err = r.Skip(wire); !err.empty()) return err;
        continue;
      }
      if (wire != kLengthDelimited) return WrongWireType(wire, "String_");
      std::string_view bytes;
      if (std::string err = r.Bytes(&bytes); !err.empty()) return err;
      s = ValidUtf8(bytes);
    }
    *out = s.empty() ? "0" : s;
    return "";
  }

  // Time{1: int64 seconds, 2: int32 nanos}; the zero time is null.
  std::string TimeValue(std::string_view data, bool micro, json* out) {
    int64_t seconds = 0;
    int32_t nanos = 0;
    Reader r(data);
    while (!r.done()) {
      int number = 0, wire = 0;
      if (std::string err = r.Tag("Timestamp", &number, &wire); !err.empty()) {
        return err;
      }
      if (number != 1 && number != 2) {
        if (std::string err = r.Skip(wire); !err.empty()) return err;
        continue;
      }
      if (wire != kVarint) {
        return WrongWireType(wire, number == 1 ? "Seconds" : "Nanos");
      }
      uint64_t v = 0;
      if (std::string err = r.Varint(&v); !err.empty()) return err;
      if (number == 1) {
        seconds = static_cast<int64_t>(v);
      } else {
        nanos = static_cast<int32_t>(static_cast<uint32_t>(v));
      }
    }
    if (seconds == 0 && nanos == 0) {
      *out = nullptr;
      return "";
    }
    if (seconds < kMinSeconds || seconds > kMaxSeconds || nanos < 0 ||
        nanos > 999'999'999) {
      return "Time.MarshalJSON: year outside of range [0,9999]";
    }
    TimePoint t{std::chrono::duration_cast<TimePoint::duration>(
        std::chrono::seconds(seconds) + (micro ? std::chrono::nanoseconds(nanos)
                                               : std::chrono::nanoseconds(0)))};
    *out = micro ? FormatRfc3339Micro(t) : FormatRfc3339(t);
    return "";
  }

  // IntOrString{1: type (0 int, 1 string), 2: intVal, 3: strVal}.
  std::string IntOrStringValue(std::string_view data, json* out) {
    int64_t type = 0;
    int32_t int_val = 0;
    std::string str_val;
    Reader r(data);
    while (!r.done()) {
      int number = 0, wire = 0;
      if (std::string err = r.Tag("IntOrString", &number, &wire);
          !err.empty()) {
        return err;
      }
      if (number < 1 || number > 3) {
        if (std::string err = r.Skip(wire); !err.empty()) return err;
        continue;
      }
      static const char* kNames[] = {"", "Type", "IntVal", "StrVal"};
      int want = number == 3 ? kLengthDelimited : kVarint;
      if (wire != want) return WrongWireType(wire, kNames[number]);
      if (number == 3) {
        std::string_view bytes;
        if (std::string err = r.Bytes(&bytes); !err.empty()) return err;
        str_val = ValidUtf8(bytes);
        continue;
      }
      uint64_t v = 0;
      if (std::string err = r.Varint(&v); !err.empty()) return err;
      if (number == 1) {
        type = static_cast<int64_t>(v);
      } else {
        int_val = static_cast<int32_t>(static_cast<uint32_t>(v));
      }
    }
    if (type == 1) {
      *out = str_val;
    } else {
      *out = int_val;
    }
    return "";
  }

  // RawExtension / FieldsV1 {1: raw bytes}: JSON, or a nested protobuf body.
  std::string RawValue(std::string_view data, int depth, json* out) {
    std::string_view raw;
    Reader r(data);
    while (!r.done()) {
      int number = 0, wire = 0;
      if (std::string err = r.Tag("RawExtension", &number, &wire);
          !err.empty()) {
        return err;
      }
      if (number != 1) {
        if (std::string err = r.Skip(wire); !err.empty()) return err;
        continue;
      }
      if (wire != kLengthDelimited) return WrongWireType(wire, "Raw");
      if (std::string err = r.Bytes(&raw); !err.empty()) return err;
    }
    if (raw.empty()) {
      *out = nullptr;
      return "";
    }
    if (raw.size() > kProtobufMagic.size() &&
        raw.substr(0, kProtobufMagic.size()) == kProtobufMagic) {
      return Nested(raw, depth + 1, out);
    }
    // The JSON parser recurses; keep it from being driven too deep.
    int level = 0, max_level = 0;
    for (char c : raw) {
      if (c == '{' || c == '[') max_level = std::max(max_level, ++level);
      if (c == '}' || c == ']') --level;
    }
    if (depth + max_level > 4 * kMaxProtobufDepth) return kTooDeep;
    *out = json::parse(raw, nullptr, /*allow_exceptions=*/false);
    if (out->is_discarded()) {
      *out = nullptr;
      return "invalid JSON in an embedded object";
    }
    return "";
  }

  std::string Inline(Reader& r, const Field& f, int wire, int depth,
                     json* out) {
    if (wire != kLengthDelimited) {
      return WrongWireType(wire, ShortName(f.ref));
    }
    std::string_view bytes;
    if (std::string err = r.Bytes(&bytes); !err.empty()) return err;
    const Type* t = schema_.Find(f.ref);
    if (t == nullptr) return "";
    return Message(bytes, *t, depth + 1, out);  // flattened into the parent
  }

  std::string Repeated(Reader& r, const Field& f, int wire, int depth,
                       json* out) {
    ValueSpec spec{f.items.kind, f.items.format, f.items.ref};
    bool numeric = spec.kind == ValueKind::kInteger ||
                   spec.kind == ValueKind::kBoolean ||
                   spec.kind == ValueKind::kNumber;
    if (numeric && wire == kLengthDelimited && ShapeOf(spec) == Shape::kPlain) {
      // Packed: the elements follow one another inside one length.
      std::string_view bytes;
      if (std::string err = r.Bytes(&bytes); !err.empty()) return err;
      int element_wire = spec.kind != ValueKind::kNumber ? kVarint
                         : spec.format == "float"        ? kFixed32
                                                         : kFixed64;
      Reader packed(bytes);
      while (!packed.done()) {
        json v;
        if (std::string err = Scalar(packed, spec, f.name, element_wire, &v);
            !err.empty()) {
          return err;
        }
        Append(f.name, std::move(v), out);
      }
      return "";
    }
    json v;
    bool present = false;
    if (std::string err = Value(r, spec, f.name, wire, depth, &v, &present);
        !err.empty()) {
      return err;
    }
    if (present) Append(f.name, std::move(v), out);
    return "";
  }

  static void Append(const std::string& name, json v, json* out) {
    json& list = (*out)[name];
    if (!list.is_array()) list = json::array();
    list.push_back(std::move(v));
  }

  // One map entry message {1: key, 2: value}.
  std::string MapEntry(Reader& r, const Field& f, int wire, int depth,
                       json* out) {
    if (wire != kLengthDelimited) return WrongWireType(wire, f.name);
    std::string_view bytes;
    if (std::string err = r.Bytes(&bytes); !err.empty()) return err;
    if (depth + 1 > kMaxProtobufDepth) return kTooDeep;
    ValueSpec spec{f.items.kind, f.items.format, f.items.ref};
    std::string key;
    json value;
    bool have_value = false, readable = true;
    Reader entry(bytes);
    while (!entry.done()) {
      int number = 0, entry_wire = 0;
      if (std::string err = entry.Tag("MapEntry", &number, &entry_wire);
          !err.empty()) {
        return err;
      }
      if (number == 1) {
        if (entry_wire != kLengthDelimited) {
          return WrongWireType(entry_wire, "key");
        }
        std::string_view k;
        if (std::string err = entry.Bytes(&k); !err.empty()) return err;
        key = ValidUtf8(k);
      } else if (number == 2) {
        value = json();
        if (std::string err = Value(entry, spec, "value", entry_wire, depth + 1,
                                    &value, &readable);
            !err.empty()) {
          return err;
        }
        have_value = true;
      } else if (std::string err = entry.Skip(entry_wire); !err.empty()) {
        return err;
      }
    }
    if (!readable) return "";
    if (!have_value) value = ZeroValue(spec);
    json& map = (*out)[f.name];
    if (!map.is_object()) map = json::object();
    map[key] = std::move(value);
    return "";
  }

  // What an absent map value decodes to.
  json ZeroValue(const ValueSpec& spec) const {
    switch (ShapeOf(spec)) {
      case Shape::kMessage:
        return json::object();
      case Shape::kQuantity:
        return "0";
      case Shape::kIntOrString:
        return 0;
      case Shape::kPlain:
        break;
      default:
        return nullptr;
    }
    switch (spec.kind) {
      case ValueKind::kInteger:
        return 0;
      case ValueKind::kNumber:
        return 0.0;
      case ValueKind::kBoolean:
        return false;
      default:
        return "";
    }
  }

  std::string Single(Reader& r, const std::string& type_name, const Field& f,
                     int wire, int depth, json* out) {
    ValueSpec spec{f.kind, f.format, f.ref};
    json* slot = &(*out)[f.name];
    bool present = false;
    if (std::string err = Value(r, spec, f.name, wire, depth, slot, &present);
        !err.empty()) {
      return err;
    }
    bool keep = present && !slot->is_null();
    if (keep && ShapeOf(spec) == Shape::kPlain && !f.required &&
        !KeepsZeroValue(type_name, f.name)) {
      keep = !(
          (slot->is_string() && slot->get_ref<const std::string&>().empty()) ||
          (slot->is_boolean() && !slot->get<bool>()) ||
          (slot->is_number_integer() && slot->get<int64_t>() == 0) ||
          (slot->is_number_float() && slot->get<double>() == 0.0));
    }
    if (!keep) out->erase(f.name);
    return "";
  }

  const Schema& schema_;
};

// The apiserver's "unrecognized" error for a body it could not even type.
Status Unrecognized(const Type* expected, std::string_view reason,
                    std::string_view body) {
  constexpr size_t kMax = 30;
  std::string summary;
  if (body.empty()) {
    summary = "<empty>";
  } else if (body[0] == '{') {
    summary = ValidUtf8(body.substr(0, kMax));
  } else {
    static constexpr char kHex[] = "0123456789abcdef";
    for (unsigned char c : body.substr(0, kMax)) {
      summary += kHex[c >> 4];
      summary += kHex[c & 15];
    }
  }
  if (body.size() > kMax) summary += " ...";
  std::string what = "the object provided is unrecognized";
  if (expected != nullptr)
    what += " (must be of type " + expected->gvk_kind + ")";
  return BadRequestError(what + ": " + std::string(reason) + " (" + summary +
                         ")");
}

std::string VersionOf(std::string_view api_version) {
  size_t slash = api_version.find('/');
  return std::string(slash == std::string_view::npos
                         ? api_version
                         : api_version.substr(slash + 1));
}

// The Go package of a group's internal types: "core" for the legacy group,
// else the group's first label ("apps", "rbac", "networking").
std::string InternalPackage(std::string_view group) {
  if (group.empty()) return "core";
  return std::string(group.substr(0, group.find('.')));
}

// A GoString of runtime.TypeMeta, as the missing-kind errors print it.
std::string TypeMetaGoString(const Envelope& env) {
  return "runtime.TypeMeta{APIVersion:\"" + env.api_version + "\", Kind:\"" +
         env.kind + "\"}";
}

}  // namespace

bool KeepsZeroValue(std::string_view type_name, std::string_view field) {
  static const std::set<std::string, std::less<>> kKeep = {
      // core/v1
      "PodSpec.terminationGracePeriodSeconds",
      "PodSpec.activeDeadlineSeconds",
      "PodSpec.automountServiceAccountToken",
      "PodSpec.shareProcessNamespace",
      "PodSpec.priority",
      "PodSpec.enableServiceLinks",
      "PodSpec.setHostnameAsFQDN",
      "PodSpec.hostUsers",
      "SecurityContext.privileged",
      "SecurityContext.runAsUser",
      "SecurityContext.runAsGroup",
      "SecurityContext.runAsNonRoot",
      "SecurityContext.readOnlyRootFilesystem",
      "SecurityContext.allowPrivilegeEscalation",
      "PodSecurityContext.runAsUser",
      "PodSecurityContext.runAsGroup",
      "PodSecurityContext.runAsNonRoot",
      "PodSecurityContext.fsGroup",
      "Probe.terminationGracePeriodSeconds",
      "Toleration.tolerationSeconds",
      "TopologySpreadConstraint.minDomains",
      "ConfigMapKeySelector.optional",
      "SecretKeySelector.optional",
      "ConfigMapEnvSource.optional",
      "SecretEnvSource.optional",
      "SecretVolumeSource.defaultMode",
      "SecretVolumeSource.optional",
      "ConfigMapVolumeSource.defaultMode",
      "ConfigMapVolumeSource.optional",
      "KeyToPath.mode",
      "DownwardAPIVolumeSource.defaultMode",
      "DownwardAPIVolumeFile.mode",
      "ProjectedVolumeSource.defaultMode",
      "SecretProjection.optional",
      "ConfigMapProjection.optional",
      "ServiceAccountTokenProjection.expirationSeconds",
      "ServiceSpec.allocateLoadBalancerNodePorts",
      "ClientIPConfig.timeoutSeconds",
      "ContainerStatus.ready",
      "ContainerStatus.restartCount",
      "ContainerStatus.started",
      "ConfigMap.immutable",
      "Secret.immutable",
      "ServiceAccount.automountServiceAccountToken",
      // meta/v1
      "ObjectMeta.deletionGracePeriodSeconds",
      "OwnerReference.controller",
      "OwnerReference.blockOwnerDeletion",
      "DeleteOptions.gracePeriodSeconds",
      "DeleteOptions.orphanDependents",
      "DeleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential",
      "ListMeta.remainingItemCount",
      // coordination/v1
      "LeaseSpec.leaseDurationSeconds",
      "LeaseSpec.leaseTransitions",
      // apps/v1
      "DeploymentSpec.replicas",
      "DeploymentSpec.revisionHistoryLimit",
      "DeploymentSpec.progressDeadlineSeconds",
      "ReplicaSetSpec.replicas",
      "StatefulSetSpec.replicas",
      "StatefulSetSpec.revisionHistoryLimit",
      "DaemonSetSpec.revisionHistoryLimit",
      "RollingUpdateStatefulSetStrategy.partition",
      // batch/v1
      "JobSpec.parallelism",
      "JobSpec.completions",
      "JobSpec.activeDeadlineSeconds",
      "JobSpec.backoffLimit",
      "JobSpec.backoffLimitPerIndex",
      "JobSpec.maxFailedIndexes",
      "JobSpec.ttlSecondsAfterFinished",
      "JobSpec.suspend",
      "JobSpec.manualSelector",
      "CronJobSpec.startingDeadlineSeconds",
      "CronJobSpec.suspend",
      "CronJobSpec.successfulJobsHistoryLimit",
      "CronJobSpec.failedJobsHistoryLimit",
      // others
      "HorizontalPodAutoscalerSpec.minReplicas",
      "PriorityClass.value",
      "TokenRequestSpec.expirationSeconds",
  };
  std::string key;
  key.reserve(type_name.size() + 1 + field.size());
  key.append(type_name).append(".").append(field);
  return kKeep.count(key) > 0;
}

Result<json> DecodeProtobufObject(std::string_view body, const Schema& schema,
                                  const Type* expected_root) {
  if (body.empty()) return Unrecognized(expected_root, "empty data", body);
  if (body.size() < kProtobufMagic.size() ||
      body.substr(0, kProtobufMagic.size()) != kProtobufMagic) {
    return Unrecognized(expected_root,
                        "provided data does not appear to be a protobuf "
                        "message, expected prefix [107 56 115 0]",
                        body);
  }
  if (body.size() == kProtobufMagic.size()) {
    return Unrecognized(expected_root, "empty body", body);
  }
  Decoder decoder(schema);
  Envelope env;
  if (std::string err =
          decoder.ReadEnvelope(body.substr(kProtobufMagic.size()), &env);
      !err.empty()) {
    return Unrecognized(expected_root, err, body);
  }
  if (expected_root != nullptr) {
    // The URL's kind fills in what the envelope leaves out.
    if (env.kind.empty()) env.kind = expected_root->gvk_kind;
    if (env.api_version.empty()) {
      env.api_version =
          expected_root->gvk_group.empty()
              ? expected_root->gvk_version
              : expected_root->gvk_group + "/" + expected_root->gvk_version;
    }
  }
  if (env.kind.empty()) {
    return Unrecognized(
        expected_root,
        "Object 'Kind' is missing in '" + TypeMetaGoString(env) + "'", body);
  }
  std::string version = VersionOf(env.api_version);
  const std::string& target =
      expected_root != nullptr ? expected_root->gvk_kind : env.kind;
  auto cannot = [&](const std::string& why) {
    return BadRequestError(env.kind + " in version \"" + version +
                           "\" cannot be handled as a " + target + ": " + why);
  };
  if (env.api_version.empty()) {
    return cannot("Object 'apiVersion' is missing in '" +
                  TypeMetaGoString(env) + "'");
  }
  const Type* type = decoder.FindByGvk(env.api_version, env.kind);
  if (type == nullptr) {
    return cannot("no kind \"" + env.kind + "\" is registered for version \"" +
                  env.api_version +
                  "\" in scheme \"pkg/api/legacyscheme/scheme.go:30\"");
  }
  if (expected_root != nullptr && type->gvk_kind != expected_root->gvk_kind) {
    return cannot("converting (" + version + "." + env.kind + ") to (" +
                  InternalPackage(expected_root->gvk_group) + "." +
                  expected_root->gvk_kind + "): unknown conversion");
  }
  json out = json::object();
  if (std::string err = decoder.Message(env.raw, *type, 0, &out);
      !err.empty()) {
    return cannot(err);
  }
  out["apiVersion"] = env.api_version;
  out["kind"] = env.kind;
  return out;
}

}  // namespace kmock::api
