#include "controllers/lifecycle/probes.h"

#include <cstdlib>

#include "common/json_view.h"
#include "controllers/lifecycle/container_setup.h"
#include "sim/image_catalog.h"
#include "sim/image_names.h"

namespace kmock::controllers::lifecycle {

using nlohmann::json;

namespace {

// What the kubelet's HTTP prober sends as its User-Agent.
constexpr char kProbeAgent[] = "kube-probe/1.33";

int Field(const json& probe, const char* name, int dflt) {
  auto it = probe.find(name);
  return it != probe.end() && it->is_number_integer() ? it->get<int>() : dflt;
}

bool Profiled(const json& container_spec) {
  std::string ref = sim::NormalizeImage(container_spec.value("image", ""));
  std::string repo = sim::ImageRepository(ref);
  return sim::ImageCatalog::Builtin().Find(repo) != nullptr;
}

// The port a probe names: a number, or the name of a container port.
int ProbePort(const json& port, const json& container_spec) {
  if (port.is_number_integer()) return port.get<int>();
  if (!port.is_string()) return 0;
  std::string p = port.get<std::string>();
  for (const auto& cp : container_spec.value("ports", json::array())) {
    if (cp.is_object() && cp.value("name", "") == p)
      return cp.value("containerPort", 0);
  }
  return std::atoi(p.c_str());
}

ProbeResult Http(const json& get, const json& container_spec,
                 const std::shared_ptr<sim::Container>& c, const PodRuntime& rt,
                 TimePoint now) {
  int port = ProbePort(get.value("port", json()), container_spec);
  std::string host = get.value("host", rt.pod_ip);
  std::string scheme =
      get.value("scheme", "HTTP") == "HTTPS" ? "https" : "http";
  std::string path = get.value("path", "/");
  if (path.empty() || path[0] != '/') path = "/" + path;
  std::string addr = host + ":" + std::to_string(port);
  std::string url = scheme + "://" + addr + path;
  auto conn = sim::Container::Connect(c, port, rt.host_ip);
  if (!conn)
    return {false, "Get \"" + url + "\": dial tcp " + addr +
                       ": connect: connection refused"};
  std::string req = "GET " + path + " HTTP/1.1\r\nHost: " + addr +
                    "\r\nUser-Agent: " + kProbeAgent +
                    "\r\nAccept: */*\r\nConnection: close\r\n";
  for (const auto& h : get.value("httpHeaders", json::array()))
    if (h.is_object())
      req += h.value("name", "") + ": " + h.value("value", "") + "\r\n";
  std::string res = conn->Send(req + "\r\n", now);
  if (res.rfind("HTTP/", 0) != 0 || res.size() < 12)
    return {false, "Get \"" + url +
                       "\": context deadline exceeded (Client.Timeout "
                       "exceeded while awaiting headers)"};
  int code = std::atoi(res.c_str() + res.find(' ') + 1);
  if (code >= 200 && code < 400) return {true, ""};
  return {false, "HTTP probe failed with statuscode: " + std::to_string(code)};
}

ProbeResult Tcp(const json& tcp, const json& container_spec, sim::Container& c,
                const PodRuntime& rt) {
  int port = ProbePort(tcp.value("port", json()), container_spec);
  for (int p : c.ports())
    if (p == port) return {true, ""};
  std::string addr = tcp.value("host", rt.pod_ip) + ":" + std::to_string(port);
  return {false, "dial tcp " + addr + ": connect: connection refused"};
}

ProbeResult Exec(const json& exec, sim::Container& c, TimePoint now) {
  std::vector<std::string> argv;
  for (const auto& a : exec.value("command", json::array()))
    if (a.is_string()) argv.push_back(a.get<std::string>());
  if (argv.empty()) return {false, "no command"};
  sim::Process::ExecResult r = c.Exec(argv, now);
  if (r.not_found)
    return {false,
            "OCI runtime exec failed: exec failed: unable to start "
            "container process: exec: \"" +
                argv[0] +
                "\": executable file not found in $PATH: "
                "unknown"};
  if (r.exit_code == 0) return {true, ""};
  return {false, r.out + r.err};
}

enum class Kind { kStartup, kLiveness, kReadiness };

const char* Label(Kind k) {
  return k == Kind::kStartup    ? "Startup"
         : k == Kind::kLiveness ? "Liveness"
                                : "Readiness";
}

// Runs one probe if it is due; returns its result then, else nullopt.
std::optional<ProbeResult> RunIfDue(const json& probe, const json& spec,
                                    ContainerRuntime* c, ProbeCounters* pc,
                                    const PodRuntime& rt, TimePoint now,
                                    std::optional<TimePoint>* wake) {
  auto period =
      std::chrono::seconds(std::max(1, Field(probe, "periodSeconds", 10)));
  if (pc->next == TimePoint{})
    pc->next = c->started_at +
               std::chrono::seconds(Field(probe, "initialDelaySeconds", 0));
  std::optional<ProbeResult> result;
  if (now >= pc->next) {
    result = RunProbe(probe, spec, c->sim, rt, now);
    pc->next = now + period;
    if (result->ok) {
      ++pc->successes;
      pc->failures = 0;
    } else {
      ++pc->failures;
      pc->successes = 0;
    }
  }
  if (!*wake || pc->next < **wake) *wake = pc->next;
  return result;
}

void Kill(ContainerRuntime* c, Kind kind, TimePoint now,
          std::vector<EventSpec>* events) {
  events->push_back(
      Normal(*c, "Killing",
             "Container " + c->name + " failed " +
                 (kind == Kind::kStartup ? "startup" : "liveness") +
                 " probe, will be restarted"));
  // A server stops cleanly on SIGTERM; anything else is killed after the
  // grace period.
  bool server = !c->sim->ports().empty();
  c->exit_code = server ? 0 : 137;
  c->reason = server ? "Completed" : "Error";
  c->sim->Stop(c->exit_code, now);
  c->step = Step::kTerminated;
  c->finished_at = now;
  c->ready = false;
}

}  // namespace

bool WaitsForProbe(const json& container_spec) {
  return (container_spec.contains("readinessProbe") ||
          container_spec.contains("startupProbe")) &&
         Profiled(container_spec);
}

ProbeResult RunProbe(const json& probe, const json& container_spec,
                     const std::shared_ptr<sim::Container>& container,
                     const PodRuntime& rt, TimePoint now) {
  if (auto it = probe.find("httpGet"); it != probe.end() && it->is_object())
    return Http(*it, container_spec, container, rt, now);
  if (auto it = probe.find("tcpSocket"); it != probe.end() && it->is_object())
    return Tcp(*it, container_spec, *container, rt);
  if (auto it = probe.find("grpc"); it != probe.end() && it->is_object())
    return Tcp(*it, container_spec, *container, rt);
  if (auto it = probe.find("exec"); it != probe.end() && it->is_object())
    return Exec(*it, *container, now);
  return {true, ""};
}

bool RunDueProbes(const json& pod, PodRuntime* rt, TimePoint now,
                  std::vector<EventSpec>* events,
                  std::optional<TimePoint>* wake) {
  bool changed = false;
  for (auto& c : rt->containers) {
    if (c.step != Step::kRunning || !c.sim || !c.sim->profiled()) continue;
    const json* spec = SpecOf(pod, c);
    if (spec == nullptr) continue;
    auto probe_of = [&](const char* name) -> const json* {
      auto it = spec->find(name);
      return it != spec->end() && it->is_object() ? &*it : nullptr;
    };
    const json* startup = probe_of("startupProbe");
    const json* liveness = probe_of("livenessProbe");
    const json* readiness = probe_of("readinessProbe");
    if (!startup && !liveness && !readiness) continue;
    auto fail = [&](Kind kind, const ProbeResult& r) {
      events->push_back(
          Warning(c, "Unhealthy",
                  std::string(Label(kind)) + " probe failed: " + r.output));
    };
    if (startup && !c.probes_started) {
      auto r = RunIfDue(*startup, *spec, &c, &c.startup_probe, *rt, now, wake);
      if (!r) continue;
      if (!r->ok) {
        fail(Kind::kStartup, *r);
        if (c.startup_probe.failures >=
            Field(*startup, "failureThreshold", 3)) {
          Kill(&c, Kind::kStartup, now, events);
          changed = true;
        }
        continue;
      }
      if (c.startup_probe.successes < Field(*startup, "successThreshold", 1))
        continue;
      c.probes_started = true;
      changed = true;
    }
    c.probes_started = true;
    if (liveness) {
      auto r =
          RunIfDue(*liveness, *spec, &c, &c.liveness_probe, *rt, now, wake);
      if (r && !r->ok) {
        fail(Kind::kLiveness, *r);
        if (c.liveness_probe.failures >=
            Field(*liveness, "failureThreshold", 3)) {
          Kill(&c, Kind::kLiveness, now, events);
          changed = true;
          continue;
        }
      }
    }
    // Ready after successThreshold passes in a row, not after
    // failureThreshold failures in a row, unchanged in between; and never
    // before the pod's ready step.
    bool ready = c.ready;
    if (!readiness) {
      ready = rt->ready;  // the startup probe has passed
    } else {
      auto r =
          RunIfDue(*readiness, *spec, &c, &c.readiness_probe, *rt, now, wake);
      if (r && !r->ok) fail(Kind::kReadiness, *r);
      if (c.readiness_probe.successes >=
          Field(*readiness, "successThreshold", 1))
        ready = true;
      else if (c.readiness_probe.failures >=
               Field(*readiness, "failureThreshold", 3))
        ready = false;
      ready = ready && rt->ready;
    }
    if (ready != c.ready) {
      c.ready = ready;
      changed = true;
    }
  }
  return changed;
}

}  // namespace kmock::controllers::lifecycle
