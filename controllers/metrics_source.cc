#include "controllers/metrics_source.h"

#include <functional>
#include <map>

#include "common/json_view.h"
#include "controllers/quantity.h"
#include "sim/programs.h"

namespace kmock::controllers {

using nlohmann::json;

namespace {

// How long metrics-server's window is (its resolution).
constexpr char kWindow[] = "15s";
constexpr auto kWindowLength = std::chrono::seconds(15);

// What an idle server costs, and each request it answers.
constexpr int64_t kIdleServerNanocores = 1000000;  // 1m
constexpr int64_t kPerRequestNanocores = 2000000;  // 2m per request/s
// The kubelet, the runtime and the OS of each node.
constexpr int64_t kSystemNanocores = 60000000;        // 60m
constexpr int64_t kSystemBytes = int64_t{600} << 20;  // 600Mi

std::string Timestamp(TimePoint t) { return FormatRfc3339(t); }

struct SystemUsage {
  int64_t millicores = 0;
  int64_t mib = 1;
};

// What the control plane's and nodes' own programs use on a small idle
// cluster, by the image they run; anything else: next to nothing.
SystemUsage SystemProgramUsage(const std::string& image) {
  static const struct {
    const char* name;
    SystemUsage usage;
  } kKnown[] = {
      {"kube-apiserver", {38, 260}},
      {"etcd", {22, 48}},
      {"kube-controller-manager", {14, 52}},
      {"kube-scheduler", {4, 24}},
      {"cloud-controller-manager", {3, 30}},
      {"kube-proxy", {1, 22}},
      {"coredns", {3, 16}},
      {"metrics-server", {4, 22}},
  };
  for (const auto& k : kKnown)
    if (image.find(k.name) != std::string::npos) return k.usage;
  return {};
}

json Meta(const json& obj, TimePoint now) {
  const json& md = ObjectAt(obj, "metadata");
  json m = {{"name", md.value("name", "")},
            {"creationTimestamp", Timestamp(now)}};
  if (md.contains("namespace")) m["namespace"] = md["namespace"];
  if (md.contains("labels")) m["labels"] = md["labels"];
  return m;
}

json UsageJson(int64_t nanocores, int64_t bytes) {
  return {{"cpu", std::to_string(nanocores) + "n"},
          {"memory", std::to_string(bytes / 1024) + "Ki"}};
}

}  // namespace

std::vector<std::pair<std::string, MetricsSource::Usage>>
MetricsSource::PodUsage(const json& pod, TimePoint now) const {
  std::vector<std::pair<std::string, Usage>> out;
  const json& status = ObjectAt(pod, "status");
  if (status.value("phase", "") != "Running") return out;
  const json& md = ObjectAt(pod, "metadata");
  std::string ns = md.value("namespace", ""), name = md.value("name", "");
  std::string uid = md.value("uid", "");
  for (const auto& spec : ArrayAt(ObjectAt(pod, "spec"), "containers")) {
    std::string cname = spec.value("name", "");
    auto c = containers_ != nullptr
                 ? containers_->Find(ns, name, uid, cname, false)
                 : nullptr;
    if (c == nullptr) continue;
    sim::Process::State st = c->state();
    if (st == sim::Process::State::kExited ||
        st == sim::Process::State::kStartError)
      continue;
    Usage u;
    // A little memory of its own, the same for the container's life.
    size_t h = std::hash<std::string>{}(uid + "/" + cname);
    u.bytes =
        c->MemoryNeed() + 200 * 1024 + static_cast<int64_t>(h % 4096) * 64;
    if (!c->ports().empty()) {
      size_t requests = c->RequestsSince(now - kWindowLength);
      u.nanocores = kIdleServerNanocores +
                    kPerRequestNanocores * static_cast<int64_t>(requests) /
                        kWindowLength.count() +
                    static_cast<int64_t>(h % 500000);
    } else if (st == sim::Process::State::kRunning) {
      u.nanocores = 1000000000;  // a program that never waits: a whole core
    }                            // a sleeping or blocked program uses no CPU
    if (!c->profiled()) {
      // Programs we know only by name: the system's, with their usual
      // figures on a small cluster.
      SystemUsage sys = SystemProgramUsage(spec.value("image", ""));
      u.nanocores = sys.millicores * 1000000 + static_cast<int64_t>(h % 900000);
      u.bytes = std::max(
          u.bytes, (sys.mib << 20) + static_cast<int64_t>(h % 4096) * 256);
    }
    auto limit = ParseValue(ObjectAt(ObjectAt(spec, "resources"), "limits")
                                .value("memory", json()));
    if (limit.ok() && *limit > 0) u.bytes = std::min(u.bytes, *limit);

    out.emplace_back(cname, u);
  }
  return out;
}

std::vector<json> MetricsSource::Pods(std::string_view ns) const {
  std::vector<json> items;
  TimePoint now = clock_->Now();
  for (const ObjectPtr& pod : pods_->List()) {
    const json& md = ObjectAt(*pod, "metadata");
    if (!ns.empty() && md.value("namespace", "") != ns) continue;
    auto usage = PodUsage(*pod, now);
    if (usage.empty()) continue;
    json containers = json::array();
    for (const auto& [name, u] : usage)
      containers.push_back(
          {{"name", name}, {"usage", UsageJson(u.nanocores, u.bytes)}});
    items.push_back({{"kind", "PodMetrics"},
                     {"apiVersion", "metrics.k8s.io/v1beta1"},
                     {"metadata", Meta(*pod, now)},
                     {"timestamp", Timestamp(now)},
                     {"window", kWindow},
                     {"containers", std::move(containers)}});
  }
  std::sort(items.begin(), items.end(), [](const json& a, const json& b) {
    const json& x = a["metadata"];
    const json& y = b["metadata"];
    return std::make_pair(x.value("namespace", ""), x.value("name", "")) <
           std::make_pair(y.value("namespace", ""), y.value("name", ""));
  });
  return items;
}

std::vector<json> MetricsSource::Nodes() const {
  TimePoint now = clock_->Now();
  std::map<std::string, Usage> by_node;
  for (const ObjectPtr& pod : pods_->List()) {
    std::string node = ObjectAt(*pod, "spec").value("nodeName", "");
    if (node.empty()) continue;
    Usage& sum = by_node[node];
    for (const auto& [name, u] : PodUsage(*pod, now)) {
      sum.nanocores += u.nanocores;
      sum.bytes += u.bytes;
    }
  }
  std::vector<json> items;
  for (const ObjectPtr& node : nodes_->List()) {
    std::string name = ObjectAt(*node, "metadata").value("name", "");
    Usage u = by_node[name];
    size_t h = std::hash<std::string>{}(name);
    u.nanocores += kSystemNanocores + static_cast<int64_t>(h % 20000000);
    u.bytes += kSystemBytes + static_cast<int64_t>(h % 65536) * 1024;
    items.push_back({{"kind", "NodeMetrics"},
                     {"apiVersion", "metrics.k8s.io/v1beta1"},
                     {"metadata", Meta(*node, now)},
                     {"timestamp", Timestamp(now)},
                     {"window", kWindow},
                     {"usage", UsageJson(u.nanocores, u.bytes)}});
  }
  std::sort(items.begin(), items.end(), [](const json& a, const json& b) {
    return a["metadata"].value("name", "") < b["metadata"].value("name", "");
  });
  return items;
}

}  // namespace kmock::controllers
