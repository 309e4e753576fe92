#include "controllers/lifecycle/runtime.h"

#include "common/json_view.h"

namespace kmock::controllers::lifecycle {

using nlohmann::json;

namespace {

constexpr const char* kStepNames[] = {"Waiting", "Pulling", "Pulled",
                                      "Created", "Running", "Terminated"};

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
  for (int i = 0; i < 6; ++i) {
    if (name == kStepNames[i]) {
      *out = static_cast<Step>(i);
      return true;
    }
  }
  return false;
}

int PodRuntime::CurrentContainer() const {
  for (size_t i = 0; i < containers.size(); ++i) {
    const auto& c = containers[i];
    bool done = c.init
                    ? c.step == Step::kTerminated
                    : (c.step == Step::kRunning || c.step == Step::kTerminated);
    if (!done) return static_cast<int>(i);
  }
  return -1;
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
    }
    if (c.ready) cj["ready"] = true;
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
      rt.containers.push_back(std::move(c));
    }
  } catch (const json::exception& e) {
    return Status(StatusCode::kInvalid, e.what());
  }
  return rt;
}

}  // namespace kmock::controllers::lifecycle
