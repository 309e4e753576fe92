#include "controllers/lifecycle/stage.h"

#include <cmath>
#include <string_view>

#include "common/json_view.h"

namespace kmock::controllers::lifecycle {

using nlohmann::json;

namespace {

constexpr struct {
  Action action;
  const char* name;
} kActions[] = {
    {Action::kCreateSandbox, "CreateSandbox"},
    {Action::kPullImage, "PullImage"},
    {Action::kImagePulled, "ImagePulled"},
    {Action::kCreateContainer, "CreateContainer"},
    {Action::kStartContainer, "StartContainer"},
    {Action::kCompleteInit, "CompleteInit"},
    {Action::kPullBackOff, "PullBackOff"},
    {Action::kRetryPull, "RetryPull"},
    {Action::kRestartContainer, "RestartContainer"},
    {Action::kMarkReady, "MarkReady"},
    {Action::kKill, "Kill"},
    {Action::kDelete, "Delete"},
};

// Finds a dotted path under root; null if any part is missing or null.
const json* LookupIn(const json* root, std::string_view path) {
  const json* cur = root;
  while (cur != nullptr && !path.empty()) {
    size_t dot = path.find('.');
    std::string_view part = path.substr(0, dot);
    path = dot == std::string_view::npos ? std::string_view()
                                         : path.substr(dot + 1);
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(part);
    if (it == cur->end()) return nullptr;
    cur = &*it;
  }
  return cur == nullptr || cur->is_null() ? nullptr : cur;
}

// The value of a runtime ("runtime.x") or container ("container.x") field
// the default stages read, straight from the record, as ToJson writes it
// (absent when ToJson leaves it out); false for a field not covered here.
bool FromRecord(const View& view, bool container, std::string_view field,
                const json** out) {
  *out = nullptr;
  json& v = view.scratch;
  if (!container) {
    const PodRuntime& rt = *view.rt;
    bool flag;
    if (field == "sandbox") {
      flag = rt.sandbox;
    } else if (field == "ready") {
      flag = rt.ready;
    } else if (field == "killed") {
      flag = rt.killed;
    } else {
      return false;
    }
    if (flag) *out = &(v = true);
    return true;
  }
  const ContainerRuntime& c = view.rt->containers[view.container];
  if (field == "step") {
    *out = &(v = StepName(c.step));
  } else if (field == "waitingReason") {
    if (!c.waiting_reason.empty()) *out = &(v = c.waiting_reason);
  } else if (field == "pullReason") {
    if (!c.pull_error.empty()) *out = &(v = c.pull_reason);
  } else if (field == "retryInMs") {
    if (c.retry_in_ms) *out = &(v = c.retry_in_ms);
  } else {
    return false;
  }
  return true;
}

// A dotted path of the view: its first part names the pod, the runtime or
// the current container.
const json* Lookup(const View& view, std::string_view path) {
  size_t dot = path.find('.');
  std::string_view head = path.substr(0, dot);
  std::string_view rest =
      dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
  if (head == "pod") return LookupIn(view.pod, rest);
  const bool container = head == "container";
  if (!container && head != "runtime") return nullptr;
  const bool has_container =
      view.container >= 0 &&
      (view.rt == nullptr ||
       static_cast<size_t>(view.container) < view.rt->containers.size());
  if (container && !has_container) return nullptr;
  if (container && rest.empty()) return &(view.scratch = json::object());
  if (view.rt != nullptr && !rest.empty() &&
      rest.find('.') == std::string_view::npos) {
    const json* v = nullptr;
    if (FromRecord(view, container, rest, &v)) return v;
  }
  if (view.rt != nullptr && !view.runtime_made) {
    view.runtime = ToJson(*view.rt);
    view.runtime_made = true;
  }
  const json* root = &view.runtime;
  if (container) {
    auto cs = view.runtime.find("containers");
    if (cs == view.runtime.end() || !cs->is_array() ||
        static_cast<size_t>(view.container) >= cs->size())
      return nullptr;
    root = &(*cs)[view.container];
  }
  return LookupIn(root, rest);
}

std::string AsString(const json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

Requirement Req(std::string path, std::string op,
                std::vector<std::string> values = {}) {
  return Requirement{std::move(path), std::move(op), std::move(values)};
}

}  // namespace

const char* ActionName(Action a) {
  for (const auto& e : kActions) {
    if (e.action == a) return e.name;
  }
  return "";
}

bool ParseAction(const std::string& name, Action* out) {
  for (const auto& e : kActions) {
    if (name == e.name) {
      *out = e.action;
      return true;
    }
  }
  return false;
}

View BuildView(const json& pod, const PodRuntime& rt) {
  View view;
  view.pod = &pod;
  view.rt = &rt;
  view.container = rt.CurrentContainer();
  return view;
}

bool Matches(const Requirement& r, const View& view) {
  const json* v = Lookup(view, r.path);
  if (r.op == "Exists") return v != nullptr;
  if (r.op == "DoesNotExist") return v == nullptr;
  bool in = false;
  if (v != nullptr) {
    std::string s = AsString(*v);
    for (const auto& want : r.values) {
      if (s == want) in = true;
    }
  }
  if (r.op == "In") return in;
  if (r.op == "NotIn") return !in;
  return false;
}

const Stage* MatchStage(const std::vector<Stage>& stages, const View& view) {
  for (const auto& s : stages) {
    bool all = true;
    for (const auto& r : s.selector) {
      if (!Matches(r, view)) {
        all = false;
        break;
      }
    }
    if (all) return &s;
  }
  return nullptr;
}

std::chrono::milliseconds StageDelay(const Stage& s, Rng* rng) {
  auto base = s.delay.count();
  if (base <= 0) return std::chrono::milliseconds(0);
  if (rng == nullptr || s.jitter <= 0) return s.delay;
  long long spread = std::llround(static_cast<double>(base) * s.jitter);
  if (spread <= 0) return s.delay;
  long long offset =
      static_cast<long long>(rng->Uniform(2 * spread + 1)) - spread;
  return std::chrono::milliseconds(std::max(0LL, base + offset));
}

std::chrono::milliseconds StageDelay(const Stage& s, const View& view,
                                     Rng* rng) {
  if (!s.delay_from.empty()) {
    const json* v = Lookup(view, s.delay_from);
    int64_t ms = v != nullptr && v->is_number_integer() ? v->get<int64_t>() : 0;
    return std::chrono::milliseconds(std::max<int64_t>(0, ms));
  }
  return StageDelay(s, rng);
}

std::vector<Stage> DefaultStages(const StagePacing& p) {
  const std::string kNotDeleting = "pod.metadata.deletionTimestamp";
  std::vector<Stage> s = {
      {"pod-remove",
       {Req("runtime.killed", "In", {"true"})},
       p.remove,
       0,
       Action::kDelete,
       ""},
      {"pod-kill",
       {Req(kNotDeleting, "Exists"), Req("runtime.killed", "DoesNotExist")},
       p.kill,
       0,
       Action::kKill,
       ""},
      {"pod-sandbox",
       {Req(kNotDeleting, "DoesNotExist"),
        Req("runtime.sandbox", "DoesNotExist")},
       p.sandbox,
       0,
       Action::kCreateSandbox,
       ""},
      // A container whose configuration could not be made: the pod
      // worker's next try, from the image on.
      {"container-config-retry",
       {Req(kNotDeleting, "DoesNotExist"),
        Req("container.step", "In", {"Waiting"}),
        Req("container.waitingReason", "In", {"CreateContainerConfigError"})},
       std::chrono::milliseconds(0),
       0,
       Action::kPullImage,
       "container.retryInMs"},
      {"image-pull",
       {Req(kNotDeleting, "DoesNotExist"),
        Req("container.step", "In", {"Waiting"}),
        Req("container.waitingReason", "NotIn",
            {"CreateContainerConfigError"})},
       std::chrono::milliseconds(0),
       0,
       Action::kPullImage,
       ""},
      {"image-pulled",
       {Req(kNotDeleting, "DoesNotExist"),
        Req("container.step", "In", {"Pulling"})},
       p.pull,
       0,
       Action::kImagePulled,
       ""},
      {"container-create",
       {Req(kNotDeleting, "DoesNotExist"),
        Req("container.step", "In", {"Pulled"})},
       p.create,
       0,
       Action::kCreateContainer,
       ""},
      {"container-start",
       {Req(kNotDeleting, "DoesNotExist"),
        Req("container.step", "In", {"Created"})},
       p.start,
       0,
       Action::kStartContainer,
       ""},
      {"image-pull-backoff",
       {Req(kNotDeleting, "DoesNotExist"),
        Req("container.step", "In", {"PullFailed"}),
        Req("container.pullReason", "In", {"ErrImagePull"})},
       kResyncDelay,
       0,
       Action::kPullBackOff,
       ""},
      {"image-pull-retry",
       {Req(kNotDeleting, "DoesNotExist"),
        Req("container.step", "In", {"PullBackOff"})},
       std::chrono::milliseconds(0),
       0,
       Action::kRetryPull,
       "container.retryInMs"},
      {"container-restart",
       {Req(kNotDeleting, "DoesNotExist"),
        Req("container.step", "In", {"Terminated"})},
       kResyncDelay,
       0,
       Action::kRestartContainer,
       ""},
      {"container-backoff-over",
       {Req(kNotDeleting, "DoesNotExist"),
        Req("container.step", "In", {"BackOff"})},
       std::chrono::milliseconds(0),
       0,
       Action::kRestartContainer,
       "container.retryInMs"},
      {"pod-ready",
       {Req(kNotDeleting, "DoesNotExist"),
        Req("runtime.sandbox", "In", {"true"}),
        Req("container", "DoesNotExist"), Req("runtime.ready", "DoesNotExist")},
       p.ready,
       0,
       Action::kMarkReady,
       ""},
  };
  for (auto& st : s) {
    // Back-off waits are the kubelet's own, not the classroom's pace.
    if (st.delay_from.empty() && st.delay != kResyncDelay) st.jitter = p.jitter;
  }
  return s;
}

Result<std::vector<Stage>> ParseStages(const json& j) {
  if (!j.is_array()) {
    return Status(StatusCode::kInvalid, "stages: expected a list");
  }
  std::vector<Stage> out;
  for (size_t i = 0; i < j.size(); ++i) {
    const json& e = j[i];
    std::string where = "stages[" + std::to_string(i) + "]";
    if (!e.is_object()) {
      return Status(StatusCode::kInvalid, where + ": expected an object");
    }
    Stage s;
    s.name = e.value("name", "");
    if (s.name.empty()) {
      return Status(StatusCode::kInvalid, where + ".name: required");
    }
    if (!ParseAction(e.value("action", ""), &s.action)) {
      return Status(StatusCode::kInvalid, where + ".action: unknown action \"" +
                                              e.value("action", "") + "\"");
    }
    if (e.contains("delayMs")) {
      if (!e["delayMs"].is_number_integer() ||
          e["delayMs"].get<int64_t>() < 0) {
        return Status(StatusCode::kInvalid,
                      where + ".delayMs: must be a non-negative integer");
      }
      s.delay = std::chrono::milliseconds(e["delayMs"].get<int64_t>());
    }
    if (e.contains("delayFrom")) {
      if (!e["delayFrom"].is_string()) {
        return Status(StatusCode::kInvalid,
                      where + ".delayFrom: must be a path of the view");
      }
      s.delay_from = e["delayFrom"].get<std::string>();
    }
    if (e.contains("jitter")) {
      if (!e["jitter"].is_number() || e["jitter"].get<double>() < 0) {
        return Status(StatusCode::kInvalid,
                      where + ".jitter: must be a non-negative number");
      }
      s.jitter = e["jitter"].get<double>();
    }
    const json& sel = ArrayAt(e, "selector");
    for (size_t k = 0; k < sel.size(); ++k) {
      Requirement r;
      r.path = sel[k].value("path", "");
      r.op = sel[k].value("op", "");
      if (r.path.empty() || (r.op != "Exists" && r.op != "DoesNotExist" &&
                             r.op != "In" && r.op != "NotIn")) {
        return Status(
            StatusCode::kInvalid,
            where + ".selector[" + std::to_string(k) +
                "]: needs a path and op Exists, DoesNotExist, In or NotIn");
      }
      for (const auto& v : ArrayAt(sel[k], "values")) {
        r.values.push_back(v.is_string() ? v.get<std::string>() : v.dump());
      }
      s.selector.push_back(std::move(r));
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace kmock::controllers::lifecycle
