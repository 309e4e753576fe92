#include "registry/selectors.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "api/validation.h"

namespace kmock::registry {

namespace {

using json = nlohmann::json;

Status ParseError(const std::string& msg) {
  return Status(StatusCode::kBadRequest, msg);
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Characters that may appear in label keys and values.
bool IsIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ||
         c == '.' || c == '/';
}

class Lexer {
 public:
  explicit Lexer(const std::string& s) : s_(s) {}
  void SkipSpace() {
    while (pos_ < s_.size() && IsSpace(s_[pos_])) ++pos_;
  }
  bool AtEnd() {
    SkipSpace();
    return pos_ >= s_.size();
  }
  char Peek() {
    SkipSpace();
    return pos_ < s_.size() ? s_[pos_] : '\0';
  }
  bool Consume(const std::string& tok) {
    SkipSpace();
    if (s_.compare(pos_, tok.size(), tok) == 0) {
      pos_ += tok.size();
      return true;
    }
    return false;
  }
  std::string Ident() {
    SkipSpace();
    size_t start = pos_;
    while (pos_ < s_.size() && IsIdentChar(s_[pos_])) ++pos_;
    return s_.substr(start, pos_ - start);
  }
  // An identifier that may not be followed by identifier characters; used
  // for the keywords "in" and "notin".
  bool Keyword(const std::string& kw) {
    SkipSpace();
    if (s_.compare(pos_, kw.size(), kw) != 0) return false;
    size_t end = pos_ + kw.size();
    if (end < s_.size() && IsIdentChar(s_[end])) return false;
    pos_ = end;
    return true;
  }
  const std::string& text() const { return s_; }

 private:
  const std::string& s_;
  size_t pos_ = 0;
};

bool ValidLabelValue(const std::string& v) {
  if (v.size() > 63) return false;
  if (v.empty()) return true;
  auto alnum = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0;
  };
  if (!alnum(v.front()) || !alnum(v.back())) return false;
  for (char c : v)
    if (!alnum(c) && c != '-' && c != '_' && c != '.') return false;
  return true;
}

Status CheckValue(const std::string& v) {
  if (!ValidLabelValue(v))
    return ParseError(
        "unable to parse requirement: values[0]: Invalid value: \"" + v +
        "\": a valid label must be an empty string or consist of "
        "alphanumeric characters, '-', '_' or '.', and must start and "
        "end with an alphanumeric character (e.g. 'MyValue',  or "
        "'my_value',  or '12345', regex used for validation is "
        "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
  return Status::Ok();
}

const char* OpString(LabelSelector::Op op) {
  switch (op) {
    case LabelSelector::Op::kEquals:
      return "=";
    case LabelSelector::Op::kNotEquals:
      return "!=";
    case LabelSelector::Op::kIn:
      return " in ";
    case LabelSelector::Op::kNotIn:
      return " notin ";
    case LabelSelector::Op::kGt:
      return ">";
    case LabelSelector::Op::kLt:
      return "<";
    default:
      return "";
  }
}

}  // namespace

Result<LabelSelector> LabelSelector::Parse(const std::string& text) {
  LabelSelector sel;
  Lexer lx(text);
  if (lx.AtEnd()) return sel;
  while (true) {
    Requirement r;
    if (lx.Consume("!")) {
      r.key = lx.Ident();
      if (r.key.empty())
        return ParseError("unable to parse requirement: found '" +
                          std::string(1, lx.Peek()) +
                          "', expected: identifier");
      r.op = Op::kDoesNotExist;
    } else {
      r.key = lx.Ident();
      if (r.key.empty()) {
        char c = lx.Peek();
        return ParseError("unable to parse requirement: found '" +
                          std::string(c ? std::string(1, c) : "") +
                          "', expected: !, identifier");
      }
      if (lx.AtEnd() || lx.Peek() == ',') {
        r.op = Op::kExists;
      } else if (lx.Consume("==") || lx.Consume("=")) {
        r.op = Op::kEquals;
      } else if (lx.Consume("!=")) {
        r.op = Op::kNotEquals;
      } else if (lx.Consume(">")) {
        r.op = Op::kGt;
      } else if (lx.Consume("<")) {
        r.op = Op::kLt;
      } else if (lx.Keyword("notin")) {
        r.op = Op::kNotIn;
      } else if (lx.Keyword("in")) {
        r.op = Op::kIn;
      } else {
        return ParseError("unable to parse requirement: found '" +
                          std::string(1, lx.Peek()) +
                          "', expected: in, notin, =, ==, !=, gt, lt");
      }
      if (r.op == Op::kIn || r.op == Op::kNotIn) {
        if (!lx.Consume("("))
          return ParseError("unable to parse requirement: found '" +
                            std::string(1, lx.Peek()) + "', expected: '('");
        while (true) {
          std::string v = lx.Ident();
          KMOCK_RETURN_IF_ERROR(CheckValue(v));
          r.values.push_back(v);
          if (lx.Consume(")")) break;
          if (!lx.Consume(","))
            return ParseError("unable to parse requirement: found '" +
                              std::string(1, lx.Peek()) +
                              "', expected: ',', ')'");
        }
      } else if (r.op == Op::kEquals || r.op == Op::kNotEquals) {
        std::string v = lx.Ident();
        KMOCK_RETURN_IF_ERROR(CheckValue(v));
        r.values.push_back(v);
      } else if (r.op == Op::kGt || r.op == Op::kLt) {
        std::string v = lx.Ident();
        char* end = nullptr;
        std::strtoll(v.c_str(), &end, 10);
        if (v.empty() || *end != '\0')
          return ParseError(
              "unable to parse requirement: for 'Gt', 'Lt' operators, "
              "the value must be an integer");
        r.values.push_back(v);
      }
    }
    sel.reqs_.push_back(std::move(r));
    if (lx.AtEnd()) break;
    if (!lx.Consume(","))
      return ParseError("found '" + std::string(1, lx.Peek()) +
                        "', expected: ',' or 'end of string'");
  }
  return sel;
}

namespace {

// A string member of a matchExpressions entry; "" when the entry is not an
// object or the member is absent or not a string (json::value would throw).
std::string StringMember(const json& obj, const char* key) {
  if (!obj.is_object()) return "";
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

namespace {

// What metav1.LabelSelectorAsSelector checks of each requirement: a
// qualified-name key, label values, and values only where the operator
// takes them.
Status CheckRequirement(const LabelSelector::Requirement& r) {
  using Op = LabelSelector::Op;
  if (auto errs = api::IsQualifiedName(r.key); !errs.empty())
    return ParseError("key: Invalid value: \"" + r.key + "\": " + errs[0]);
  const bool sets = r.op == Op::kIn || r.op == Op::kNotIn;
  if (sets && r.values.empty())
    return ParseError(
        "values: Invalid value: []string{}: for 'in', 'notin' operators, "
        "values set can't be empty");
  if ((r.op == Op::kExists || r.op == Op::kDoesNotExist) && !r.values.empty()) {
    std::string go = "[]string{";
    for (size_t i = 0; i < r.values.size(); ++i)
      go += (i ? ", \"" : "\"") + r.values[i] + "\"";
    return ParseError("values: Invalid value: " + go +
                      "}: values set must be empty for exists and does not "
                      "exist");
  }
  for (size_t i = 0; i < r.values.size(); ++i) {
    if (auto errs = api::IsValidLabelValue(r.values[i]); !errs.empty())
      return ParseError("values[" + std::to_string(i) + "]: Invalid value: \"" +
                        r.values[i] + "\": " + errs[0]);
  }
  return Status::Ok();
}

}  // namespace

Result<LabelSelector> LabelSelector::FromJson(const json& selector) {
  LabelSelector sel;
  if (selector.is_null()) {
    sel.nothing_ = true;
    return sel;
  }
  if (!selector.is_object()) return ParseError("invalid label selector");
  if (auto it = selector.find("matchLabels");
      it != selector.end() && it->is_object()) {
    for (auto& [k, v] : it->items()) {
      if (!v.is_string()) return ParseError("invalid label selector value");
      sel.reqs_.push_back({k, Op::kEquals, {v.get<std::string>()}});
      KMOCK_RETURN_IF_ERROR(CheckRequirement(sel.reqs_.back()));
    }
  }
  if (auto it = selector.find("matchExpressions");
      it != selector.end() && it->is_array()) {
    for (const auto& e : *it) {
      Requirement r;
      if (!e.is_object() || !e.contains("key") || !e["key"].is_string())
        return ParseError("invalid label selector");
      r.key = StringMember(e, "key");
      std::string op = StringMember(e, "operator");
      if (op == "In")
        r.op = Op::kIn;
      else if (op == "NotIn")
        r.op = Op::kNotIn;
      else if (op == "Exists")
        r.op = Op::kExists;
      else if (op == "DoesNotExist")
        r.op = Op::kDoesNotExist;
      else
        return ParseError("\"" + op +
                          "\" is not a valid label selector operator");
      if (auto v = e.find("values"); v != e.end() && v->is_array())
        for (const auto& s : *v)
          if (s.is_string()) r.values.push_back(s.get<std::string>());
      KMOCK_RETURN_IF_ERROR(CheckRequirement(r));
      sel.reqs_.push_back(std::move(r));
    }
  }
  return sel;
}

bool LabelSelector::Matches(const json& labels) const {
  if (nothing_) return false;
  for (const auto& r : reqs_) {
    const json* v = nullptr;
    if (labels.is_object()) {
      auto it = labels.find(r.key);
      if (it != labels.end() && it->is_string()) v = &*it;
    }
    switch (r.op) {
      case Op::kExists:
        if (!v) return false;
        break;
      case Op::kDoesNotExist:
        if (v) return false;
        break;
      case Op::kEquals:
      case Op::kIn:
        if (!v || std::find(r.values.begin(), r.values.end(),
                            v->get_ref<const std::string&>()) == r.values.end())
          return false;
        break;
      case Op::kNotEquals:
      case Op::kNotIn:
        if (v && std::find(r.values.begin(), r.values.end(),
                           v->get_ref<const std::string&>()) != r.values.end())
          return false;
        break;
      case Op::kGt:
      case Op::kLt: {
        if (!v) return false;
        const std::string& s = v->get_ref<const std::string&>();
        char* end = nullptr;
        long long have = std::strtoll(s.c_str(), &end, 10);
        if (s.empty() || *end != '\0') return false;
        long long want = std::strtoll(r.values[0].c_str(), nullptr, 10);
        if (r.op == Op::kGt ? !(have > want) : !(have < want)) return false;
        break;
      }
    }
  }
  return true;
}

std::string LabelSelector::ToString() const {
  std::string out;
  for (const auto& r : reqs_) {
    if (!out.empty()) out += ",";
    if (r.op == Op::kDoesNotExist) {
      out += "!" + r.key;
      continue;
    }
    out += r.key;
    if (r.op == Op::kExists) continue;
    out += OpString(r.op);
    if (r.op == Op::kIn || r.op == Op::kNotIn) {
      out += "(";
      for (size_t i = 0; i < r.values.size(); ++i)
        out += (i ? "," : "") + r.values[i];
      out += ")";
    } else {
      out += r.values.empty() ? "" : r.values[0];
    }
  }
  return out;
}

Result<FieldSelector> FieldSelector::Parse(const std::string& text) {
  FieldSelector sel;
  // Split on unescaped commas, then on the first unescaped operator.
  std::vector<std::string> parts;
  std::string cur;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\\' && i + 1 < text.size()) {
      cur.push_back(c);
      cur.push_back(text[++i]);
    } else if (c == ',') {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  parts.push_back(cur);
  if (parts.size() == 1 && parts[0].empty()) return sel;
  auto unescape = [](const std::string& s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '\\' && i + 1 < s.size()) ++i;
      out.push_back(s[i]);
    }
    return out;
  };
  for (const auto& p : parts) {
    Requirement r;
    size_t op = std::string::npos;
    size_t oplen = 0;
    for (size_t i = 0; i < p.size(); ++i) {
      if (p[i] == '\\') {
        ++i;
        continue;
      }
      if (p.compare(i, 2, "!=") == 0) {
        op = i, oplen = 2, r.equals = false;
        break;
      }
      if (p.compare(i, 2, "==") == 0) {
        op = i, oplen = 2;
        break;
      }
      if (p[i] == '=') {
        op = i, oplen = 1;
        break;
      }
    }
    if (op == std::string::npos)
      return ParseError("invalid selector: '" + text + "'; can't understand '" +
                        p + "'");
    r.field = p.substr(0, op);
    while (!r.field.empty() && IsSpace(r.field.back())) r.field.pop_back();
    while (!r.field.empty() && IsSpace(r.field.front())) r.field.erase(0, 1);
    r.value = unescape(p.substr(op + oplen));
    sel.reqs_.push_back(std::move(r));
  }
  return sel;
}

bool FieldSelector::Matches(
    const std::function<std::string(const std::string&)>& value_of) const {
  for (const auto& r : reqs_) {
    bool eq = value_of(r.field) == r.value;
    if (eq != r.equals) return false;
  }
  return true;
}

const std::string* FieldSelector::RequiredValue(
    const std::string& field) const {
  for (const auto& r : reqs_)
    if (r.equals && r.field == field) return &r.value;
  return nullptr;
}

}  // namespace kmock::registry
