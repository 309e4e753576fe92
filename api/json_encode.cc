#include "api/json_encode.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

namespace kmock::api {
namespace {

using nlohmann::json;

// ---------------------------------------------------------------- strings

// What each byte needs: 0 = copy as is, 1 = an ASCII escape, 2 = the start
// (or a stray part) of a multi-byte UTF-8 sequence, checked rune by rune.
constexpr uint8_t kPlain = 0, kEscape = 1, kMultiByte = 2;

struct ByteClasses {
  uint8_t table[256];
  constexpr ByteClasses() : table() {
    for (int c = 0; c < 256; ++c) {
      table[c] = c < 0x20 ? kEscape : c < 0x80 ? kPlain : kMultiByte;
    }
    table[static_cast<int>('"')] = kEscape;
    table[static_cast<int>('\\')] = kEscape;
    table[static_cast<int>('<')] = kEscape;
    table[static_cast<int>('>')] = kEscape;
    table[static_cast<int>('&')] = kEscape;
  }
};
constexpr ByteClasses kByteClasses;

constexpr char kHex[] = "0123456789abcdef";

void AppendUnicodeEscape(unsigned code, std::string* out) {
  char buf[6] = {'\\',
                 'u',
                 kHex[(code >> 12) & 15],
                 kHex[(code >> 8) & 15],
                 kHex[(code >> 4) & 15],
                 kHex[code & 15]};
  out->append(buf, 6);
}

void AppendAsciiEscape(unsigned char c, std::string* out) {
  switch (c) {
    case '"':
      out->append("\\\"", 2);
      return;
    case '\\':
      out->append("\\\\", 2);
      return;
    case '\n':
      out->append("\\n", 2);
      return;
    case '\r':
      out->append("\\r", 2);
      return;
    case '\t':
      out->append("\\t", 2);
      return;
    case '\b':
      out->append("\\b", 2);
      return;
    case '\f':
      out->append("\\f", 2);
      return;
    default:
      AppendUnicodeEscape(c, out);  // other controls and <, >, &
  }
}

bool IsContinuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// The length of the well-formed UTF-8 sequence at s[i] (whose first byte is
// >= 0x80), or 0 if it is not one. Rejects what Go's utf8.DecodeRune
// rejects: overlong forms, surrogates and code points past U+10FFFF.
size_t Utf8Length(std::string_view s, size_t i) {
  auto at = [&](size_t k) -> unsigned char {
    return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0;
  };
  unsigned char b0 = at(0), b1 = at(1);
  if (b0 >= 0xC2 && b0 <= 0xDF) return IsContinuation(b1) ? 2 : 0;
  unsigned char lo = 0x80, hi = 0xBF;
  size_t len = 0;
  if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (b1 < lo || b1 > hi) return 0;
  for (size_t k = 2; k < len; ++k) {
    if (!IsContinuation(at(k))) return 0;
  }
  return len;
}

// ---------------------------------------------------------------- numbers

void AppendInt(int64_t v, std::string* out) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out->append(buf, r.ptr - buf);
}

void AppendUint(uint64_t v, std::string* out) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out->append(buf, r.ptr - buf);
}

// ---------------------------------------------------------------- untyped

void AppendKey(std::string_view key, std::string* out) {
  AppendJsonString(key, out);
  out->push_back(':');
}

void AppendScalar(const json& v, std::string* out) {
  switch (v.type()) {
    case json::value_t::string:
      AppendJsonString(v.get_ref<const std::string&>(), out);
      return;
    case json::value_t::boolean:
      if (v.get<bool>()) {
        out->append("true", 4);
      } else {
        out->append("false", 5);
      }
      return;
    case json::value_t::number_integer:
      AppendInt(v.get<int64_t>(), out);
      return;
    case json::value_t::number_unsigned:
      AppendUint(v.get<uint64_t>(), out);
      return;
    case json::value_t::number_float:
      AppendGoFloat(v.get<double>(), out);
      return;
    default:  // null, discarded, binary (never in API objects)
      out->append("null", 4);
      return;
  }
}

void AppendSorted(const json& v, std::string* out) {
  switch (v.type()) {
    case json::value_t::object: {
      out->push_back('{');
      bool first = true;
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (!first) out->push_back(',');
        first = false;
        AppendKey(it.key(), out);
        AppendSorted(it.value(), out);
      }
      out->push_back('}');
      return;
    }
    case json::value_t::array: {
      out->push_back('[');
      bool first = true;
      for (const json& e : v) {
        if (!first) out->push_back(',');
        first = false;
        AppendSorted(e, out);
      }
      out->push_back(']');
      return;
    }
    default:
      AppendScalar(v, out);
  }
}

// ---------------------------------------------------------------- plans

struct TypePlan;

// How to write one value: an object of a planned type, or anything else
// (scalars, `any`, scalar-shaped types such as Quantity) sorted.
struct ValuePlan {
  const TypePlan* object = nullptr;  // set for struct-typed values
};

struct FieldPlan {
  std::string name;
  std::string key_json;  // `"name":`, escaped once
  ValueKind kind = ValueKind::kAny;
  ValuePlan value;  // the field's value (kObject) or its elements
};

struct TypePlan {
  std::vector<FieldPlan> fields;  // in schema (Go declaration) order
  // Field names sorted bytewise, each with its index in `fields`, so an
  // object's sorted keys can be matched in one merge pass.
  std::vector<std::pair<std::string_view, uint32_t>> by_name;
};

// Encoding plans for every struct type of one schema.
class Plans final : public Schema::Derived {
 public:
  explicit Plans(const Schema& schema) {
    for (const auto& [name, type] : schema.types()) {
      if (IsStruct(type)) plans_.emplace(&type, std::make_unique<TypePlan>());
    }
    for (auto& [type, plan] : plans_) Build(schema, *type, plan.get());
  }

  const TypePlan* Find(const Type& type) const {
    auto it = plans_.find(&type);
    return it == plans_.end() ? nullptr : it->second.get();
  }

 private:
  static bool IsStruct(const Type& t) {
    return t.kind == ValueKind::kObject && t.proto_shape.empty();
  }

  ValuePlan PlanFor(const Schema& schema, const std::string& ref) const {
    ValuePlan v;
    if (ref.empty()) return v;
    const Type* t = schema.Find(ref);
    if (t) v.object = Find(*t);
    return v;
  }

  void Build(const Schema& schema, const Type& type, TypePlan* plan) const {
    for (const Field& f : type.fields) {
      if (f.name.empty()) continue;  // an inline marker; its fields follow
      FieldPlan fp;
      fp.name = f.name;
      AppendKey(f.name, &fp.key_json);
      fp.kind = f.kind;
      if (f.kind == ValueKind::kObject) {
        fp.value = PlanFor(schema, f.ref);
      } else if (f.kind == ValueKind::kArray || f.kind == ValueKind::kMap) {
        fp.value = PlanFor(schema, f.items.ref);
      }
      plan->fields.push_back(std::move(fp));
    }
    for (uint32_t i = 0; i < plan->fields.size(); ++i) {
      plan->by_name.emplace_back(plan->fields[i].name, i);
    }
    std::sort(plan->by_name.begin(), plan->by_name.end());
  }

  std::unordered_map<const Type*, std::unique_ptr<TypePlan>> plans_;
};

// The plans of `schema`, built on its first encode and kept with it.
const Plans& PlansOf(const Schema& schema) {
  return static_cast<const Plans&>(schema.EncodePlans(
      [](const Schema& s) { return std::make_unique<Plans>(s); }));
}

// ---------------------------------------------------------------- typed

void AppendTyped(const json& v, const TypePlan& plan, std::string* out);

void AppendValue(const json& v, const ValuePlan& plan, std::string* out) {
  if (plan.object) {
    AppendTyped(v, *plan.object, out);
  } else {
    AppendSorted(v, out);
  }
}

void AppendField(const json& v, const FieldPlan& f, std::string* out) {
  out->append(f.key_json);
  switch (f.kind) {
    case ValueKind::kObject:
      AppendValue(v, f.value, out);
      return;
    case ValueKind::kArray:
      if (v.is_array() && f.value.object) {
        out->push_back('[');
        bool first = true;
        for (const json& e : v) {
          if (!first) out->push_back(',');
          first = false;
          AppendTyped(e, *f.value.object, out);
        }
        out->push_back(']');
      } else {
        AppendSorted(v, out);
      }
      return;
    case ValueKind::kMap:
      if (v.is_object() && f.value.object) {
        out->push_back('{');
        bool first = true;
        for (auto it = v.begin(); it != v.end(); ++it) {
          if (!first) out->push_back(',');
          first = false;
          AppendKey(it.key(), out);
          AppendTyped(it.value(), *f.value.object, out);
        }
        out->push_back('}');
      } else {
        AppendSorted(v, out);
      }
      return;
    default:
      AppendSorted(v, out);
  }
}

// One key of the object being written: its schema index (or kUnknown) and
// its value.
struct Slot {
  uint32_t index;
  const std::string* key;
  const json* value;
};
constexpr uint32_t kUnknown = UINT32_MAX;
constexpr size_t kInlineSlots = 48;

void AppendTyped(const json& v, const TypePlan& plan, std::string* out) {
  if (!v.is_object()) {
    AppendSorted(v, out);
    return;
  }
  // Match the object's sorted keys against the sorted field names in one
  // merge pass, then order the known ones by schema index. Objects rarely
  // have more than a few dozen keys, so the slots live on the stack.
  Slot inline_slots[kInlineSlots];
  std::vector<Slot> heap_slots;
  Slot* slots = inline_slots;
  if (v.size() > kInlineSlots) {
    heap_slots.resize(v.size());
    slots = heap_slots.data();
  }
  size_t n = 0, known = 0;
  auto name = plan.by_name.begin();
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::string& key = it.key();
    while (name != plan.by_name.end() && name->first < key) ++name;
    uint32_t index = kUnknown;
    if (name != plan.by_name.end() && name->first == key) {
      index = name->second;
      ++known;
    }
    slots[n++] = Slot{index, &key, &it.value()};
  }
  // Known fields (in schema order) first, unknown ones (still sorted) last:
  // a stable sort by index; insertion sort for the usual small objects, as
  // it needs no allocation.
  auto by_index = [](const Slot& a, const Slot& b) {
    return a.index < b.index;
  };
  if (n > kInlineSlots) {
    std::stable_sort(slots, slots + n, by_index);
  } else {
    for (size_t i = 1; i < n; ++i) {
      Slot s = slots[i];
      size_t j = i;
      for (; j > 0 && by_index(s, slots[j - 1]); --j) slots[j] = slots[j - 1];
      slots[j] = s;
    }
  }
  out->push_back('{');
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) out->push_back(',');
    if (i < known) {
      AppendField(*slots[i].value, plan.fields[slots[i].index], out);
    } else {
      AppendKey(*slots[i].key, out);
      AppendSorted(*slots[i].value, out);
    }
  }
  out->push_back('}');
}

}  // namespace

void AppendJsonString(std::string_view s, std::string* out) {
  out->push_back('"');
  size_t run = 0;  // start of the bytes not yet copied
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    uint8_t cls = kByteClasses.table[c];
    if (cls == kPlain) {
      ++i;
      continue;
    }
    if (cls == kEscape) {
      out->append(s.data() + run, i - run);
      AppendAsciiEscape(c, out);
      run = ++i;
      continue;
    }
    size_t len = Utf8Length(s, i);
    if (len == 0) {
      out->append(s.data() + run, i - run);
      AppendUnicodeEscape(0xFFFD, out);
      run = ++i;
      continue;
    }
    // U+2028 and U+2029 (E2 80 A8/A9) break JavaScript string literals.
    if (len == 3 && c == 0xE2 && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
        (static_cast<unsigned char>(s[i + 2]) & 0xFE) == 0xA8) {
      out->append(s.data() + run, i - run);
      AppendUnicodeEscape(0x2028 | (s[i + 2] & 1), out);
      i += 3;
      run = i;
      continue;
    }
    i += len;
  }
  out->append(s.data() + run, s.size() - run);
  out->push_back('"');
}

void AppendGoFloat(double v, std::string* out) {
  if (!std::isfinite(v)) {
    out->append("null", 4);
    return;
  }
  double abs = std::fabs(v);
  bool exponent = abs != 0 && (abs < 1e-6 || abs >= 1e21);
  char buf[64];
  auto r = std::to_chars(
      buf, buf + sizeof buf, v,
      exponent ? std::chars_format::scientific : std::chars_format::fixed);
  size_t n = r.ptr - buf;
  // Go writes e-07 as e-7 (but keeps two digits after a plus: e+21).
  if (exponent && n >= 4 && buf[n - 4] == 'e' && buf[n - 3] == '-' &&
      buf[n - 2] == '0') {
    buf[n - 2] = buf[n - 1];
    --n;
  }
  out->append(buf, n);
}

void AppendJson(const nlohmann::json& value, std::string* out) {
  AppendSorted(value, out);
}

std::string EncodeJson(const nlohmann::json& value) {
  std::string out;
  AppendSorted(value, &out);
  return out;
}

void AppendObjectJson(const nlohmann::json& value, const Type& type,
                      std::string* out, const Schema& schema) {
  if (const TypePlan* plan = PlansOf(schema).Find(type)) {
    AppendTyped(value, *plan, out);
  } else {
    AppendSorted(value, out);
  }
}

std::string EncodeObjectJson(const nlohmann::json& value, const Type& type,
                             const Schema& schema) {
  std::string out;
  AppendObjectJson(value, type, &out, schema);
  return out;
}

}  // namespace kmock::api
