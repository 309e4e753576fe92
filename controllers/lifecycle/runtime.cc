#include "controllers/lifecycle/runtime.h"

#include "common/json_view.h"

namespace kmock::controllers::lifecycle {

using nlohmann::json;

namespace {

constexpr const char* kStepNames[] = {"Waiting",    "Pulling",     "Pulled",
                                      "Created",    "Running",     "Terminated",
                                      "PullFailed", "PullBackOff", "BackOff"};
constexpr int kSteps = sizeof(kStepNames) / sizeof(kStepNames[0]);

std::string TimeOrEmpty(TimePoint t) {
  return t == TimePoint{} ? "" : FormatRfc3339(t);
}

bool ReadTime(const json& j, const char* field, TimePoint* out) {
  std::string s = j.value(field, "");
  if (s.empty()) {
    *out = TimePoint{};
    return true;
  }
  return ParseRfc3339(s, out);
}

}  // namespace

const char* StepName(Step s) { return kStepNames[static_cast<int>(s)]; }

bool ParseStep(const std::string& name, Step* out) {
  for (int i = 0; i < kSteps; ++i) {
    if (name == kStepNames[i]) {
      *out = static_cast<Step>(i);
      return true;
    }
  }
  return false;
}

bool ContainerRuntime::WillRestart() const {
  if (step != Step::kTerminated || stopped) return false;
  // An init container that completed is done whatever the policy.
  if (init && !sidecar) return restart_policy != "Never" && exit_code != 0;
  if (restart_policy == "Always") return true;
  return restart_policy == "OnFailure" && exit_code != 0;
}

int PodRuntime::CurrentContainer() const {
  for (size_t i = 0; i < containers.size(); ++i) {
    const auto& c = containers[i];
    if (c.step == Step::kTerminated && !c.WillRestart()) {
      // An init container that failed for good fails the pod: nothing
      // after it starts.
      if (c.init && !c.sidecar && c.exit_code != 0) return -1;
      continue;
    }
    if (c.step == Step::kRunning && (!c.init || c.sidecar)) continue;
    return static_cast<int>(i);
  }
  return -1;
}

bool PodRuntime::Finished() const {
  bool any_app = false;
  for (const auto& c : containers) {
    if (c.init && !c.sidecar) {
      if (c.step == Step::kTerminated && !c.WillRestart() && c.exit_code != 0)
        return true;
      continue;
    }
    if (c.sidecar) continue;
    any_app = true;
    if (c.step != Step::kTerminated || c.WillRestart()) return false;
  }
  return any_app;
}

bool PodRuntime::Succeeded() const {
  if (!Finished()) return false;
  for (const auto& c : containers) {
    if (c.sidecar) continue;
    if (c.step == Step::kTerminated && c.exit_code != 0) return false;
  }
  return true;
}

json ToJson(const PodRuntime& rt) {
  json j = json::object();
  if (rt.sandbox) j["sandbox"] = true;
  if (!rt.host_ip.empty()) j["hostIP"] = rt.host_ip;
  if (!rt.pod_ip.empty()) j["podIP"] = rt.pod_ip;
  if (rt.start_time != TimePoint{})
    j["startTime"] = FormatRfc3339(rt.start_time);
  if (rt.ready) j["ready"] = true;
  if (rt.killed) j["killed"] = true;
  if (!rt.pod_ref.empty()) j["podRef"] = rt.pod_ref;
  j["containers"] = json::array();
  for (const auto& c : rt.containers) {
    json cj = {{"name", c.name},
               {"image", c.image},
               {"imageRef", c.image_ref},
               {"imageID", c.image_id},
               {"imageSize", c.image_size},
               {"pullPolicy", c.pull_policy},
               {"pullMs", c.pull_ms},
               {"containerID", c.container_id},
               {"pid", c.pid},
               {"step", StepName(c.step)}};
    if (c.init) cj["init"] = true;
    if (c.image_present) cj["imagePresent"] = true;
    if (c.started_at != TimePoint{})
      cj["startedAt"] = TimeOrEmpty(c.started_at);
    if (c.finished_at != TimePoint{}) {
      cj["finishedAt"] = TimeOrEmpty(c.finished_at);
    }
    if (c.step == Step::kTerminated) {
      cj["exitCode"] = c.exit_code;
      cj["reason"] = c.reason;
      if (!c.message.empty()) cj["message"] = c.message;
      if (c.WillRestart()) cj["restart"] = true;
    }
    if (c.ready) cj["ready"] = true;
    if (c.restart_policy != "Always") cj["restartPolicy"] = c.restart_policy;
    if (c.sidecar) cj["sidecar"] = true;
    if (c.probed) cj["probed"] = true;
    if (c.stopped) cj["stopped"] = true;
    if (c.restart_count) cj["restartCount"] = c.restart_count;
    if (c.last) {
      cj["last"] = {{"exitCode", c.last->exit_code},
                    {"reason", c.last->reason},
                    {"startedAt", TimeOrEmpty(c.last->started_at)},
                    {"finishedAt", TimeOrEmpty(c.last->finished_at)},
                    {"containerID", c.last->container_id}};
      if (!c.last->message.empty()) cj["last"]["message"] = c.last->message;
    }
    if (!c.waiting_reason.empty()) {
      cj["waitingReason"] = c.waiting_reason;
      cj["waitingMessage"] = c.waiting_message;
    }
    if (!c.pull_error.empty()) {
      cj["pullReason"] = c.pull_reason;
      cj["pullError"] = c.pull_error;
    }
    if (!c.start_error.empty()) cj["startError"] = c.start_error;
    if (c.backoff_ms) {
      cj["backoffMs"] = c.backoff_ms;
      cj["backoffUpdated"] = FormatRfc3339(c.backoff_updated);
    }
    if (c.pull_backoff_ms) {
      cj["pullBackoffMs"] = c.pull_backoff_ms;
      cj["pullBackoffUpdated"] = FormatRfc3339(c.pull_backoff_updated);
    }
    if (c.retry_in_ms) cj["retryInMs"] = c.retry_in_ms;
    j["containers"].push_back(std::move(cj));
  }
  return j;
}

Result<PodRuntime> FromJson(const json& j) {
  PodRuntime rt;
  try {
    rt.sandbox = j.value("sandbox", false);
    rt.host_ip = j.value("hostIP", "");
    rt.pod_ip = j.value("podIP", "");
    rt.ready = j.value("ready", false);
    rt.killed = j.value("killed", false);
    rt.pod_ref = j.value("podRef", "");
    if (!ReadTime(j, "startTime", &rt.start_time)) {
      return Status(StatusCode::kInvalid, "bad startTime");
    }
    for (const auto& cj : ArrayAt(j, "containers")) {
      ContainerRuntime c;
      c.name = cj.value("name", "");
      c.init = cj.value("init", false);
      c.image = cj.value("image", "");
      c.image_ref = cj.value("imageRef", "");
      c.image_id = cj.value("imageID", "");
      c.image_size = cj.value("imageSize", int64_t{0});
      c.image_present = cj.value("imagePresent", false);
      c.pull_policy = cj.value("pullPolicy", "");
      c.pull_ms = cj.value("pullMs", int64_t{0});
      c.container_id = cj.value("containerID", "");
      c.pid = cj.value("pid", int64_t{0});
      if (!ParseStep(cj.value("step", "Waiting"), &c.step)) {
        return Status(StatusCode::kInvalid,
                      "unknown step " + cj.value("step", ""));
      }
      if (!ReadTime(cj, "startedAt", &c.started_at) ||
          !ReadTime(cj, "finishedAt", &c.finished_at)) {
        return Status(StatusCode::kInvalid, "bad container time");
      }
      c.exit_code = cj.value("exitCode", 0);
      c.reason = cj.value("reason", "");
      c.ready = cj.value("ready", false);
      c.message = cj.value("message", "");
      c.restart_policy = cj.value("restartPolicy", "Always");
      c.sidecar = cj.value("sidecar", false);
      c.probed = cj.value("probed", false);
      c.stopped = cj.value("stopped", false);
      c.restart_count = cj.value("restartCount", 0);
      if (cj.contains("last")) {
        const json& l = cj["last"];
        EndedInstance e;
        e.exit_code = l.value("exitCode", 0);
        e.reason = l.value("reason", "");
        e.message = l.value("message", "");
        e.container_id = l.value("containerID", "");
        if (!ReadTime(l, "startedAt", &e.started_at) ||
            !ReadTime(l, "finishedAt", &e.finished_at))
          return Status(StatusCode::kInvalid, "bad last state time");
        c.last = e;
      }
      c.waiting_reason = cj.value("waitingReason", "");
      c.waiting_message = cj.value("waitingMessage", "");
      c.pull_reason = cj.value("pullReason", "");
      c.pull_error = cj.value("pullError", "");
      c.start_error = cj.value("startError", "");
      c.backoff_ms = cj.value("backoffMs", int64_t{0});
      c.pull_backoff_ms = cj.value("pullBackoffMs", int64_t{0});
      c.retry_in_ms = cj.value("retryInMs", int64_t{0});
      if (!ReadTime(cj, "backoffUpdated", &c.backoff_updated) ||
          !ReadTime(cj, "pullBackoffUpdated", &c.pull_backoff_updated))
        return Status(StatusCode::kInvalid, "bad back-off time");
      rt.containers.push_back(std::move(c));
    }
  } catch (const json::exception& e) {
    return Status(StatusCode::kInvalid, e.what());
  }
  return rt;
}

}  // namespace kmock::controllers::lifecycle
