#include "fieldmanager/field_set.h"

#include <iterator>

#include "patch/go_format.h"

namespace kmock::fieldmanager {

using nlohmann::json;

void FieldSet::Insert(const Path& path) {
  FieldSet* node = this;
  for (const std::string& pe : path) node = &node->children_[pe];
  if (node != this) node->member_ = true;
}

bool FieldSet::Has(const Path& path) const {
  if (path.empty()) return false;
  const FieldSet* node = this;
  for (const std::string& pe : path) {
    node = node->Child(pe);
    if (node == nullptr) return false;
  }
  return node->member_;
}

const FieldSet* FieldSet::Child(const std::string& pe) const {
  auto it = children_.find(pe);
  return it == children_.end() ? nullptr : &it->second;
}

bool FieldSet::HasMember(const std::string& pe) const {
  const FieldSet* c = Child(pe);
  return c != nullptr && c->member_;
}

void FieldSet::SetChild(const std::string& pe, FieldSet subtree, bool member) {
  subtree.member_ = member;
  if (!member && subtree.children_.empty()) {
    children_.erase(pe);
    return;
  }
  children_[pe] = std::move(subtree);
}

FieldSet FieldSet::Union(const FieldSet& other) const& {
  FieldSet out = *this;
  out.member_ = member_ || other.member_;
  for (const auto& [pe, child] : other.children_) {
    auto it = out.children_.find(pe);
    if (it == out.children_.end()) {
      out.children_.emplace(pe, child);
    } else {
      it->second = std::move(it->second).Union(child);
    }
  }
  return out;
}

FieldSet FieldSet::Difference(const FieldSet& other) const& {
  FieldSet out;
  out.member_ = member_ && !other.member_;
  for (const auto& [pe, child] : children_) {
    const FieldSet* o = other.Child(pe);
    FieldSet d = o == nullptr ? child : child.Difference(*o);
    if (d.member_ || !d.children_.empty())
      out.children_.emplace(pe, std::move(d));
  }
  return out;
}

FieldSet FieldSet::Union(const FieldSet& other) && {
  member_ = member_ || other.member_;
  for (const auto& [pe, child] : other.children_) {
    auto it = children_.find(pe);
    if (it == children_.end()) {
      children_.emplace(pe, child);
    } else {
      it->second = std::move(it->second).Union(child);
    }
  }
  return std::move(*this);
}

FieldSet FieldSet::Difference(const FieldSet& other) && {
  member_ = member_ && !other.member_;
  for (auto it = children_.begin(); it != children_.end();) {
    if (const FieldSet* o = other.Child(it->first))
      it->second = std::move(it->second).Difference(*o);
    it = it->second.Hollow() ? children_.erase(it) : std::next(it);
  }
  return std::move(*this);
}

FieldSet FieldSet::RecursiveDifference(const FieldSet& other) && {
  for (auto it = children_.begin(); it != children_.end();) {
    const FieldSet* o = other.Child(it->first);
    if (o == nullptr) {
      ++it;  // kept as it is, as the copying form keeps it
      continue;
    }
    if (o->member_) {
      it = children_.erase(it);
      continue;
    }
    it->second = std::move(it->second).RecursiveDifference(*o);
    it = it->second.Hollow() ? children_.erase(it) : std::next(it);
  }
  return std::move(*this);
}

FieldSet FieldSet::Intersection(const FieldSet& other) const {
  FieldSet out;
  out.member_ = member_ && other.member_;
  for (const auto& [pe, child] : children_) {
    const FieldSet* o = other.Child(pe);
    if (o == nullptr) continue;
    FieldSet i = child.Intersection(*o);
    if (i.member_ || !i.children_.empty())
      out.children_.emplace(pe, std::move(i));
  }
  return out;
}

FieldSet FieldSet::RecursiveDifference(const FieldSet& other) const& {
  FieldSet out;
  out.member_ = member_;
  for (const auto& [pe, child] : children_) {
    const FieldSet* o = other.Child(pe);
    if (o == nullptr) {
      out.children_.emplace(pe, child);
      continue;
    }
    if (o->member_) continue;
    FieldSet d = child.RecursiveDifference(*o);
    if (d.member_ || !d.children_.empty())
      out.children_.emplace(pe, std::move(d));
  }
  return out;
}

void FieldSet::IterateFrom(Path& prefix,
                           const std::function<void(const Path&)>& fn) const {
  for (const auto& [pe, child] : children_) {
    if (!child.member_) continue;
    prefix.push_back(pe);
    fn(prefix);
    prefix.pop_back();
  }
  for (const auto& [pe, child] : children_) {
    if (child.children_.empty()) continue;
    prefix.push_back(pe);
    child.IterateFrom(prefix, fn);
    prefix.pop_back();
  }
}

void FieldSet::Iterate(const std::function<void(const Path&)>& fn) const {
  Path prefix;
  IterateFrom(prefix, fn);
}

std::vector<Path> FieldSet::Paths() const {
  std::vector<Path> out;
  Iterate([&](const Path& p) { out.push_back(p); });
  return out;
}

json FieldSet::ToFieldsV1() const {
  json out = json::object();
  if (member_ && !children_.empty()) out["."] = json::object();
  for (const auto& [pe, child] : children_) out[pe] = child.ToFieldsV1();
  return out;
}

namespace {

bool ValidElement(const std::string& pe) {
  if (pe.size() < 2 || pe[1] != ':') return false;
  switch (pe[0]) {
    case 'f':
      return true;
    case 'k': {
      json k = json::parse(pe.substr(2), nullptr, false);
      return k.is_object();
    }
    case 'v':
      return !json::parse(pe.substr(2), nullptr, false).is_discarded();
    case 'i':
      return pe.size() > 2 &&
             pe.find_first_not_of("0123456789", 2) == std::string::npos;
    default:
      return false;
  }
}

// value.ToString in upstream's path printing: strings quoted as Go's %q.
std::string ValueText(const json& v) {
  if (v.is_string()) return patch::GoQuote(v.get<std::string>());
  if (v.is_null()) return "null";
  if (v.is_array()) {
    std::string out = "[";
    for (size_t i = 0; i < v.size(); ++i) {
      if (i > 0) out += ", ";
      out += ValueText(v[i]);
    }
    return out + "]";
  }
  if (v.is_object()) {
    std::string out = "{";
    bool first = true;
    for (const auto& [k, x] : v.items()) {
      if (!first) out += ", ";
      first = false;
      out += k + "=" + ValueText(x);
    }
    return out + "}";
  }
  return patch::GoValue(v);
}

}  // namespace

Status FieldSet::ParseInto(const json& j, FieldSet* node) {
  if (!j.is_object()) {
    return Status(StatusCode::kBadRequest, "fieldsV1: expected an object");
  }
  for (const auto& [key, value] : j.items()) {
    if (key == ".") {
      node->member_ = true;
      continue;
    }
    if (!ValidElement(key)) {
      return Status(StatusCode::kBadRequest,
                    "fieldsV1: invalid path element: " + key);
    }
    FieldSet& child = node->children_[key];
    KMOCK_RETURN_IF_ERROR(ParseInto(value, &child));
    if (child.children_.empty()) child.member_ = true;
  }
  return Status::Ok();
}

bool FieldSet::SharesMemberWith(const json& fields) const {
  if (!fields.is_object()) return false;
  for (const auto& [pe, child] : children_) {
    auto it = fields.find(pe);
    if (it == fields.end() || !it->is_object()) continue;
    // As ParseInto reads it: a leaf, or a node with ".", is a member.
    if (child.member_ && (it->empty() || it->contains("."))) return true;
    if (!child.children_.empty() && child.SharesMemberWith(*it)) return true;
  }
  return false;
}

Result<FieldSet> FieldSet::FromFieldsV1(const json& fields) {
  FieldSet out;
  if (fields.is_null()) return out;
  Status st = ParseInto(fields, &out);
  if (!st.ok()) return st;
  out.member_ = false;
  return out;
}

std::string PathString(const Path& path) {
  std::string out;
  for (const std::string& pe : path) {
    const std::string body = pe.size() >= 2 ? pe.substr(2) : "";
    switch (pe.empty() ? '?' : pe[0]) {
      case 'f':
        out += "." + body;
        break;
      case 'k': {
        json k = json::parse(body, nullptr, false);
        out += "[";
        bool first = true;
        if (k.is_object()) {
          for (const auto& [name, v] : k.items()) {
            if (!first) out += ",";
            first = false;
            out += name + "=" + ValueText(v);
          }
        }
        out += "]";
        break;
      }
      case 'v': {
        json v = json::parse(body, nullptr, false);
        out += "[=" + (v.is_discarded() ? body : ValueText(v)) + "]";
        break;
      }
      case 'i':
        out += "[" + body + "]";
        break;
      default:
        out += "{{invalid path element}}";
    }
  }
  return out;
}

}  // namespace kmock::fieldmanager
