#include "controllers/lifecycle/engine.h"

#include <cstdio>
#include <map>

#include "common/json_view.h"

namespace kmock::controllers::lifecycle {

using nlohmann::json;

namespace {

std::string FieldPath(const ContainerRuntime& c) {
  return std::string(c.init ? "spec.initContainers{" : "spec.containers{") +
         c.name + "}";
}

EventSpec Normal(const ContainerRuntime& c, std::string reason,
                 std::string message) {
  return EventSpec{"Normal", std::move(reason), std::move(message),
                   FieldPath(c)};
}

std::string Quoted(const std::string& s) { return "\"" + s + "\""; }

// The spec entry of a container by name, from containers or initContainers.
const json* SpecContainer(const json& pod, const ContainerRuntime& c) {
  auto spec = pod.find("spec");
  if (spec == pod.end() || !spec->is_object()) return nullptr;
  auto list = spec->find(c.init ? "initContainers" : "containers");
  if (list == spec->end() || !list->is_array()) return nullptr;
  for (const auto& sc : *list) {
    if (sc.is_object() && sc.value("name", "") == c.name) return &sc;
  }
  return nullptr;
}

json ContainerStatus(const json& pod, const ContainerRuntime& c,
                     bool init_pending) {
  json s = json::object();
  s["name"] = c.name;
  json state = json::object();
  bool created = c.step == Step::kCreated || c.step == Step::kRunning ||
                 c.step == Step::kTerminated;
  switch (c.step) {
    case Step::kRunning:
      state["running"] = {{"startedAt", FormatRfc3339(c.started_at)}};
      break;
    case Step::kTerminated: {
      json t = {{"containerID", c.container_id},
                {"exitCode", c.exit_code},
                {"reason", c.reason},
                {"finishedAt", FormatRfc3339(c.finished_at)}};
      if (c.started_at != TimePoint{}) {
        t["startedAt"] = FormatRfc3339(c.started_at);
      }
      state["terminated"] = std::move(t);
      break;
    }
    default:
      state["waiting"] = {{"reason", (!c.init && init_pending) || c.init
                                         ? "PodInitializing"
                                         : "ContainerCreating"}};
      break;
  }
  s["state"] = std::move(state);
  s["lastState"] = json::object();
  s["ready"] = c.ready;
  s["restartCount"] = 0;
  s["image"] = created ? c.image_ref : c.image;
  s["imageID"] = created ? c.image_id : "";
  if (created) s["containerID"] = c.container_id;
  s["started"] = c.step == Step::kRunning;
  if (const json* sc = SpecContainer(pod, c)) {
    json mounts = json::array();
    for (const auto& m : ArrayAt(*sc, "volumeMounts")) {
      json vm = {{"name", m.value("name", "")},
                 {"mountPath", m.value("mountPath", "")}};
      if (m.value("readOnly", false)) {
        vm["readOnly"] = true;
        vm["recursiveReadOnly"] = "Disabled";
      }
      mounts.push_back(std::move(vm));
    }
    if (!mounts.empty() && created) s["volumeMounts"] = std::move(mounts);
  }
  return s;
}

struct Cond {
  std::string type, status, reason, message;
};

std::string NameList(const std::vector<std::string>& names) {
  std::string out = "[";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out += " ";
    out += names[i];
  }
  return out + "]";
}

}  // namespace

std::string GoDurationMs(int64_t ms) {
  if (ms == 0) return "0s";
  char buf[64];
  if (ms < 1000) {
    std::snprintf(buf, sizeof(buf), "%lldms", static_cast<long long>(ms));
    return buf;
  }
  long long total = ms;
  long long h = total / 3600000;
  total %= 3600000;
  long long m = total / 60000;
  total %= 60000;
  long long s = total / 1000;
  long long frac = total % 1000;
  std::string sec = std::to_string(s);
  if (frac != 0) {
    char f[8];
    std::snprintf(f, sizeof(f), "%03lld", frac);
    std::string fs = f;
    while (!fs.empty() && fs.back() == '0') fs.pop_back();
    sec += "." + fs;
  }
  std::string out;
  if (h) out += std::to_string(h) + "h";
  if (h || m) out += std::to_string(m) + "m";
  return out + sec + "s";
}

std::vector<EventSpec> Apply(Action action, PodRuntime* rt, TimePoint now) {
  std::vector<EventSpec> events;
  int cur = rt->CurrentContainer();
  ContainerRuntime* c = cur >= 0 ? &rt->containers[cur] : nullptr;
  switch (action) {
    case Action::kCreateSandbox:
      rt->sandbox = true;
      if (rt->start_time == TimePoint{}) rt->start_time = now;
      break;
    case Action::kPullImage:
      if (c == nullptr || c->step != Step::kWaiting) break;
      if (c->image_present && c->pull_policy != "Always") {
        events.push_back(Normal(*c, "Pulled",
                                "Container image " + Quoted(c->image) +
                                    " already present on machine"));
        c->step = Step::kPulled;
      } else {
        events.push_back(
            Normal(*c, "Pulling", "Pulling image " + Quoted(c->image)));
        c->step = Step::kPulling;
      }
      break;
    case Action::kImagePulled: {
      if (c == nullptr || c->step != Step::kPulling) break;
      std::string d = GoDurationMs(c->pull_ms);
      events.push_back(Normal(*c, "Pulled",
                              "Successfully pulled image " + Quoted(c->image) +
                                  " in " + d + " (" + d +
                                  " including waiting). Image size: " +
                                  std::to_string(c->image_size) + " bytes."));
      c->step = Step::kPulled;
      c->image_present = true;
      break;
    }
    case Action::kCreateContainer:
      if (c == nullptr || c->step != Step::kPulled) break;
      events.push_back(Normal(*c, "Created", "Created container: " + c->name));
      c->step = Step::kCreated;
      break;
    case Action::kStartContainer:
      if (c == nullptr || c->step != Step::kCreated) break;
      events.push_back(Normal(*c, "Started", "Started container " + c->name));
      c->step = Step::kRunning;
      c->started_at = now;
      break;
    case Action::kCompleteInit:
      if (c == nullptr || !c->init || c->step != Step::kRunning) break;
      c->step = Step::kTerminated;
      c->exit_code = 0;
      c->reason = "Completed";
      c->finished_at = now;
      c->ready = true;
      break;
    case Action::kMarkReady:
      for (auto& x : rt->containers) {
        if (!x.init && x.step == Step::kRunning) x.ready = true;
      }
      rt->ready = true;
      break;
    case Action::kKill:
      for (auto& x : rt->containers) {
        if (x.step != Step::kRunning) continue;
        events.push_back(Normal(x, "Killing", "Stopping container " + x.name));
        x.step = Step::kTerminated;
        x.exit_code = 0;
        x.reason = "Completed";
        x.finished_at = now;
        x.ready = false;
      }
      rt->killed = true;
      break;
    case Action::kDelete:
      break;
  }
  return events;
}

json RenderStatus(const json& pod, const PodRuntime& rt, TimePoint now) {
  const json& old_status = ObjectAt(pod, "status");
  if (!rt.sandbox) {
    json status = old_status.is_object() ? old_status : json::object();
    if (!status.contains("phase")) status["phase"] = "Pending";
    return status;
  }
  // The stored status, but for the lists rendered below (not copied only
  // to be replaced).
  json status = json::object();
  if (old_status.is_object()) {
    for (auto it = old_status.begin(); it != old_status.end(); ++it) {
      if (it.key() != "conditions" && it.key() != "containerStatuses")
        status.emplace(it.key(), *it);
    }
  }
  std::string now_s = FormatRfc3339(now);

  std::vector<std::string> init_incomplete, unready;
  bool any_running = false, all_succeeded = true;
  bool any_app = false;
  json init_statuses = json::array(), statuses = json::array();
  for (const auto& c : rt.containers) {
    if (c.init && c.step != Step::kTerminated)
      init_incomplete.push_back(c.name);
  }
  for (const auto& c : rt.containers) {
    json cs = ContainerStatus(pod, c, !init_incomplete.empty());
    if (c.init) {
      init_statuses.push_back(std::move(cs));
      continue;
    }
    any_app = true;
    statuses.push_back(std::move(cs));
    if (!c.ready) unready.push_back(c.name);
    if (c.step == Step::kRunning) any_running = true;
    if (c.step != Step::kTerminated || c.exit_code != 0) all_succeeded = false;
  }

  std::vector<Cond> conds;
  conds.push_back(
      {"PodReadyToStartContainers", rt.killed ? "False" : "True", "", ""});
  if (init_incomplete.empty()) {
    conds.push_back({"Initialized", "True", "", ""});
  } else {
    conds.push_back(
        {"Initialized", "False", "ContainersNotInitialized",
         "containers with incomplete status: " + NameList(init_incomplete)});
  }
  if (unready.empty() && any_app) {
    conds.push_back({"Ready", "True", "", ""});
    conds.push_back({"ContainersReady", "True", "", ""});
  } else {
    std::string msg = "containers with unready status: " + NameList(unready);
    conds.push_back({"Ready", "False", "ContainersNotReady", msg});
    conds.push_back({"ContainersReady", "False", "ContainersNotReady", msg});
  }

  std::map<std::string, const json*> existing;
  for (const auto& c : ArrayAt(old_status, "conditions")) {
    existing[c.value("type", "")] = &c;
  }
  json out_conds = json::array();
  for (const auto& c : conds) {
    json cj = {
        {"type", c.type}, {"status", c.status}, {"lastProbeTime", nullptr}};
    auto it = existing.find(c.type);
    cj["lastTransitionTime"] =
        (it != existing.end() && it->second->value("status", "") == c.status &&
         it->second->contains("lastTransitionTime"))
            ? (*it->second)["lastTransitionTime"]
            : json(now_s);
    if (!c.reason.empty()) cj["reason"] = c.reason;
    if (!c.message.empty()) cj["message"] = c.message;
    out_conds.push_back(std::move(cj));
  }
  auto sched = existing.find("PodScheduled");
  if (sched != existing.end()) {
    out_conds.push_back(*sched->second);
  } else {
    out_conds.push_back({{"type", "PodScheduled"},
                         {"status", "True"},
                         {"lastProbeTime", nullptr},
                         {"lastTransitionTime", now_s}});
  }
  status["conditions"] = std::move(out_conds);

  if (rt.killed) {
    status["phase"] = all_succeeded && any_app ? "Succeeded" : "Failed";
  } else if (init_incomplete.empty() && any_running) {
    status["phase"] = "Running";
  } else {
    status["phase"] = "Pending";
  }
  if (!rt.host_ip.empty()) {
    status["hostIP"] = rt.host_ip;
    status["hostIPs"] = json::array({{{"ip", rt.host_ip}}});
  }
  if (!rt.pod_ip.empty()) {
    status["podIP"] = rt.pod_ip;
    status["podIPs"] = json::array({{{"ip", rt.pod_ip}}});
  }
  status["startTime"] = FormatRfc3339(rt.start_time);
  if (!init_statuses.empty())
    status["initContainerStatuses"] = std::move(init_statuses);
  status["containerStatuses"] = std::move(statuses);
  return status;
}

}  // namespace kmock::controllers::lifecycle
