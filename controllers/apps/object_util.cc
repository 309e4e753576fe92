#include "controllers/apps/object_util.h"

#include "common/json_view.h"

namespace kmock::controllers::apps {

namespace {

const json* At(const json& obj, std::initializer_list<const char*> path) {
  const json* cur = &obj;
  for (const char* p : path) {
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(p);
    if (it == cur->end()) return nullptr;
    cur = &*it;
  }
  return cur;
}

const json* ReadyCondition(const json& pod) {
  const json* conds = At(pod, {"status", "conditions"});
  if (conds == nullptr || !conds->is_array()) return nullptr;
  for (const auto& c : *conds) {
    if (!c.is_object()) continue;
    auto t = c.find("type");
    if (t != c.end() && t->is_string() &&
        t->get_ref<const std::string&>() == "Ready")
      return &c;
  }
  return nullptr;
}

}  // namespace

int64_t IntAt(const json& obj, std::initializer_list<const char*> path,
              int64_t def) {
  const json* v = At(obj, path);
  if (v == nullptr || !v->is_number()) return def;
  return v->get<int64_t>();
}

std::string StrAt(const json& obj, std::initializer_list<const char*> path) {
  const json* v = At(obj, path);
  if (v == nullptr || !v->is_string()) return "";
  return v->get<std::string>();
}

std::string NameOf(const json& obj) { return StrAt(obj, {"metadata", "name"}); }
std::string NamespaceOf(const json& obj) {
  return StrAt(obj, {"metadata", "namespace"});
}
std::string UidOf(const json& obj) { return StrAt(obj, {"metadata", "uid"}); }

Status RequireUnchangedSince(const json& current, const std::string& view_rv,
                             const std::string& resource) {
  if (view_rv.empty() ||
      StrAt(current, {"metadata", "resourceVersion"}) == view_rv) {
    return Status::Ok();
  }
  return Status(StatusCode::kConflict,
                "Operation cannot be fulfilled on " + resource + " \"" +
                    NameOf(current) +
                    "\": the object has been modified; please apply your "
                    "changes to the latest version and try again");
}

bool IsBeingDeleted(const json& obj) {
  const json* v = At(obj, {"metadata", "deletionTimestamp"});
  return v != nullptr && !v->is_null();
}

TimePoint CreationTime(const json& obj) {
  TimePoint t{};
  std::string s = StrAt(obj, {"metadata", "creationTimestamp"});
  if (s.empty() || !ParseRfc3339(s, &t)) return TimePoint{};
  return t;
}

const json* ControllerRefOf(const json& obj) {
  const json* refs = At(obj, {"metadata", "ownerReferences"});
  if (refs == nullptr || !refs->is_array()) return nullptr;
  for (const auto& r : *refs) {
    if (!r.is_object()) continue;
    auto c = r.find("controller");
    if (c != r.end() && c->is_boolean() && c->get<bool>()) return &r;
  }
  return nullptr;
}

json MakeControllerRef(const json& owner, const std::string& api_version,
                       const std::string& kind) {
  return {{"apiVersion", api_version}, {"kind", kind},
          {"name", NameOf(owner)},     {"uid", UidOf(owner)},
          {"controller", true},        {"blockOwnerDeletion", true}};
}

json SelectorJsonOf(const json& owner) {
  const json& selector = ValueAt(ObjectAt(owner, "spec"), "selector");
  if (StringAt(owner, "kind") == "ReplicationController") {
    return selector.is_object() ? json{{"matchLabels", selector}} : json();
  }
  return selector;
}

Status AddControllerRef(json* obj, const json& ref) {
  if (IsBeingDeleted(*obj) || ControllerRefOf(*obj) != nullptr) {
    return Status(StatusCode::kConflict, "the object changed owner");
  }
  json& refs = (*obj)["metadata"]["ownerReferences"];
  if (!refs.is_array()) refs = json::array();
  refs.push_back(ref);
  return Status::Ok();
}

void DropOwnerRef(json* obj, const std::string& uid) {
  json& md = (*obj)["metadata"];
  json kept = json::array();
  for (const auto& r : ArrayAt(md, "ownerReferences")) {
    if (r.value("uid", "") != uid) kept.push_back(r);
  }
  if (kept.empty()) {
    md.erase("ownerReferences");
  } else {
    md["ownerReferences"] = kept;
  }
}

bool IsPodActive(const json& pod) {
  const json* phase = At(pod, {"status", "phase"});
  if (phase != nullptr && phase->is_string()) {
    const auto& p = phase->get_ref<const std::string&>();
    if (p == "Succeeded" || p == "Failed") return false;
  }
  return !IsBeingDeleted(pod);
}

bool IsPodReady(const json& pod) {
  const json* c = ReadyCondition(pod);
  if (c == nullptr) return false;
  auto s = c->find("status");
  return s != c->end() && s->is_string() &&
         s->get_ref<const std::string&>() == "True";
}

std::optional<TimePoint> PodReadyTime(const json& pod) {
  if (!IsPodReady(pod)) return std::nullopt;
  const json* c = ReadyCondition(pod);
  TimePoint t{};
  if (!ParseRfc3339(c->value("lastTransitionTime", ""), &t)) {
    return std::nullopt;
  }
  return t;
}

bool IsPodAvailable(const json& pod, int64_t min_ready_seconds, TimePoint now) {
  if (!IsPodReady(pod)) return false;
  if (min_ready_seconds <= 0) return true;
  auto since = PodReadyTime(pod);
  if (!since) return false;
  return *since + std::chrono::seconds(min_ready_seconds) < now;
}

std::optional<std::string> ControllerOwnerKey(
    const json& obj, const std::string& kind,
    const std::function<std::shared_ptr<const json>(const std::string&)>&
        lookup,
    const std::string& group) {
  auto ref = ControllerRefOf(obj);
  const std::string api_version = ref ? ref->value("apiVersion", "") : "";
  if (!ref || ref->value("kind", "") != kind ||
      (group.empty() ? api_version != "v1"
                     : api_version.rfind(group + "/", 0) != 0))
    return std::nullopt;
  std::string key = NamespaceOf(obj) + "/" + ref->value("name", "");
  auto owner = lookup(key);
  if (!owner || UidOf(*owner) != ref->value("uid", "")) return std::nullopt;
  return key;
}

}  // namespace kmock::controllers::apps
