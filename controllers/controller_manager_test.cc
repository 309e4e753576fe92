// End-to-end within the process: an in-memory store, the real registry and
// the controller manager on a FakeClock.
#include "controllers/controller_manager.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "common/json_view.h"
#include "controllers/ip_allocator.h"
#include "registry/test_registry.h"

namespace kmock::controllers {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

class ControllerManagerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    storage_ = registry::testing::OpenMemoryStore();
    ASSERT_NE(storage_, nullptr);
    registry_ =
        std::make_unique<registry::Registry>(storage_.get(), &clock_, &rng_);
    auto res = CoreResources::Lookup(registry_->catalog());
    ASSERT_TRUE(res.ok()) << res.status().ToString();
    res_ = *res;
  }
  void TearDown() override {
    if (cm_) cm_->Stop();
    cm_.reset();
    registry_.reset();
    if (storage_) storage_->Close();
  }

  void StartCluster(ControllerManagerOptions opts = {},
                    ClusterSpec cluster = DefaultCluster()) {
    opts.heartbeat.poll = milliseconds(10);
    cm_ = std::make_unique<ControllerManager>(registry_.get(), &clock_, &rng_,
                                              std::move(cluster), opts);
    Status st = cm_->Start();
    ASSERT_TRUE(st.ok()) << st.ToString();
    Status ready = cm_->WaitForClusterReady(milliseconds(20000));
    ASSERT_TRUE(ready.ok()) << ready.ToString();
  }

  // The name of the last system pod whose name starts with `prefix` ("" if
  // none).
  std::string SystemPod(const std::string& prefix) {
    std::string name;
    for (const auto& key : cm_->system_pods()) {
      const std::string n = key.substr(std::string("kube-system/").size());
      if (n.rfind(prefix, 0) == 0) name = n;
    }
    return name;
  }

  json CreatePod(const std::string& name, json spec) {
    json pod = {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata", {{"name", name}, {"namespace", "default"}}},
                {"spec", spec}};
    auto r =
        registry_->Create(*res_.pods, "default", pod, registry::WriteOptions{});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->object : json();
  }

  // Polls the registry until pred holds for the pod (or gives up).
  json WaitForPod(const std::string& name,
                  const std::function<bool(const json&)>& pred,
                  const std::string& ns = "default") {
    auto deadline = std::chrono::steady_clock::now() + milliseconds(10000);
    json last;
    while (std::chrono::steady_clock::now() < deadline) {
      auto p = registry_->Get(*res_.pods, ns, name);
      if (p.ok()) {
        last = *p;
        if (pred(last)) return last;
      }
      std::this_thread::sleep_for(milliseconds(10));
    }
    ADD_FAILURE() << "pod " << name
                  << " never reached the state; last: " << last.dump();
    return last;
  }

  std::vector<json> EventsFor(const std::string& name,
                              const std::string& ns = "default") {
    cm_->FlushEvents();  // events are written on the sink's threads
    auto list = registry_->List(*res_.events, ns, registry::ListOptions{});
    EXPECT_TRUE(list.ok());
    std::vector<json> out;
    for (const auto& e : (*list)["items"]) {
      if (e["involvedObject"].value("name", "") == name) out.push_back(e);
    }
    std::sort(out.begin(), out.end(), [](const json& a, const json& b) {
      return a["metadata"].value("name", "") < b["metadata"].value("name", "");
    });
    return out;
  }

  FakeClock clock_{std::chrono::system_clock::from_time_t(1735725600)};
  Rng rng_{42};
  std::unique_ptr<store::Storage> storage_;
  std::unique_ptr<registry::Registry> registry_;
  CoreResources res_;
  std::unique_ptr<ControllerManager> cm_;
};

json NginxSpec(const std::string& cpu = "") {
  json c = {{"name", "c1"}, {"image", "nginx"}};
  if (!cpu.empty()) c["resources"]["requests"]["cpu"] = cpu;
  return {{"containers", json::array({c})}};
}

TEST_F(ControllerManagerTest, BootstrapsTheDefaultCluster) {
  StartCluster();
  auto nodes = registry_->List(*res_.nodes, "", registry::ListOptions{});
  ASSERT_TRUE(nodes.ok());
  EXPECT_EQ((*nodes)["items"].size(), 5u);
  auto pods =
      registry_->List(*res_.pods, "kube-system", registry::ListOptions{});
  ASSERT_TRUE(pods.ok());
  std::set<std::string> names;
  for (const auto& p : (*pods)["items"]) {
    names.insert(p["metadata"]["name"]);
    EXPECT_EQ(p["status"]["phase"], "Running") << p["metadata"]["name"];
    // Host network: the pod IP is the node's.
    EXPECT_EQ(p["status"]["podIP"], p["status"]["hostIP"]);
    EXPECT_EQ(p["status"]["containerStatuses"][0]["containerID"]
                  .get<std::string>()
                  .rfind("containerd://", 0),
              0u);
  }
  EXPECT_TRUE(names.count("etcd-manage-1"));
  EXPECT_TRUE(names.count("kube-apiserver-manage-1"));
  EXPECT_TRUE(names.count("kube-scheduler-manage-2"));
  EXPECT_TRUE(names.count("kube-controller-manager-manage-2"));
  EXPECT_EQ(names.size(),
            5u + 5u);  // 4 static, 1 cloud controller, 5 kube-proxy
  auto etcd = registry_->Get(*res_.pods, "kube-system", "etcd-manage-1");
  ASSERT_TRUE(etcd.ok());
  EXPECT_EQ((*etcd)["metadata"]["ownerReferences"][0]["kind"], "Node");
  EXPECT_TRUE(cm_->kubelets()
                  ->ContainerPid("kube-system", "etcd-manage-1", "etcd")
                  .has_value());

  // Leases appear for every node.
  auto leases =
      registry_->List(*res_.leases, "kube-node-lease", registry::ListOptions{});
  ASSERT_TRUE(leases.ok());
  auto deadline = std::chrono::steady_clock::now() + milliseconds(5000);
  while ((*leases)["items"].size() < 5 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(20));
    leases = registry_->List(*res_.leases, "kube-node-lease",
                             registry::ListOptions{});
  }
  ASSERT_EQ((*leases)["items"].size(), 5u);
  EXPECT_EQ((*leases)["items"][0]["spec"]["leaseDurationSeconds"], 40);
}

TEST_F(ControllerManagerTest, PodRunsThenDeletesWithoutARecord) {
  StartCluster();
  CreatePod("hello", NginxSpec());
  json pod = WaitForPod("hello", [](const json& p) {
    return p["status"].value("phase", "") == "Running" &&
           p["status"].value("conditions", json::array()).size() >= 5 &&
           p["status"]["conditions"][2].value("status", "") == "True";
  });
  std::string node = pod["spec"].value("nodeName", "");
  EXPECT_NE(node, "manage-1");
  EXPECT_FALSE(node.empty());
  std::string cidr;
  for (const auto& n : cm_->cluster().nodes) {
    if (n.name == node) cidr = n.pod_cidr;
  }
  auto ips = IpAllocator::Create(cidr);
  ASSERT_TRUE(ips.ok());
  EXPECT_TRUE((*ips)->Contains(pod["status"].value("podIP", ""))) << pod.dump();
  const json& cs = pod["status"]["containerStatuses"][0];
  EXPECT_EQ(cs["image"], "docker.io/library/nginx:latest");
  EXPECT_EQ(cs["ready"], true);
  EXPECT_EQ(cs["started"], true);

  auto events = EventsFor("hello");
  std::vector<std::string> reasons;
  for (const auto& e : events) reasons.push_back(e["reason"]);
  EXPECT_EQ(reasons, (std::vector<std::string>{"Scheduled", "Pulling", "Pulled",
                                               "Created", "Started"}));
  ASSERT_EQ(events.size(), 5u);
  EXPECT_EQ(events[0]["message"],
            "Successfully assigned default/hello to " + node);
  EXPECT_EQ(events[0]["reportingComponent"], "default-scheduler");
  EXPECT_EQ(events[1]["message"], "Pulling image \"nginx\"");
  EXPECT_EQ(events[1]["source"]["host"], node);
  EXPECT_EQ(events[3]["message"], "Created container: c1");
  EXPECT_EQ(events[4]["message"], "Started container c1");
  EXPECT_TRUE(
      cm_->kubelets()->ContainerPid("default", "hello", "c1").has_value());

  registry::DeleteOptions del;
  auto d = registry_->Delete(*res_.pods, "default", "hello", del);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  auto deadline = std::chrono::steady_clock::now() + milliseconds(10000);
  bool gone = false;
  while (std::chrono::steady_clock::now() < deadline) {
    auto p = registry_->Get(*res_.pods, "default", "hello");
    if (!p.ok() && p.status().code() == StatusCode::kNotFound) {
      gone = true;
      break;
    }
    std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_TRUE(gone);
  bool killing = false;
  for (const auto& e : EventsFor("hello")) {
    if (e["reason"] == "Killing") {
      killing = true;
      EXPECT_EQ(e["message"], "Stopping container c1");
    }
  }
  EXPECT_TRUE(killing);
}

// A deleted mirror pod is made again by its node's kubelet on its next
// sync of the static pod: same name, labels, annotations, spec and Node
// owner, a new uid; the static pod's containers never stopped, so the new
// object reports the same ones and nothing is killed. Both a graceful
// delete and a forced one (grace period 0).
TEST_F(ControllerManagerTest,
       DeletedMirrorPodComesBackRunningTheSameContainers) {
  StartCluster();
  const std::string name = "etcd-manage-1";
  auto before = registry_->Get(*res_.pods, "kube-system", name);
  ASSERT_TRUE(before.ok());
  json old = *before;
  auto pid = cm_->kubelets()->ContainerPid("kube-system", name, "etcd");
  ASSERT_TRUE(pid.has_value());

  for (std::optional<int64_t> grace :
       {std::optional<int64_t>(), std::optional<int64_t>(0)}) {
    std::string old_uid = old["metadata"]["uid"];
    registry::DeleteOptions del;
    del.grace_period_seconds = grace;
    auto d = registry_->Delete(*res_.pods, "kube-system", name, del);
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    json pod = WaitForPod(
        name,
        [&](const json& p) {
          // A graceful delete waits for the kubelet's next sync (a tenth
          // of a second): the fake clock moves on while we look.
          if (!grace) clock_.Advance(milliseconds(20));
          return p["metadata"]["uid"] != old_uid &&
                 p["status"].value("phase", "") == "Running";
        },
        "kube-system");
    EXPECT_FALSE(pod["metadata"].contains("deletionTimestamp"));
    EXPECT_EQ(pod["metadata"]["labels"], old["metadata"]["labels"]);
    EXPECT_EQ(pod["metadata"]["annotations"], old["metadata"]["annotations"]);
    EXPECT_EQ(pod["metadata"]["ownerReferences"],
              old["metadata"]["ownerReferences"]);
    EXPECT_EQ(pod["spec"], old["spec"]);
    EXPECT_EQ(pod["metadata"]["managedFields"][0]["manager"], "kubelet");
    // The same containers, still running.
    EXPECT_EQ(pod["status"]["startTime"], old["status"]["startTime"]);
    EXPECT_EQ(pod["status"]["containerStatuses"],
              old["status"]["containerStatuses"]);
    EXPECT_EQ(cm_->kubelets()->ContainerPid("kube-system", name, "etcd"), pid);
    old = pod;
  }
  for (const auto& e : EventsFor(name, "kube-system")) {
    EXPECT_NE(e["reason"], "Killing") << e.dump();
  }
}

TEST_F(ControllerManagerTest, DeletedKubeProxyIsReplacedByItsDaemonSet) {
  StartCluster();
  const std::string name = SystemPod("kube-proxy-");
  ASSERT_FALSE(name.empty());
  auto before = registry_->Get(*res_.pods, "kube-system", name);
  ASSERT_TRUE(before.ok());
  const std::string node = (*before)["spec"]["nodeName"];

  auto d = registry_->Delete(*res_.pods, "kube-system", name,
                             registry::DeleteOptions{});
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  // The kubelet stops it; the DaemonSet controller makes another for the
  // node, under a new name, which the scheduler binds and the kubelet runs.
  json replacement;
  auto deadline = std::chrono::steady_clock::now() + milliseconds(10000);
  while (replacement.is_null() && std::chrono::steady_clock::now() < deadline) {
    registry::ListOptions lo;
    lo.label_selector = "k8s-app=kube-proxy";
    auto list = registry_->List(*res_.pods, "kube-system", lo);
    ASSERT_TRUE(list.ok());
    bool old_gone = true;
    for (const json& p : (*list)["items"]) {
      if (p["metadata"]["name"] == name) old_gone = false;
    }
    for (const json& p : (*list)["items"]) {
      if (old_gone && p["metadata"]["name"] != name &&
          p["spec"].value("nodeName", "") == node &&
          p["status"].value("phase", "") == "Running") {
        replacement = p;
      }
    }
    if (replacement.is_null()) std::this_thread::sleep_for(milliseconds(10));
  }
  ASSERT_FALSE(replacement.is_null());
  EXPECT_EQ(replacement["metadata"]["ownerReferences"][0]["kind"], "DaemonSet");
  EXPECT_EQ(replacement["metadata"]["labels"]["controller-revision-hash"],
            (*before)["metadata"]["labels"]["controller-revision-hash"]);
  bool killing = false;
  for (const auto& e : EventsFor(name, "kube-system")) {
    if (e["reason"] == "Killing") killing = true;
  }
  EXPECT_TRUE(killing);
}

// Without the DaemonSet controller its kubelet keeps kube-proxy, as the
// mirror pods.
TEST_F(ControllerManagerTest,
       WithoutDaemonSetControllerKubeProxyComesBackUnderItsName) {
  ControllerManagerOptions opts;
  opts.daemonsets = false;
  StartCluster(opts);
  const std::string name = SystemPod("kube-proxy-");
  ASSERT_FALSE(name.empty());
  auto before = registry_->Get(*res_.pods, "kube-system", name);
  ASSERT_TRUE(before.ok());
  std::string old_uid = (*before)["metadata"]["uid"];
  std::string old_container =
      (*before)["status"]["containerStatuses"][0]["containerID"];

  auto d = registry_->Delete(*res_.pods, "kube-system", name,
                             registry::DeleteOptions{});
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  json pod = WaitForPod(
      name,
      [&](const json& p) {
        return p["metadata"]["uid"] != old_uid &&
               p["status"].value("phase", "") == "Running";
      },
      "kube-system");
  EXPECT_EQ(pod["spec"]["nodeName"], (*before)["spec"]["nodeName"]);
  EXPECT_EQ(pod["metadata"]["labels"], (*before)["metadata"]["labels"]);
  // Not a mirror pod: its container was stopped and a new one started.
  EXPECT_NE(pod["status"]["containerStatuses"][0]["containerID"],
            old_container);
  EXPECT_EQ(pod["metadata"]["managedFields"][0]["manager"],
            "kube-controller-manager");
  bool killing = false;
  for (const auto& e : EventsFor(name, "kube-system")) {
    if (e["reason"] == "Killing") killing = true;
  }
  EXPECT_TRUE(killing);
}

// A cluster file whose nodes have no control-plane role (as the benchmarks'
// are): the cloud controller's DaemonSet selects the node it runs on, so the
// DaemonSet controller keeps its pod and the cluster comes up.
TEST_F(ControllerManagerTest, CloudControllerOnANodeWithoutTheRoleStays) {
  ClusterSpec cluster = DefaultCluster();
  for (NodeSpec& n : cluster.nodes) {
    n.roles.clear();
    n.taints.clear();
  }
  StartCluster({}, cluster);
  const std::string ccm = SystemPod("aws-cloud-controller-manager-");
  ASSERT_FALSE(ccm.empty());
  auto ds = registry_->Get(*res_.daemonsets, "kube-system",
                           "aws-cloud-controller-manager");
  ASSERT_TRUE(ds.ok());
  EXPECT_EQ((*ds)["spec"]["template"]["spec"]["nodeSelector"],
            json({{"kubernetes.io/hostname",
                   cluster.NodeRunning("cloud-controller-manager")}}));
  // Still there once the DaemonSet controller has looked at it.
  auto deadline = std::chrono::steady_clock::now() + milliseconds(1000);
  while (std::chrono::steady_clock::now() < deadline) {
    auto pod = registry_->Get(*res_.pods, "kube-system", ccm);
    ASSERT_TRUE(pod.ok());
    ASSERT_FALSE((*pod)["metadata"].contains("deletionTimestamp"));
    std::this_thread::sleep_for(milliseconds(50));
  }
}

TEST_F(ControllerManagerTest, KubernetesServiceComesBackWithinAPass) {
  StartCluster();
  auto before = registry_->Get(*res_.services, "default", "kubernetes");
  ASSERT_TRUE(before.ok());
  // The loop's first pass has run (it makes the Service's Endpoints), so
  // the clock moved below counts from it.
  auto first_pass = std::chrono::steady_clock::now() + milliseconds(10000);
  while (!registry_->Get(*res_.endpoints, "default", "kubernetes").ok() &&
         std::chrono::steady_clock::now() < first_pass) {
    std::this_thread::sleep_for(milliseconds(5));
  }
  ASSERT_TRUE(registry_->Get(*res_.endpoints, "default", "kubernetes").ok());
  auto d = registry_->Delete(*res_.services, "default", "kubernetes",
                             registry::DeleteOptions{});
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  clock_.Advance(std::chrono::seconds(10));
  auto deadline = std::chrono::steady_clock::now() + milliseconds(10000);
  Result<json> after = Status(StatusCode::kNotFound, "");
  while (std::chrono::steady_clock::now() < deadline) {
    after = registry_->Get(*res_.services, "default", "kubernetes");
    if (after.ok()) break;
    std::this_thread::sleep_for(milliseconds(10));
  }
  ASSERT_TRUE(after.ok());
  EXPECT_NE((*after)["metadata"]["uid"], (*before)["metadata"]["uid"]);
  EXPECT_EQ((*after)["spec"], (*before)["spec"]);
}

TEST_F(ControllerManagerTest, UnschedulablePodGetsFailedScheduling) {
  StartCluster();
  CreatePod("huge", NginxSpec("64"));
  json pod = WaitForPod("huge", [](const json& p) {
    for (const auto& c : p["status"].value("conditions", json::array())) {
      if (c.value("type", "") == "PodScheduled" &&
          c.value("status", "") == "False")
        return true;
    }
    return false;
  });
  EXPECT_FALSE(pod["spec"].contains("nodeName"));
  EXPECT_EQ(pod["status"]["phase"], "Pending");
  const json& cond = pod["status"]["conditions"][0];
  EXPECT_EQ(cond["reason"], "Unschedulable");
  EXPECT_EQ(cond["message"],
            "0/5 nodes are available: 1 node(s) had untolerated taint "
            "{node-role.kubernetes.io/control-plane: }, 4 Insufficient cpu. "
            "preemption: 0/5 nodes are available: 1 Preemption is not helpful "
            "for scheduling, 4 No preemption victims found for incoming pod.");
  auto deadline = std::chrono::steady_clock::now() + milliseconds(5000);
  std::vector<json> events;
  while (events.empty() && std::chrono::steady_clock::now() < deadline) {
    events = EventsFor("huge");
    std::this_thread::sleep_for(milliseconds(10));
  }
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["reason"], "FailedScheduling");
  EXPECT_EQ(events[0]["type"], "Warning");
}

TEST_F(ControllerManagerTest, SchedulerCountsWhatBoundPodsTakeAndFreeRoom) {
  StartCluster();
  auto bound = [](const json& p) {
    return !ObjectAt(p, "spec").value("nodeName", "").empty();
  };
  auto unschedulable = [](const json& p) {
    for (const auto& c : ArrayAt(ObjectAt(p, "status"), "conditions")) {
      if (c.value("type", "") == "PodScheduled" &&
          c.value("reason", "") == "Unschedulable")
        return true;
    }
    return false;
  };
  // Each of the three 4-CPU workers fits one pod asking 3 CPUs, not two;
  // manage-2 (2 CPUs, 500m taken by system pods) fits none.
  std::set<std::string> nodes;
  for (int i = 0; i < 3; ++i) {
    std::string name = "big-" + std::to_string(i);
    CreatePod(name, NginxSpec("3"));
    nodes.insert(WaitForPod(name, bound)["spec"]["nodeName"]);
  }
  EXPECT_EQ(nodes, (std::set<std::string>{"worker-1", "worker-2", "worker-3"}));
  CreatePod("one-more", NginxSpec("3"));
  json pending = WaitForPod("one-more", unschedulable);
  EXPECT_FALSE(bound(pending));
  EXPECT_NE(
      pending["status"]["conditions"][0]["message"].get<std::string>().find(
          "4 Insufficient cpu"),
      std::string::npos);
  // A deleted pod's room is free again.
  registry::DeleteOptions now;
  now.grace_period_seconds = 0;
  ASSERT_TRUE(registry_->Delete(*res_.pods, "default", "big-0", now).ok());
  json placed = WaitForPod("one-more", bound);
  EXPECT_TRUE(nodes.count(placed["spec"]["nodeName"]));
}

// A pod the scheduler binds is assumed on its node only until the informer
// shows it bound, however quickly the informer's update follows the
// binding: no entry is left behind for every later sync to walk (with the
// assumption recorded after the binding, an update that came first left
// one about one run in three of 60 pods).
TEST_F(ControllerManagerTest, SchedulerForgetsEveryPodItSeesBound) {
  StartCluster();
  constexpr int kPods = 60;
  for (int i = 0; i < kPods; ++i)
    CreatePod("p-" + std::to_string(i), NginxSpec());
  for (int i = 0; i < kPods; ++i) {
    WaitForPod("p-" + std::to_string(i), [](const json& p) {
      return ObjectAt(p, "status").value("phase", "") == "Running";
    });
  }
  // Every binding reaches the informer (and its handlers) in the end; an
  // entry left behind never goes.
  auto deadline = std::chrono::steady_clock::now() + milliseconds(10000);
  while (cm_->scheduler()->AssumedPods() > 0 &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(milliseconds(10));
  EXPECT_EQ(cm_->scheduler()->AssumedPods(), 0u);
}

TEST_F(ControllerManagerTest, PacedStagesWaitForTheFakeClock) {
  ControllerManagerOptions opts;
  StartCluster(opts);
  // Re-run with a slow pull only for pods created from now on.
  cm_->Stop();
  cm_.reset();
  ClusterSpec slow = DefaultCluster();
  slow.pacing.pull = std::chrono::milliseconds(5000);
  opts.heartbeat.poll = milliseconds(10);
  cm_ = std::make_unique<ControllerManager>(registry_.get(), &clock_, &rng_,
                                            slow, opts);
  ASSERT_TRUE(cm_->Start().ok());
  ASSERT_TRUE(cm_->WaitForClusterReady(milliseconds(10000)).ok());
  CreatePod("slow", NginxSpec());
  WaitForPod("slow",
             [](const json& p) { return p["status"].contains("podIP"); });
  std::this_thread::sleep_for(milliseconds(200));
  auto p = registry_->Get(*res_.pods, "default", "slow");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)["status"]["phase"], "Pending");
  clock_.Advance(std::chrono::seconds(5));
  WaitForPod("slow", [](const json& p) {
    return p["status"].value("phase", "") == "Running";
  });
  bool found = false;
  for (const auto& e : EventsFor("slow")) {
    if (e["reason"] == "Pulled") {
      found = true;
      EXPECT_EQ(
          e["message"],
          "Successfully pulled image \"nginx\" in 5s (5s including waiting). "
          "Image size: 72099410 bytes.");
    }
  }
  EXPECT_TRUE(found);
}

json BusyboxSpec(std::vector<std::string> command,
                 const std::string& restart = "Always") {
  return {
      {"restartPolicy", restart},
      {"containers",
       json::array(
           {{{"name", "c1"}, {"image", "busybox"}, {"command", command}}})}};
}

std::string WaitingReason(const json& pod) {
  for (const auto& cs : pod["status"].value("containerStatuses", json::array()))
    return cs["state"].value("waiting", json::object()).value("reason", "");
  return "";
}

// The kubelet's crash back-off on the injected clock: the first restart
// at its next sync (1 s), then CrashLoopBackOff for 10 s, then 20 s; the
// previous instance's log stays readable.
TEST_F(ControllerManagerTest, CrashingContainerRestartsWithTheBackOff) {
  StartCluster();
  CreatePod("crash", BusyboxSpec({"sh", "-c", "echo dying; exit 1"}));
  json pod = WaitForPod("crash", [](const json& p) {
    const json& cs = p["status"].value("containerStatuses", json::array());
    return !cs.empty() && cs[0]["state"].contains("terminated");
  });
  EXPECT_EQ(
      pod["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"],
      1);
  EXPECT_EQ(pod["status"]["phase"], "Running");  // restartPolicy Always
  clock_.Advance(std::chrono::seconds(1));
  WaitForPod("crash", [](const json& p) {
    return p["status"]["containerStatuses"][0].value("restartCount", 0) == 1;
  });
  clock_.Advance(std::chrono::seconds(1));
  pod = WaitForPod("crash", [](const json& p) {
    return WaitingReason(p) == "CrashLoopBackOff";
  });
  const json& cs = pod["status"]["containerStatuses"][0];
  EXPECT_EQ(cs["state"]["waiting"]["message"],
            "back-off 10s restarting failed container=c1 pod=crash_default(" +
                pod["metadata"].value("uid", "") + ")");
  EXPECT_EQ(cs["lastState"]["terminated"]["reason"], "Error");
  std::string uid = pod["metadata"].value("uid", "");
  auto last = cm_->kubelets()->Find("default", "crash", uid, "c1", true);
  ASSERT_NE(last, nullptr);
  ASSERT_EQ(last->Log().lines.size(), 1u);
  EXPECT_EQ(last->Log().lines[0].text, "dying\n");
  // The back-off counts from the crash, one sync (1 s) before.
  clock_.Advance(std::chrono::seconds(8));
  std::this_thread::sleep_for(milliseconds(100));
  auto p = registry_->Get(*res_.pods, "default", "crash");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)["status"]["containerStatuses"][0]["restartCount"], 1);
  clock_.Advance(std::chrono::seconds(1));
  WaitForPod("crash", [](const json& p) {
    return p["status"]["containerStatuses"][0].value("restartCount", 0) == 2;
  });
  clock_.Advance(std::chrono::seconds(1));
  pod = WaitForPod("crash", [](const json& p) {
    return WaitingReason(p) == "CrashLoopBackOff";
  });
  EXPECT_EQ(pod["status"]["containerStatuses"][0]["state"]["waiting"]["message"]
                .get<std::string>()
                .substr(0, 12),
            "back-off 20s");
  int backoffs = 0;
  for (const auto& e : EventsFor("crash")) {
    if (e["reason"] == "BackOff") {
      ++backoffs;
      EXPECT_EQ(e["type"], "Warning");
    }
  }
  EXPECT_GE(backoffs, 1);
}

// A program that ends: restartPolicy Never leaves the pod Succeeded after
// the program's own time on the clock.
TEST_F(ControllerManagerTest, NeverPodRunsItsSleepThenSucceeds) {
  StartCluster();
  CreatePod("once", BusyboxSpec({"sh", "-c", "sleep 30; echo done"}, "Never"));
  WaitForPod("once", [](const json& p) {
    return p["status"].value("phase", "") == "Running";
  });
  clock_.Advance(std::chrono::seconds(29));
  std::this_thread::sleep_for(milliseconds(100));
  auto p = registry_->Get(*res_.pods, "default", "once");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)["status"]["phase"], "Running");
  clock_.Advance(std::chrono::seconds(1));
  json pod = WaitForPod("once", [](const json& p) {
    return p["status"].value("phase", "") == "Succeeded";
  });
  const json& t = pod["status"]["containerStatuses"][0]["state"]["terminated"];
  EXPECT_EQ(t["reason"], "Completed");
  EXPECT_EQ(t["exitCode"], 0);
  auto c = cm_->kubelets()->Find("default", "once",
                                 pod["metadata"].value("uid", ""), "c1", false);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->Log().lines.back().text, "done\n");
}

// A tag the registry does not hold: ErrImagePull, ImagePullBackOff after
// the next sync, and a new pull once the 10 s back-off is over.
TEST_F(ControllerManagerTest, MissingImageTagBacksOffPulling) {
  StartCluster();
  CreatePod(
      "bad",
      {{"containers",
        json::array({{{"name", "c1"}, {"image", "nginx:doesnotexist"}}})}});
  WaitForPod("bad",
             [](const json& p) { return WaitingReason(p) == "ErrImagePull"; });
  clock_.Advance(std::chrono::seconds(1));
  WaitForPod("bad", [](const json& p) {
    return WaitingReason(p) == "ImagePullBackOff";
  });
  auto pulls = [&] {
    int n = 0;
    for (const auto& e : EventsFor("bad"))
      if (e["reason"] == "Pulling") n += e.value("count", 1);
    return n;
  };
  EXPECT_EQ(pulls(), 1);
  clock_.Advance(std::chrono::seconds(9));
  WaitForPod("bad", [](const json& p) {
    return WaitingReason(p) == "ErrImagePull" ||
           WaitingReason(p) == "ImagePullBackOff";
  });
  auto deadline = std::chrono::steady_clock::now() + milliseconds(5000);
  while (pulls() < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(milliseconds(20));
  EXPECT_EQ(pulls(), 2);
}

json ConfigMap(const std::string& name, json data) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"data", std::move(data)}};
}

std::string WaitingMessage(const json& pod) {
  for (const auto& cs : pod["status"].value("containerStatuses", json::array()))
    return cs["state"].value("waiting", json::object()).value("message", "");
  return "";
}

// env from a ConfigMap that is missing, then lacks the key: the container
// waits in CreateContainerConfigError, tried again every 10 s (the pod
// worker's back-off) until the key is there.
TEST_F(ControllerManagerTest, MissingConfigMapKeyWaitsInConfigError) {
  StartCluster();
  json spec = BusyboxSpec({"sh", "-c", "echo level=$LEVEL; sleep 3600"});
  spec["containers"][0]["env"] = {
      {{"name", "LEVEL"},
       {"valueFrom",
        {{"configMapKeyRef", {{"name", "special"}, {"key", "level"}}}}}}};
  CreatePod("needs", spec);
  json pod = WaitForPod("needs", [](const json& p) {
    return WaitingReason(p) == "CreateContainerConfigError";
  });
  EXPECT_EQ(WaitingMessage(pod), "configmap \"special\" not found");
  EXPECT_EQ(pod["status"]["phase"], "Pending");
  // Moves the clock a second at a time until pred holds; the seconds it
  // took (the kubelet may set its wait a moment after the status shows).
  auto seconds_until = [&](const std::function<bool(const json&)>& pred) {
    for (int s = 1; s <= 30; ++s) {
      clock_.Advance(std::chrono::seconds(1));
      auto deadline = std::chrono::steady_clock::now() + milliseconds(300);
      while (std::chrono::steady_clock::now() < deadline) {
        auto p = registry_->Get(*res_.pods, "default", "needs");
        if (p.ok() && pred(*p)) return s;
        std::this_thread::sleep_for(milliseconds(10));
      }
    }
    return -1;
  };
  ASSERT_TRUE(registry_
                  ->Create(*res_.configmaps, "default",
                           ConfigMap("special", {{"other", "1"}}), {})
                  .ok());
  int waited = seconds_until([](const json& p) {
    return WaitingMessage(p) ==
           "couldn't find key level in ConfigMap default/special";
  });
  EXPECT_GE(waited, 10);
  EXPECT_LE(waited, 11);
  ASSERT_TRUE(registry_
                  ->Update(*res_.configmaps, "default", "special", "",
                           ConfigMap("special", {{"level", "high"}}), {})
                  .ok());
  waited = seconds_until([](const json& p) {
    return p["status"].value("phase", "") == "Running";
  });
  EXPECT_GE(waited, 10);
  EXPECT_LE(waited, 11);
  pod = WaitForPod("needs", [](const json& p) {
    return p["status"].value("phase", "") == "Running";
  });
  auto c = cm_->kubelets()->Find("default", "needs",
                                 pod["metadata"].value("uid", ""), "c1", false);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->Log().lines.at(0).text, "level=high\n");
  int failed = 0;
  for (const auto& e : EventsFor("needs")) {
    if (e["reason"] == "Failed") {
      EXPECT_EQ(e["type"], "Warning");
      failed += e.value("count", 1);
    }
  }
  EXPECT_EQ(failed, 2);
}

// A configMap volume whose ConfigMap is missing holds the pod in
// ContainerCreating with FailedMount events on the volume manager's
// back-off (500 ms, doubling) until it is made.
TEST_F(ControllerManagerTest, MissingConfigMapVolumeHoldsThePodBack) {
  StartCluster();
  json spec = NginxSpec();
  spec["containers"][0]["volumeMounts"] = {
      {{"name", "cfg"}, {"mountPath", "/etc/config"}}};
  spec["volumes"] = {{{"name", "cfg"}, {"configMap", {{"name", "app"}}}}};
  CreatePod("web", spec);
  json pod = WaitForPod("web", [](const json& p) {
    return WaitingReason(p) == "ContainerCreating";
  });
  EXPECT_EQ(pod["status"]["phase"], "Pending");
  EXPECT_FALSE(pod["status"].contains("podIP"));
  clock_.Advance(milliseconds(500));
  auto mounts = [&] {
    int n = 0;
    for (const auto& e : EventsFor("web")) {
      if (e["reason"] != "FailedMount") continue;
      EXPECT_EQ(e["message"],
                "MountVolume.SetUp failed for volume \"cfg\" : configmap "
                "\"app\" not found");
      n += e.value("count", 1);
    }
    return n;
  };
  // The retry comes 500 ms after the first try (a step more if the
  // kubelet set its wait after the status showed).
  for (int step = 0; step < 2 && mounts() < 2; ++step) {
    auto deadline = std::chrono::steady_clock::now() + milliseconds(2000);
    while (mounts() < 2 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(milliseconds(20));
    if (mounts() < 2) clock_.Advance(milliseconds(500));
  }
  EXPECT_EQ(mounts(), 2);
  ASSERT_TRUE(registry_
                  ->Create(*res_.configmaps, "default",
                           ConfigMap("app", {{"color", "blue"}}), {})
                  .ok());
  clock_.Advance(milliseconds(1000));
  WaitForPod("web", [](const json& p) {
    return p["status"].value("phase", "") == "Running";
  });
}

// A ConfigMap's change reaches the files of a volume at the kubelet's
// next periodic sync of the pod (60 s from its start), not before; a
// subPath mount keeps what it was given.
TEST_F(ControllerManagerTest, ConfigMapChangeReachesTheVolumeAtTheNextSync) {
  StartCluster();
  ASSERT_TRUE(registry_
                  ->Create(*res_.configmaps, "default",
                           ConfigMap("app", {{"color", "blue"}}), {})
                  .ok());
  json spec = NginxSpec();
  spec["containers"][0]["volumeMounts"] = {
      {{"name", "cfg"}, {"mountPath", "/etc/config"}},
      {{"name", "cfg"}, {"mountPath", "/etc/color"}, {"subPath", "color"}}};
  spec["volumes"] = {{{"name", "cfg"}, {"configMap", {{"name", "app"}}}}};
  CreatePod("web", spec);
  json pod = WaitForPod("web", [](const json& p) {
    return p["status"].value("phase", "") == "Running";
  });
  auto c = cm_->kubelets()->Find("default", "web",
                                 pod["metadata"].value("uid", ""), "c1", false);
  ASSERT_NE(c, nullptr);
  auto cat = [&](const std::string& path) {
    return c->Exec({"cat", path}, clock_.Now()).out;
  };
  EXPECT_EQ(cat("/etc/config/color"), "blue");
  ASSERT_TRUE(registry_
                  ->Update(*res_.configmaps, "default", "app", "",
                           ConfigMap("app", {{"color", "red"}}), {})
                  .ok());
  std::this_thread::sleep_for(milliseconds(200));
  EXPECT_EQ(cat("/etc/config/color"), "blue");
  clock_.Advance(std::chrono::seconds(60));
  auto deadline = std::chrono::steady_clock::now() + milliseconds(5000);
  while (cat("/etc/config/color") != "red" &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(milliseconds(20));
  EXPECT_EQ(cat("/etc/config/color"), "red");
  EXPECT_EQ(cat("/etc/color"), "blue");
}

// hostPath volumes show the node's disk: its own files, and what one pod
// of the node wrote is what another reads.
TEST_F(ControllerManagerTest, HostPathVolumesShareTheNodesDisk) {
  StartCluster();
  auto pinned = [&](const std::string& name, bool read_only) {
    json spec = BusyboxSpec({"sleep", "3600"});
    spec["nodeName"] = "worker-1";
    spec["containers"][0]["volumeMounts"] = {
        {{"name", "data"}, {"mountPath", "/data"}, {"readOnly", read_only}},
        {{"name", "etc"}, {"mountPath", "/host-etc"}}};
    spec["volumes"] = {
        {{"name", "data"}, {"hostPath", {{"path", "/srv/data"}}}},
        {{"name", "etc"}, {"hostPath", {{"path", "/etc"}}}}};
    json pod = CreatePod(name, spec);
    pod = WaitForPod(name, [](const json& p) {
      return p["status"].value("phase", "") == "Running";
    });
    auto c = cm_->kubelets()->Find(
        "default", name, pod["metadata"].value("uid", ""), "c1", false);
    EXPECT_NE(c, nullptr);
    return c;
  };
  auto writer = pinned("writer", false);
  auto reader = pinned("reader", true);
  ASSERT_TRUE(writer && reader);
  auto run = [&](const std::shared_ptr<sim::Container>& c,
                 const std::string& script) {
    return c->Exec({"sh", "-c", script}, clock_.Now());
  };
  EXPECT_EQ(run(reader, "cat /host-etc/hostname").out, "worker-1\n");
  EXPECT_EQ(run(writer, "echo hello > /data/note").exit_code, 0);
  EXPECT_EQ(run(reader, "cat /data/note").out, "hello\n");
  auto refused = run(reader, "echo no > /data/other");
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("Read-only file system"), std::string::npos)
      << refused.err;
}

TEST_F(ControllerManagerTest, PacedClusterIsReadyWithoutWaiting) {
  // Every step of a learner's pod takes a minute, but the control plane was
  // already running when the cluster came up: ready at once, the fake clock
  // never advanced.
  ClusterSpec paced = DefaultCluster();
  paced.pacing = lifecycle::StagePacing::Uniform(std::chrono::minutes(1), 0);
  ControllerManagerOptions opts;
  cm_ = std::make_unique<ControllerManager>(registry_.get(), &clock_, &rng_,
                                            paced, opts);
  ASSERT_TRUE(cm_->Start().ok());
  EXPECT_TRUE(cm_->WaitForClusterReady(milliseconds(10000)).ok());
  CreatePod("paced", NginxSpec());
  std::this_thread::sleep_for(milliseconds(200));
  auto p = registry_->Get(*res_.pods, "default", "paced");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)["status"]["phase"], "Pending");
}

TEST_F(ControllerManagerTest, HeartbeatsRenewLeasesAndReportStatusOnTime) {
  ControllerManagerOptions opts;
  opts.heartbeats = false;  // driven by hand below
  StartCluster(opts);
  std::vector<std::string> nodes;
  for (const auto& n : cm_->cluster().nodes) nodes.push_back(n.name);
  ASSERT_GE(nodes.size(), 2u);
  NodeHeartbeats hb(registry_.get(), &clock_, res_, nodes);
  auto renew_time = [&](const std::string& node) {
    auto l = registry_->Get(*res_.leases, "kube-node-lease", node);
    EXPECT_TRUE(l.ok()) << node << ": " << l.status().ToString();
    return l.ok() ? (*l)["spec"].value("renewTime", "") : "";
  };
  auto heartbeat_time = [&](const std::string& node) {
    auto n = registry_->Get(*res_.nodes, "", node);
    EXPECT_TRUE(n.ok()) << node;
    return n.ok()
               ? (*n)["status"]["conditions"][0].value("lastHeartbeatTime", "")
               : "";
  };
  const TimePoint t0 = clock_.Now();
  ASSERT_TRUE(hb.Beat().ok());
  std::vector<std::string> reported;
  for (const auto& n : nodes) {
    EXPECT_EQ(renew_time(n), FormatRfc3339Micro(t0)) << n;
    reported.push_back(heartbeat_time(n));
  }
  // Beat every second for 30 s: each node renews once in its first 10 s,
  // every 10 s after that, and not all in the same second.
  std::map<std::string, std::vector<int>> renewed_at;  // seconds after t0
  std::map<std::string, std::string> last;
  for (const auto& n : nodes) last[n] = renew_time(n);
  for (int sec = 1; sec <= 30; ++sec) {
    clock_.Advance(std::chrono::seconds(1));
    ASSERT_TRUE(hb.Beat().ok());
    for (const auto& n : nodes) {
      std::string t = renew_time(n);
      if (t == last[n]) continue;
      EXPECT_EQ(t, FormatRfc3339Micro(t0 + std::chrono::seconds(sec))) << n;
      renewed_at[n].push_back(sec);
      last[n] = t;
    }
  }
  std::set<int> first_renewals;
  for (const auto& n : nodes) {
    const auto& at = renewed_at[n];
    ASSERT_EQ(at.size(), 3u) << n;
    EXPECT_GE(at[0], 1) << n;
    EXPECT_LE(at[0], 10) << n;
    EXPECT_EQ(at[1] - at[0], 10) << n;
    EXPECT_EQ(at[2] - at[1], 10) << n;
    first_renewals.insert(at[0]);
  }
  EXPECT_GT(first_renewals.size(), 1u);
  // Status waits for its own, longer period.
  for (size_t i = 0; i < nodes.size(); ++i) {
    EXPECT_EQ(heartbeat_time(nodes[i]), reported[i]);
  }
  // A late beat renews every node at once; the nodes keep their own
  // schedules instead of renewing together from then on.
  clock_.Advance(std::chrono::seconds(10));  // t0 + 40
  ASSERT_TRUE(hb.Beat().ok());
  for (const auto& n : nodes) last[n] = renew_time(n);
  std::set<int> after_late;
  for (int sec = 41; sec <= 50; ++sec) {
    clock_.Advance(std::chrono::seconds(1));
    ASSERT_TRUE(hb.Beat().ok());
    for (const auto& n : nodes) {
      std::string t = renew_time(n);
      if (t != last[n]) after_late.insert(sec);
      last[n] = t;
    }
  }
  EXPECT_GT(after_late.size(), 1u);
  clock_.Advance(std::chrono::seconds(250));
  ASSERT_TRUE(hb.Beat().ok());
  for (const auto& n : nodes) {
    EXPECT_EQ(heartbeat_time(n), FormatRfc3339(t0 + std::chrono::seconds(300)));
  }
}

// A renewal that fails is retried as a kubelet retries it, after 200 ms
// doubling up to 7 s, not at every poll of the heartbeat loop.
TEST_F(ControllerManagerTest, FailedRenewalsBackOff) {
  // No Node object: the lease cannot be created.
  NodeHeartbeats hb(registry_.get(), &clock_, res_, {"ghost"});
  std::vector<int> attempts_at_ms;
  for (int ms = 0; ms <= 16000; ms += 50) {
    if (!hb.Beat().ok()) attempts_at_ms.push_back(ms);
    clock_.Advance(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(attempts_at_ms,
            (std::vector<int>{0, 200, 600, 1400, 3000, 6200, 12600}));
}

}  // namespace
}  // namespace kmock::controllers
