#include "controllers/lifecycle/engine.h"

#include <algorithm>
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
}  // namespace

EventSpec Normal(const ContainerRuntime& c, std::string reason,
                 std::string message) {
  return EventSpec{"Normal", std::move(reason), std::move(message),
                   FieldPath(c)};
}

EventSpec Warning(const ContainerRuntime& c, std::string reason,
                  std::string message) {
  return EventSpec{"Warning", std::move(reason), std::move(message),
                   FieldPath(c)};
}

namespace {

std::string Quoted(const std::string& s) { return "\"" + s + "\""; }

void Wait(ContainerRuntime* c, Step step, std::string reason,
          std::string message) {
  c->step = step;
  c->waiting_reason = std::move(reason);
  c->waiting_message = std::move(message);
  c->ready = false;
}

// flowcontrol.Backoff.Next as the kubelet runs it: 10 s, doubling to
// 5 min, starting over when the last failure is 10 min old.
void NextBackoff(int64_t* ms, TimePoint* updated, TimePoint event,
                 TimePoint now) {
  bool expired = *ms == 0 || event - *updated >
                                 2 * std::chrono::milliseconds(kBackoffMaxMs);
  *ms = expired ? kBackoffInitialMs : std::min(*ms * 2, kBackoffMaxMs);
  *updated = now;
}

int64_t RemainingMs(TimePoint from, int64_t ms, TimePoint now) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      from + std::chrono::milliseconds(ms) - now);
  return std::max<int64_t>(0, left.count());
}

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

json Terminated(const std::string& container_id, int exit_code,
                const std::string& reason, const std::string& message,
                TimePoint started_at, TimePoint finished_at) {
  json t = {{"exitCode", exit_code},
            {"reason", reason},
            {"finishedAt", FormatRfc3339(finished_at)}};
  if (!container_id.empty()) t["containerID"] = container_id;
  if (!message.empty()) t["message"] = message;
  t["startedAt"] = FormatRfc3339(started_at);
  return t;
}

json ContainerStatus(const json& pod, const ContainerRuntime& c,
                     bool init_pending) {
  json s = json::object();
  s["name"] = c.name;
  json state = json::object();
  bool created = c.step == Step::kCreated || c.step == Step::kRunning ||
                 c.step == Step::kTerminated || c.step == Step::kBackOff;
  switch (c.step) {
    case Step::kRunning:
      state["running"] = {{"startedAt", FormatRfc3339(c.started_at)}};
      break;
    case Step::kTerminated:
      state["terminated"] = Terminated(c.container_id, c.exit_code, c.reason,
                                       c.message, c.started_at, c.finished_at);
      break;
    default: {
      json w = json::object();
      if (!c.waiting_reason.empty()) {
        w["reason"] = c.waiting_reason;
        if (!c.waiting_message.empty()) w["message"] = c.waiting_message;
      } else {
        w["reason"] = (!c.init && init_pending) || c.init ? "PodInitializing"
                                                          : "ContainerCreating";
      }
      state["waiting"] = std::move(w);
      break;
    }
  }
  s["state"] = std::move(state);
  s["lastState"] = json::object();
  if (c.last) {
    s["lastState"]["terminated"] =
        Terminated(c.last->container_id, c.last->exit_code, c.last->reason,
                   c.last->message, c.last->started_at, c.last->finished_at);
  }
  s["ready"] = c.ready;
  s["restartCount"] = c.restart_count;
  s["image"] = created || c.last ? c.image_ref : c.image;
  s["imageID"] = created || c.last ? c.image_id : "";
  if (c.step == Step::kBackOff && c.last) {
    s["containerID"] = c.last->container_id;
  } else if (created && !c.container_id.empty()) {
    s["containerID"] = c.container_id;
  }
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
    if (!mounts.empty() && (created || c.last))
      s["volumeMounts"] = std::move(mounts);
  }
  return s;
}

// The pod's phase as the kubelet computes it from its containers.
std::string PodPhase(const json& pod, const PodRuntime& rt) {
  std::string policy = ObjectAt(pod, "spec").value("restartPolicy", "Always");
  bool pending_init = false;
  for (const auto& c : rt.containers) {
    if (!c.init || c.sidecar) continue;
    if (c.step == Step::kTerminated && c.exit_code == 0) continue;
    if (c.step == Step::kTerminated && !c.WillRestart()) return "Failed";
    pending_init = true;
  }
  if (pending_init) return "Pending";
  int running = 0, waiting = 0, stopped = 0, succeeded = 0;
  for (const auto& c : rt.containers) {
    if (c.init) continue;
    if (c.step == Step::kRunning) {
      ++running;
    } else if (c.step == Step::kTerminated) {
      ++stopped;
      if (c.exit_code == 0) ++succeeded;
    } else if (c.last) {
      ++stopped;
    } else {
      ++waiting;
    }
  }
  if (waiting > 0) return "Pending";
  if (running > 0) return "Running";
  if (stopped > 0) {
    if (policy == "Always") return "Running";
    if (stopped == succeeded) return "Succeeded";
    if (policy == "Never") return "Failed";
    return "Running";
  }
  return "Pending";
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
      if (c->pull_reason == "InvalidImageName") {
        std::string msg = "Failed to apply default image tag " +
                          Quoted(c->image) + ": " + c->pull_error;
        events.push_back(Warning(*c, "InspectFailed", msg));
        events.push_back(Warning(*c, "Failed", "Error: InvalidImageName"));
        Wait(c, Step::kPullFailed, "InvalidImageName", msg);
        break;
      }
      if (c->pull_policy == "Never" && !c->image_present) {
        std::string msg = "Container image " + Quoted(c->image) +
                          " is not present with pull policy of Never";
        events.push_back(Warning(*c, "ErrImageNeverPull", msg));
        events.push_back(Warning(*c, "Failed", "Error: ErrImageNeverPull"));
        c->pull_reason = "ErrImageNeverPull";
        Wait(c, Step::kPullFailed, "ErrImageNeverPull", msg);
        break;
      }
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
      if (!c->pull_error.empty()) {
        events.push_back(Warning(
            *c, "Failed",
            "Failed to pull image " + Quoted(c->image) + ": " + c->pull_error));
        events.push_back(Warning(*c, "Failed", "Error: ErrImagePull"));
        Wait(c, Step::kPullFailed, "ErrImagePull", c->pull_error);
        NextBackoff(&c->pull_backoff_ms, &c->pull_backoff_updated, now, now);
        break;
      }
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
      if (!c->config_error.empty()) {
        // The pod worker tries again after its back-off period, from the
        // image on.
        events.push_back(Warning(*c, "Failed", "Error: " + c->config_error));
        Wait(c, Step::kWaiting, "CreateContainerConfigError", c->config_error);
        c->retry_in_ms = kConfigRetryMs;
        break;
      }
      c->waiting_reason.clear();
      c->waiting_message.clear();
      events.push_back(Normal(*c, "Created", "Created container: " + c->name));
      c->step = Step::kCreated;
      break;
    case Action::kStartContainer:
      if (c == nullptr || c->step != Step::kCreated) break;
      c->waiting_reason.clear();
      c->waiting_message.clear();
      if (!c->start_error.empty()) {
        events.push_back(Warning(*c, "Failed", "Error: " + c->start_error));
        c->step = Step::kTerminated;
        c->exit_code = 128;
        c->reason = "StartError";
        c->message = c->start_error;
        c->started_at = TimePoint{};
        c->finished_at = now;
        break;
      }
      events.push_back(Normal(*c, "Started", "Started container " + c->name));
      c->step = Step::kRunning;
      c->started_at = now;
      // Without a readiness probe a container is ready once the pod is;
      // with one, when the probe says so (probes.h).
      if (!c->init && rt->ready && !c->probed) c->ready = true;
      break;
    case Action::kPullBackOff:
      if (c == nullptr || c->step != Step::kPullFailed) break;
      events.push_back(
          Normal(*c, "BackOff", "Back-off pulling image " + Quoted(c->image)));
      events.push_back(Warning(*c, "Failed", "Error: ImagePullBackOff"));
      Wait(c, Step::kPullBackOff, "ImagePullBackOff",
           "Back-off pulling image " + Quoted(c->image) +
               ": ErrImagePull: " + c->pull_error);
      c->retry_in_ms =
          RemainingMs(c->pull_backoff_updated, c->pull_backoff_ms, now);
      break;
    case Action::kRetryPull:
      if (c == nullptr || c->step != Step::kPullBackOff) break;
      c->step = Step::kWaiting;  // the waiting reason shows until the result
      c->retry_in_ms = 0;
      break;
    case Action::kRestartContainer: {
      if (c == nullptr ||
          (c->step != Step::kTerminated && c->step != Step::kBackOff))
        break;
      if (c->step == Step::kTerminated) {
        c->last = EndedInstance{c->exit_code,  c->reason,      c->message,
                                c->started_at, c->finished_at, c->container_id};
      }
      TimePoint finished = c->last ? c->last->finished_at : now;
      bool expired = c->backoff_ms == 0 ||
                     finished - c->backoff_updated >
                         2 * std::chrono::milliseconds(kBackoffMaxMs);
      if (!expired &&
          now - finished < std::chrono::milliseconds(c->backoff_ms)) {
        std::string pod = rt->pod_ref;
        events.push_back(Warning(*c, "BackOff",
                                 "Back-off restarting failed container " +
                                     c->name + " in pod " + pod));
        Wait(c, Step::kBackOff, "CrashLoopBackOff",
             "back-off " + GoDurationMs(c->backoff_ms) +
                 " restarting failed container=" + c->name + " pod=" + pod);
        c->retry_in_ms = RemainingMs(finished, c->backoff_ms, now);
        break;
      }
      NextBackoff(&c->backoff_ms, &c->backoff_updated, finished, now);
      ++c->restart_count;
      c->step = Step::kWaiting;
      c->waiting_reason.clear();
      c->waiting_message.clear();
      c->retry_in_ms = 0;
      c->container_id.clear();  // the kubelet gives the new instance its own
      c->pid = 0;
      c->exit_code = 0;
      c->reason.clear();
      c->message.clear();
      c->start_error.clear();
      c->ready = false;
      c->started_at = TimePoint{};
      c->finished_at = TimePoint{};
      c->liveness_probe = c->readiness_probe = c->startup_probe = {};
      c->probes_started = false;
      break;
    }
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
        if (!x.init && x.step == Step::kRunning && !x.probed) x.ready = true;
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
        x.stopped = true;
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
  // Before the sandbox, only a pod held up by its volumes shows its
  // containers (waiting, ContainerCreating).
  if (!rt.sandbox && rt.mount_backoff_ms == 0) {
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
  bool all_succeeded = true;
  bool any_app = false;
  json init_statuses = json::array(), statuses = json::array();
  for (const auto& c : rt.containers) {
    bool done = (c.step == Step::kTerminated && c.exit_code == 0) ||
                (c.sidecar && c.step == Step::kRunning);
    if (c.init && !done) init_incomplete.push_back(c.name);
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
    if (c.step != Step::kTerminated || c.exit_code != 0) all_succeeded = false;
  }

  std::string phase;
  if (rt.killed) {
    phase = all_succeeded && any_app ? "Succeeded" : "Failed";
  } else {
    phase = PodPhase(pod, rt);
  }
  const bool terminal = phase == "Succeeded" || phase == "Failed";
  std::vector<Cond> conds;
  conds.push_back({"PodReadyToStartContainers",
                   !rt.sandbox || rt.killed || terminal ? "False" : "True", "",
                   ""});
  if (init_incomplete.empty()) {
    conds.push_back({"Initialized", "True", "", ""});
  } else {
    conds.push_back(
        {"Initialized", "False", "ContainersNotInitialized",
         "containers with incomplete status: " + NameList(init_incomplete)});
  }
  if (terminal && !rt.killed) {
    conds.push_back({"Ready", "False", "PodCompleted", ""});
    conds.push_back({"ContainersReady", "False", "PodCompleted", ""});
  } else if (unready.empty() && any_app) {
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

  status["phase"] = phase;
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
