// Pod Table rows and field selectors.
#include <string>

#include "api/kinds/pod.h"
#include "api/kinds/util.h"

namespace kmock::api::kinds {

namespace {

bool IsRestartableInit(const json& pod, const std::string& name) {
  for (const json& c : Array(pod, {"spec", "initContainers"})) {
    if (Str(c, {"name"}) == name) return Str(c, {"restartPolicy"}) == "Always";
  }
  return false;
}

bool ConditionTrue(const json& pod, const std::string& type) {
  for (const json& c : Array(pod, {"status", "conditions"})) {
    if (Str(c, {"type"}) == type) return Str(c, {"status"}) == "True";
  }
  return false;
}

// Keeps the later of two RFC 3339 timestamps in *latest.
void KeepLatest(const std::string& ts, std::string* latest, TimePoint* at) {
  TimePoint t;
  if (ts.empty() || !ParseRfc3339(ts, &t)) return;
  if (latest->empty() || t > *at) {
    *latest = ts;
    *at = t;
  }
}

struct PodSummary {
  std::string reason;
  int ready = 0;
  int total = 0;
  int restarts = 0;
  std::string last_restart;  // RFC 3339 or ""
};

PodSummary Summarize(const json& pod) {
  PodSummary s;
  s.total = static_cast<int>(Array(pod, {"spec", "containers"}).size());
  std::string phase = Str(pod, {"status", "phase"});
  s.reason = phase;
  if (!Str(pod, {"status", "reason"}).empty()) {
    s.reason = Str(pod, {"status", "reason"});
  }
  for (const json& c : Array(pod, {"status", "conditions"})) {
    if (Str(c, {"type"}) == "PodScheduled" &&
        Str(c, {"reason"}) == "SchedulingGated") {
      s.reason = "SchedulingGated";
    }
  }
  const json& init_specs = Array(pod, {"spec", "initContainers"});
  for (const json& c : init_specs) {
    if (Str(c, {"restartPolicy"}) == "Always") ++s.total;
  }

  int restarts = 0, restartable_restarts = 0;
  std::string last, last_restartable;
  TimePoint last_at{}, last_restartable_at{};
  bool initializing = false;
  const json& init_statuses = Array(pod, {"status", "initContainerStatuses"});
  for (size_t i = 0; i < init_statuses.size(); ++i) {
    const json& st = init_statuses[i];
    int count = static_cast<int>(Int(st, {"restartCount"}));
    restarts += count;
    std::string finished = Str(st, {"lastState", "terminated", "finishedAt"});
    KeepLatest(finished, &last, &last_at);
    bool restartable = IsRestartableInit(pod, Str(st, {"name"}));
    if (restartable) {
      restartable_restarts += count;
      KeepLatest(finished, &last_restartable, &last_restartable_at);
    }
    const json* terminated = Find(st, {"state", "terminated"});
    const json* waiting = Find(st, {"state", "waiting"});
    if (terminated && Int(*terminated, {"exitCode"}) == 0) continue;
    if (restartable && Bool(st, {"started"})) {
      if (Bool(st, {"ready"})) ++s.ready;
      continue;
    }
    if (terminated) {
      std::string r = Str(*terminated, {"reason"});
      if (r.empty()) {
        int64_t signal = Int(*terminated, {"signal"});
        s.reason = signal != 0
                       ? "Init:Signal:" + std::to_string(signal)
                       : "Init:ExitCode:" +
                             std::to_string(Int(*terminated, {"exitCode"}));
      } else {
        s.reason = "Init:" + r;
      }
    } else if (waiting && !Str(*waiting, {"reason"}).empty() &&
               Str(*waiting, {"reason"}) != "PodInitializing") {
      s.reason = "Init:" + Str(*waiting, {"reason"});
    } else {
      s.reason =
          "Init:" + std::to_string(i) + "/" + std::to_string(init_specs.size());
    }
    initializing = true;
    break;
  }

  s.restarts = restarts;
  s.last_restart = last;
  if (!initializing || ConditionTrue(pod, "Initialized")) {
    s.restarts = restartable_restarts;
    last = last_restartable;
    last_at = last_restartable_at;
    bool has_running = false;
    const json& statuses = Array(pod, {"status", "containerStatuses"});
    for (size_t k = statuses.size(); k-- > 0;) {
      const json& st = statuses[k];
      s.restarts += static_cast<int>(Int(st, {"restartCount"}));
      KeepLatest(Str(st, {"lastState", "terminated", "finishedAt"}), &last,
                 &last_at);
      const json* terminated = Find(st, {"state", "terminated"});
      std::string waiting_reason = Str(st, {"state", "waiting", "reason"});
      if (!waiting_reason.empty()) {
        s.reason = waiting_reason;
      } else if (terminated && !Str(*terminated, {"reason"}).empty()) {
        s.reason = Str(*terminated, {"reason"});
      } else if (terminated) {
        int64_t signal = Int(*terminated, {"signal"});
        s.reason =
            signal != 0
                ? "Signal:" + std::to_string(signal)
                : "ExitCode:" + std::to_string(Int(*terminated, {"exitCode"}));
      } else if (Bool(st, {"ready"}) && Find(st, {"state", "running"})) {
        has_running = true;
        ++s.ready;
      }
    }
    if (s.reason == "Completed" && has_running) {
      s.reason = ConditionTrue(pod, "Ready") ? "Running" : "NotReady";
    }
    s.last_restart = last;
  }

  bool deleting = Find(pod, {"metadata", "deletionTimestamp"}) &&
                  !Find(pod, {"metadata", "deletionTimestamp"})->is_null();
  if (deleting && Str(pod, {"status", "reason"}) == "NodeLost") {
    s.reason = "Unknown";
  } else if (deleting && phase != "Failed" && phase != "Succeeded") {
    s.reason = "Terminating";
  }
  return s;
}

std::string OrNone(std::string s) { return s.empty() ? "<none>" : s; }

// A pod field whose value is read from the member its name starts with.
SelectableField Field(const std::string& name,
                      std::function<std::string(const json&)> fn) {
  return SelectableField{name, std::move(fn), {name.substr(0, name.find('.'))}};
}

}  // namespace

std::string PodStatusReason(const json& pod) { return Summarize(pod).reason; }

json PodReadyCell(const json& pod, TimePoint /*now*/) {
  PodSummary s = Summarize(pod);
  return std::to_string(s.ready) + "/" + std::to_string(s.total);
}

json PodStatusCell(const json& pod, TimePoint /*now*/) {
  return Summarize(pod).reason;
}

json PodRestartsCell(const json& pod, TimePoint now) {
  PodSummary s = Summarize(pod);
  std::string restarts = std::to_string(s.restarts);
  if (s.restarts != 0 && !s.last_restart.empty()) {
    restarts += " (" + Since(s.last_restart, now) + " ago)";
  }
  return restarts;
}

json PodIpCell(const json& pod, TimePoint /*now*/) {
  std::string ip;
  const json& ips = Array(pod, {"status", "podIPs"});
  if (!ips.empty()) ip = Str(ips[0], {"ip"});
  return OrNone(ip);
}

json PodReadinessGatesCell(const json& pod, TimePoint /*now*/) {
  const json& gate_specs = Array(pod, {"spec", "readinessGates"});
  if (gate_specs.empty()) return "<none>";
  int true_count = 0;
  for (const json& g : gate_specs) {
    std::string type = Str(g, {"conditionType"});
    for (const json& c : Array(pod, {"status", "conditions"})) {
      if (Str(c, {"type"}) == type) {
        if (Str(c, {"status"}) == "True") ++true_count;
        break;
      }
    }
  }
  return std::to_string(true_count) + "/" + std::to_string(gate_specs.size());
}

std::vector<SelectableField> PodSelectableFields() {
  auto first_ip = [](const json& p) {
    const json& ips = Array(p, {"status", "podIPs"});
    return ips.empty() ? std::string() : Str(ips[0], {"ip"});
  };
  return {
      Field("spec.nodeName",
            [](const json& p) {
              return Str(p, {"spec", "nodeName"});
            }),
      Field("spec.restartPolicy",
            [](const json& p) {
              return Str(p, {"spec", "restartPolicy"});
            }),
      Field("spec.schedulerName",
            [](const json& p) {
              return Str(p, {"spec", "schedulerName"});
            }),
      Field("spec.serviceAccountName",
            [](const json& p) {
              return Str(p, {"spec", "serviceAccountName"});
            }),
      Field("spec.hostNetwork",
            [](const json& p) {
              return std::string(Bool(p, {"spec", "hostNetwork"}) ? "true"
                                                                  : "false");
            }),
      Field("status.phase",
            [](const json& p) {
              return Str(p, {"status", "phase"});
            }),
      Field("status.podIP", first_ip),
      Field("status.podIPs", first_ip),
      Field("status.nominatedNodeName",
            [](const json& p) {
              return Str(p, {"status", "nominatedNodeName"});
            }),
  };
}

}  // namespace kmock::api::kinds
