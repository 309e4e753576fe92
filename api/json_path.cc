#include "api/json_path.h"

#include <cctype>

namespace kmock::api {

using nlohmann::json;

namespace {

Status Bad(std::string_view text, const std::string& why) {
  return Status(StatusCode::kBadRequest,
                "invalid JSONPath " + std::string(text) + ": " + why);
}

}  // namespace

Result<JsonPath> JsonPath::Parse(std::string_view text) {
  std::string_view p = text;
  if (p.size() >= 2 && p.front() == '{' && p.back() == '}') {
    p = p.substr(1, p.size() - 2);
  }
  if (!p.empty() && p.front() == '$') p.remove_prefix(1);
  JsonPath path;
  size_t i = 0;
  bool first = true;
  while (i < p.size()) {
    if (p[i] == '.') {
      ++i;
    } else if (p[i] != '[' && !first) {
      return Bad(text, "expected '.' or '['");
    }
    first = false;
    if (i < p.size() && p[i] == '[') {
      size_t close = p.find(']', i);
      if (close == std::string_view::npos) return Bad(text, "unclosed '['");
      std::string_view inner = p.substr(i + 1, close - i - 1);
      Step s;
      if (inner == "*") {
        s.kind = Step::kAll;
      } else if (inner.size() >= 2 &&
                 (inner.front() == '\'' || inner.front() == '"') &&
                 inner.back() == inner.front()) {
        s.member = std::string(inner.substr(1, inner.size() - 2));
      } else {
        if (inner.empty()) return Bad(text, "empty index");
        bool neg = inner.front() == '-';
        long v = 0;
        for (size_t k = neg ? 1 : 0; k < inner.size(); ++k) {
          if (!std::isdigit(static_cast<unsigned char>(inner[k])))
            return Bad(text, "bad index " + std::string(inner));
          v = v * 10 + (inner[k] - '0');
          if (v > 1'000'000) return Bad(text, "index too large");
        }
        s.kind = Step::kIndex;
        s.index = neg ? -v : v;
      }
      path.steps_.push_back(std::move(s));
      i = close + 1;
      continue;
    }
    size_t end = i;
    while (end < p.size() && p[end] != '.' && p[end] != '[') ++end;
    if (end == i) {
      if (i >= p.size()) break;
      return Bad(text, "empty member name");
    }
    Step s;
    s.member = std::string(p.substr(i, end - i));
    path.steps_.push_back(std::move(s));
    i = end;
  }
  if (!path.steps_.empty() && path.steps_[0].kind == Step::kMember) {
    path.root_ = path.steps_[0].member;
  }
  return path;
}

void JsonPath::Walk(const json& at, size_t step,
                    std::vector<const json*>* out) const {
  if (step == steps_.size()) {
    out->push_back(&at);
    return;
  }
  const Step& s = steps_[step];
  switch (s.kind) {
    case Step::kMember: {
      if (!at.is_object()) return;
      auto it = at.find(s.member);
      if (it != at.end()) Walk(*it, step + 1, out);
      return;
    }
    case Step::kIndex: {
      if (!at.is_array()) return;
      long n = static_cast<long>(at.size());
      long idx = s.index < 0 ? n + s.index : s.index;
      if (idx >= 0 && idx < n)
        Walk(at[static_cast<size_t>(idx)], step + 1, out);
      return;
    }
    case Step::kAll:
      if (at.is_array() || at.is_object()) {
        for (const json& e : at) Walk(e, step + 1, out);
      }
      return;
  }
}

std::vector<const json*> JsonPath::Evaluate(const json& obj) const {
  std::vector<const json*> out;
  Walk(obj, 0, &out);
  return out;
}

const json* JsonPath::First(const json& obj) const {
  std::vector<const json*> all = Evaluate(obj);
  return all.empty() ? nullptr : all.front();
}

const std::string& JsonPath::Root() const { return root_; }

}  // namespace kmock::api
