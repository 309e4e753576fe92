// The ReplicaSet and Deployment controllers inside the controller manager:
// an in-memory store, the real registry and a FakeClock.
#include "controllers/deployment_controller.h"

#include <gtest/gtest.h>

#include <functional>
#include <thread>

#include "controllers/apps/object_util.h"
#include "controllers/controller_manager.h"
#include "controllers/deployment/revision.h"
#include "controllers/informer.h"
#include "controllers/replicaset_controller.h"
#include "registry/test_registry.h"

namespace kmock::controllers {
namespace {

using std::chrono::milliseconds;

class DeploymentControllerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    storage_ = registry::testing::OpenMemoryStore();
    ASSERT_NE(storage_, nullptr);
    registry_ =
        std::make_unique<registry::Registry>(storage_.get(), &clock_, &rng_);
    auto res = CoreResources::Lookup(registry_->catalog());
    ASSERT_TRUE(res.ok()) << res.status().ToString();
    res_ = *res;
    ASSERT_NE(res_.deployments, nullptr);
  }
  void TearDown() override {
    if (cm_) cm_->Stop();
    cm_.reset();
    registry_.reset();
    if (storage_) storage_->Close();
  }

  void StartCluster(ClusterSpec cluster = DefaultCluster()) {
    ControllerManagerOptions opts;
    opts.heartbeat.poll = milliseconds(10);
    cm_ = std::make_unique<ControllerManager>(registry_.get(), &clock_, &rng_,
                                              cluster, opts);
    ASSERT_TRUE(cm_->Start().ok());
    ASSERT_TRUE(cm_->WaitForClusterReady(milliseconds(20000)).ok());
  }

  json CreateDeployment(const std::string& name, int replicas,
                        json strategy = json::object()) {
    json d = {
        {"apiVersion", "apps/v1"},
        {"kind", "Deployment"},
        {"metadata", {{"name", name}, {"namespace", "default"}}},
        {"spec",
         {{"replicas", replicas},
          {"selector", {{"matchLabels", {{"app", name}}}}},
          {"template",
           {{"metadata", {{"labels", {{"app", name}}}}},
            {"spec",
             {{"containers", {{{"name", "nginx"}, {"image", "nginx"}}}}}}}}}}};
    if (!strategy.empty()) d["spec"]["strategy"] = strategy;
    auto r = registry_->Create(*res_.deployments, "default", d, {});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->object : json();
  }

  void Patch(const std::string& name, const std::string& body) {
    auto r = registry_->Patch(*res_.deployments, "default", name, "",
                              registry::PatchType::kMergePatch, body, {});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  // tick: how far the fake clock moves on each poll, so that retries
  // waiting on it (backoffs) come due as they would in real time.
  json WaitForDeployment(const std::string& name,
                         const std::function<bool(const json&)>& pred,
                         milliseconds timeout = milliseconds(15000),
                         milliseconds tick = milliseconds(0)) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    json last;
    while (std::chrono::steady_clock::now() < deadline) {
      auto d = registry_->Get(*res_.deployments, "default", name);
      if (d.ok()) {
        last = *d;
        if (pred(last)) return last;
      }
      std::this_thread::sleep_for(milliseconds(10));
      if (tick.count() > 0) clock_.Advance(tick);
    }
    ADD_FAILURE() << "deployment never got there; last: " << last.dump();
    return last;
  }

  std::vector<json> Items(const api::ResourceInfo* res) {
    auto l = registry_->List(*res, "default", {});
    EXPECT_TRUE(l.ok());
    return l.ok() ? (*l)["items"].get<std::vector<json>>()
                  : std::vector<json>{};
  }

  // Polls pred every 5 ms until it holds or `timeout` passes.
  static bool WaitFor(const std::function<bool()>& pred,
                      milliseconds timeout = milliseconds(5000)) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!pred() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(milliseconds(5));
    }
    return pred();
  }

  // Without StartCluster nothing creates the namespace.
  void CreateDefaultNamespace() {
    auto r = registry_->Create(*res_.namespaces, "",
                               {{"apiVersion", "v1"},
                                {"kind", "Namespace"},
                                {"metadata", {{"name", "default"}}}},
                               {});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  // A DeploymentController on informers of its own and nothing else of the
  // control plane: no pods start, and each sync is the test's to call.
  struct LoneController {
    explicit LoneController(DeploymentControllerTest* t)
        : pods(t->registry_.get(), t->res_.pods),
          replicasets(t->registry_.get(), t->res_.replicasets),
          deployments(t->registry_.get(), t->res_.deployments) {
      pods.AddIndex(kByNamespaceIndex, NamespaceIndex);
      controller = std::make_unique<DeploymentController>(
          t->registry_.get(), &t->clock_, t->res_, &pods, &replicasets,
          &deployments);
    }
    ~LoneController() {
      for (Informer* i : {&pods, &replicasets, &deployments}) i->Stop();
    }
    bool Start() {
      for (Informer* i : {&pods, &replicasets, &deployments}) {
        i->Start();
        if (!i->WaitForSync(milliseconds(5000))) return false;
      }
      return true;
    }
    Status Sync(const std::string& key) { return controller->Sync(key); }

    Informer pods, replicasets, deployments;
    std::unique_ptr<DeploymentController> controller;
  };

  FakeClock clock_{std::chrono::system_clock::from_time_t(1735725600)};
  Rng rng_{42};
  std::unique_ptr<store::Storage> storage_;
  std::unique_ptr<registry::Registry> registry_;
  CoreResources res_;
  std::unique_ptr<ControllerManager> cm_;
};

// What kubectl rollout status waits for.
bool RolledOut(const json& d) {
  const json& s = d.value("status", json::object());
  int64_t want = d["spec"].value("replicas", 1);
  int64_t updated = s.value("updatedReplicas", 0);
  for (const auto& c : s.value("conditions", json::array())) {
    if (c.value("reason", "") == "ProgressDeadlineExceeded") return false;
  }
  return d["metadata"].value("generation", 0) <=
             s.value("observedGeneration", 0) &&
         updated >= want && s.value("replicas", 0) <= updated &&
         s.value("availableReplicas", 0) >= updated;
}

const json* Cond(const json& d, const std::string& type) {
  if (!d.contains("status") || !d["status"].contains("conditions")) {
    return nullptr;
  }
  for (const auto& c : d["status"]["conditions"]) {
    if (c.value("type", "") == type) return &c;
  }
  return nullptr;
}

TEST_F(DeploymentControllerTest, CreatesReplicaSetAndPodsThenRollsOut) {
  StartCluster();
  CreateDeployment("web", 3);
  json d = WaitForDeployment("web", RolledOut);
  EXPECT_EQ(d["status"]["replicas"], 3);
  EXPECT_EQ(d["status"]["availableReplicas"], 3);
  EXPECT_EQ(d["metadata"]["annotations"][deployment::kRevisionAnnotation], "1");
  ASSERT_NE(Cond(d, "Available"), nullptr);
  EXPECT_EQ((*Cond(d, "Available"))["reason"], "MinimumReplicasAvailable");
  EXPECT_EQ((*Cond(d, "Progressing"))["reason"], "NewReplicaSetAvailable");

  auto rses = Items(res_.replicasets);
  ASSERT_EQ(rses.size(), 1u);
  const json rs = rses[0];
  std::string hash = rs["metadata"]["labels"]["pod-template-hash"];
  EXPECT_EQ(rs["metadata"]["name"], "web-" + hash);
  EXPECT_EQ(rs["spec"]["selector"]["matchLabels"]["pod-template-hash"], hash);
  EXPECT_EQ(rs["metadata"]["ownerReferences"][0]["kind"], "Deployment");
  EXPECT_EQ(rs["metadata"]["ownerReferences"][0]["blockOwnerDeletion"], true);
  EXPECT_EQ(
      rs["metadata"]["annotations"][deployment::kDesiredReplicasAnnotation],
      "3");
  EXPECT_EQ(rs["metadata"]["annotations"][deployment::kMaxReplicasAnnotation],
            "4");
  auto pods = Items(res_.pods);
  ASSERT_EQ(pods.size(), 3u);
  for (const auto& p : pods) {
    std::string name = p["metadata"]["name"];
    EXPECT_EQ(name.rfind("web-" + hash + "-", 0), 0u) << name;
    EXPECT_EQ(name.size(), ("web-" + hash + "-").size() + 5);
    EXPECT_EQ(p["status"]["phase"], "Running");
    EXPECT_NE(p["spec"]["nodeName"], "manage-1");
    EXPECT_EQ(p["metadata"]["ownerReferences"][0]["controller"], true);
  }

  // A deleted pod is replaced under a new name.
  std::string victim = pods[0]["metadata"]["name"];
  ASSERT_TRUE(registry_->Delete(*res_.pods, "default", victim, {}).ok());
  auto deadline = std::chrono::steady_clock::now() + milliseconds(10000);
  bool replaced = false;
  while (!replaced && std::chrono::steady_clock::now() < deadline) {
    int running = 0;
    bool victim_there = false;
    for (const auto& p : Items(res_.pods)) {
      if (p["metadata"]["name"] == victim) victim_there = true;
      if (p["status"].value("phase", "") == "Running") running++;
    }
    replaced = !victim_there && running == 3;
    std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_TRUE(replaced);

  // Image change: a second ReplicaSet takes over.
  Patch(
      "web",
      R"({"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.27"}]}}}})");
  d = WaitForDeployment("web", [](const json& d) {
    return d["metadata"].value("generation", 0) == 2 && RolledOut(d);
  });
  EXPECT_EQ(d["metadata"]["annotations"][deployment::kRevisionAnnotation], "2");
  rses = Items(res_.replicasets);
  ASSERT_EQ(rses.size(), 2u);
  int full = 0, empty = 0;
  for (const auto& r : rses) {
    if (r["spec"]["replicas"] == 3) full++;
    if (r["spec"]["replicas"] == 0) empty++;
  }
  EXPECT_EQ(full, 1);
  EXPECT_EQ(empty, 1);
  int scaling = 0;
  cm_->FlushEvents();  // events are written on the sink's threads
  for (const auto& e : Items(res_.events)) {
    if (e["reason"] == "ScalingReplicaSet") {
      scaling++;
      EXPECT_EQ(e["source"]["component"], "deployment-controller");
    }
  }
  EXPECT_GE(scaling, 3);

  // Undo: back to the first template, the old ReplicaSet reused as rev 3.
  Patch(
      "web",
      R"({"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx"}]}}}})");
  d = WaitForDeployment("web", [](const json& d) {
    return d["metadata"].value("generation", 0) == 3 && RolledOut(d);
  });
  EXPECT_EQ(d["metadata"]["annotations"][deployment::kRevisionAnnotation], "3");
  EXPECT_EQ(Items(res_.replicasets).size(), 2u);
  auto first = registry_->Get(*res_.replicasets, "default",
                              rs["metadata"]["name"].get<std::string>());
  ASSERT_TRUE(first.ok());
  EXPECT_EQ((*first)["metadata"]["annotations"]
                    [deployment::kRevisionHistoryAnnotation],
            "1");

  // History limit 0 removes the idle ReplicaSet.
  Patch("web", R"({"spec":{"revisionHistoryLimit":0}})");
  deadline = std::chrono::steady_clock::now() + milliseconds(10000);
  while (Items(res_.replicasets).size() != 1 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_EQ(Items(res_.replicasets).size(), 1u);

  // Scale down: 3 -> 1.
  Patch("web", R"({"spec":{"replicas":1}})");
  d = WaitForDeployment("web", [](const json& d) {
    return RolledOut(d) && d["status"].value("replicas", 0) == 1;
  });
}

// The controller decides on its informers' copies, which may lag the store
// (its own last write not yet seen, another writer's change). Like
// kube-controller-manager's Update calls, its writes carry the copy's
// resourceVersion: a decision made on a stale copy gets a Conflict and is
// retried on a fresh one, never written over newer state.
TEST_F(DeploymentControllerTest, DecisionsOnAStaleCacheAreNotWritten) {
  CreateDefaultNamespace();
  CreateDeployment("stale", 2);
  LoneController lone(this);
  ASSERT_TRUE(lone.Start());
  auto read_rs = [&] {
    auto l = Items(res_.replicasets);
    return l.size() == 1 ? l[0] : json();
  };

  // The first sync creates the ReplicaSet; the cache sees it, then stops.
  Status first = lone.Sync("default/stale");
  ASSERT_TRUE(first.ok()) << first.ToString();
  const json created = read_rs();
  ASSERT_TRUE(created.is_object());
  ASSERT_EQ(created["spec"]["replicas"], 2);
  const std::string rs_key =
      "default/" + created["metadata"]["name"].get<std::string>();
  ASSERT_TRUE(WaitFor([&] { return lone.replicasets.Get(rs_key) != nullptr; }));
  lone.replicasets.Stop();

  // Another writer changes the set; the Deployment is scaled to 4.
  auto other = registry_->GuaranteedUpdate(
      *res_.replicasets, "default",
      created["metadata"]["name"].get<std::string>(), "",
      [](json& rs) {
        rs["spec"]["replicas"] = 7;
        return Status::Ok();
      },
      {});
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  Patch("stale", R"({"spec":{"replicas":4}})");
  ASSERT_TRUE(WaitFor([&] {
    ObjectPtr d = lone.deployments.Get("default/stale");
    return d && (*d)["spec"].value("replicas", 0) == 4;
  }));

  // On the stale copy (2 replicas) the scale to 4 is refused, and the
  // other writer's 7 stays until the controller sees it.
  Status st = lone.Sync("default/stale");
  EXPECT_EQ(st.code(), StatusCode::kConflict) << st.ToString();
  EXPECT_NE(st.message().find("the object has been modified"),
            std::string::npos)
      << st.message();
  EXPECT_EQ(read_rs()["spec"]["replicas"], 7);

  // A controller on a fresh cache makes the same decision and it lands.
  LoneController fresh_lone(this);
  ASSERT_TRUE(fresh_lone.Start());
  ASSERT_TRUE(fresh_lone.Sync("default/stale").ok());
  EXPECT_EQ(read_rs()["spec"]["replicas"], 4);
}

// kubectl delete deployment --cascade=orphan leaves the ReplicaSet; a
// Deployment created again with the same template adopts it (no second
// set), and one whose selector stops matching lets it go.
TEST_F(DeploymentControllerTest, AdoptsAndReleasesReplicaSets) {
  StartCluster();
  CreateDeployment("keep", 2);
  WaitForDeployment("keep", RolledOut);
  auto rses = Items(res_.replicasets);
  ASSERT_EQ(rses.size(), 1u);
  const std::string rs_name = rses[0]["metadata"]["name"];
  registry::DeleteOptions orphan;
  orphan.propagation_policy = "Orphan";
  ASSERT_TRUE(
      registry_->Delete(*res_.deployments, "default", "keep", orphan).ok());
  auto owner_uid = [&]() -> std::string {
    auto rs = registry_->Get(*res_.replicasets, "default", rs_name);
    if (!rs.ok()) return "gone";
    const json* ref = apps::ControllerRefOf(*rs);
    return ref ? ref->value("uid", "") : "";
  };
  ASSERT_TRUE(WaitFor([&] { return owner_uid().empty(); }, milliseconds(10000)))
      << owner_uid();
  // The orphan finalizer goes after the dependents are released.
  ASSERT_TRUE(WaitFor([&] {
    return !registry_->Get(*res_.deployments, "default", "keep").ok();
  }));

  const json again = CreateDeployment("keep", 2);
  const std::string uid = again["metadata"]["uid"];
  ASSERT_TRUE(WaitFor([&] { return owner_uid() == uid; })) << owner_uid();
  WaitForDeployment("keep", RolledOut);
  EXPECT_EQ(Items(res_.replicasets).size(), 1u);

  // A selector the set no longer matches: released (and a new set made).
  // The selector is immutable, so the set's labels change instead.
  auto relabel = registry_->GuaranteedUpdate(
      *res_.replicasets, "default", rs_name, "",
      [](json& rs) {
        rs["metadata"]["labels"] = {{"app", "elsewhere"}};
        return Status::Ok();
      },
      {});
  ASSERT_TRUE(relabel.ok()) << relabel.status().ToString();
  EXPECT_TRUE(WaitFor([&] { return owner_uid().empty(); })) << owner_uid();
}

// A rolling update must never scale an old ReplicaSet back up. Its status
// can still count more available pods than its new, smaller size (the
// ReplicaSet controller has not yet removed the extra pods): the cleanup of
// unhealthy replicas then computed a negative scale-down, i.e. a scale-up
// (kubectl get rs -w showed DESIRED 3, 2, 3, 2). kube-controller-manager
// refuses that step with an error and retries; so does this controller.
TEST_F(DeploymentControllerTest, RollingUpdateNeverScalesAnOldSetUp) {
  CreateDefaultNamespace();
  CreateDeployment("lag", 3);
  LoneController lone(this);
  ASSERT_TRUE(lone.Start());
  auto set = [&](const std::string& name, const std::string& subresource,
                 const std::function<void(json&)>& f) {
    auto r = registry_->GuaranteedUpdate(*res_.replicasets, "default", name,
                                         subresource,
                                         [&](json& rs) {
                                           f(rs);
                                           return Status::Ok();
                                         },
                                         {});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  };
  // The cache has caught up with every ReplicaSet as stored.
  auto cache_current = [&] {
    for (const json& rs : Items(res_.replicasets)) {
      ObjectPtr cached = lone.replicasets.Get(
          "default/" + rs["metadata"]["name"].get<std::string>());
      if (!cached || (*cached)["metadata"]["resourceVersion"] !=
                         rs["metadata"]["resourceVersion"])
        return false;
    }
    return true;
  };
  // A set's status with n pods, all ready and available.
  auto all_available = [](int n, int generation) {
    return json{{"replicas", n},
                {"readyReplicas", n},
                {"availableReplicas", n},
                {"observedGeneration", generation}};
  };

  ASSERT_TRUE(lone.Sync("default/lag").ok());
  auto rses = Items(res_.replicasets);
  ASSERT_EQ(rses.size(), 1u);
  const std::string old_name = rses[0]["metadata"]["name"];
  set(old_name, "status",
      [&](json& rs) { rs["status"] = all_available(3, 1); });
  Patch(
      "lag",
      R"({"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:2"}]}}}})");
  ASSERT_TRUE(WaitFor([&] {
    ObjectPtr d = lone.deployments.Get("default/lag");
    return d && (*d)["metadata"].value("generation", 0) == 2;
  }));
  ASSERT_TRUE(WaitFor(cache_current));
  ASSERT_TRUE(lone.Sync("default/lag").ok());  // the new set, at 1
  rses = Items(res_.replicasets);
  ASSERT_EQ(rses.size(), 2u);
  std::string new_name = rses[0]["metadata"]["name"];
  if (new_name == old_name) new_name = rses[1]["metadata"]["name"];

  // Mid-rollout: old scaled to 2 but its status still shows 3 available;
  // new at 2 with 2 available.
  set(old_name, "", [](json& rs) { rs["spec"]["replicas"] = 2; });
  set(new_name, "", [](json& rs) { rs["spec"]["replicas"] = 2; });
  set(new_name, "status",
      [&](json& rs) { rs["status"] = all_available(2, 2); });
  ASSERT_TRUE(WaitFor(cache_current));
  Status st = lone.Sync("default/lag");
  EXPECT_EQ(st.code(), StatusCode::kInternal) << st.ToString();
  EXPECT_NE(st.message().find("got invalid request to scale down default/" +
                              old_name + " 2 -> 3"),
            std::string::npos)
      << st.message();
  auto old_rs = registry_->Get(*res_.replicasets, "default", old_name);
  ASSERT_TRUE(old_rs.ok());
  EXPECT_EQ((*old_rs)["spec"]["replicas"], 2);

  // Once its status has caught up, the old set goes on shrinking.
  set(old_name, "status",
      [&](json& rs) { rs["status"] = all_available(2, 1); });
  ASSERT_TRUE(WaitFor(cache_current));
  st = lone.Sync("default/lag");
  EXPECT_TRUE(st.ok()) << st.ToString();
  old_rs = registry_->Get(*res_.replicasets, "default", old_name);
  ASSERT_TRUE(old_rs.ok());
  EXPECT_EQ((*old_rs)["spec"]["replicas"], 1);
}

TEST_F(DeploymentControllerTest, RecreateAndPause) {
  StartCluster();
  CreateDeployment("rec", 2, {{"type", "Recreate"}});
  WaitForDeployment("rec", RolledOut);
  Patch(
      "rec",
      R"({"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.27"}]}}}})");
  json d = WaitForDeployment("rec", [](const json& d) {
    return d["metadata"].value("generation", 0) == 2 && RolledOut(d);
  });
  EXPECT_EQ(d["status"]["replicas"], 2);
  auto rses = Items(res_.replicasets);
  ASSERT_EQ(rses.size(), 2u);

  // Paused: a template change rolls nothing out, a scale still applies.
  Patch("rec", R"({"spec":{"paused":true}})");
  d = WaitForDeployment("rec", [](const json& d) {
    const json* p = Cond(d, "Progressing");
    return p != nullptr && (*p)["reason"] == "DeploymentPaused";
  });
  Patch(
      "rec",
      R"({"spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.28"}]}}}})");
  d = WaitForDeployment("rec", [](const json& d) {
    return d["status"].value("availableReplicas", 0) == 3;
  });
  EXPECT_EQ(Items(res_.replicasets).size(), 2u);
  Patch("rec", R"({"spec":{"paused":false}})");
  d = WaitForDeployment("rec", [](const json& d) {
    return d["metadata"].value("generation", 0) == 5 && RolledOut(d) &&
           d["metadata"]["annotations"].value(deployment::kRevisionAnnotation,
                                              "") == "3";
  });
  EXPECT_EQ(Items(res_.replicasets).size(), 3u);
}

TEST_F(DeploymentControllerTest, PodsThatNeverGetReadyExceedTheDeadline) {
  ClusterSpec slow = DefaultCluster();
  slow.pacing.pull = std::chrono::hours(1);
  StartCluster(slow);
  json d = CreateDeployment("stuck", 2);
  Patch("stuck", R"({"spec":{"progressDeadlineSeconds":30}})");
  // The controller must have synced the patched spec before the clock
  // jumps past the deadline.
  d = WaitForDeployment("stuck", [](const json& d) {
    return d["status"].value("replicas", 0) == 2 &&
           d["status"].value("observedGeneration", 0) == 2;
  });
  clock_.Advance(std::chrono::seconds(40));
  // Time goes on while we wait: a sync that lost a write race (its cache
  // behind its own last status write) is retried after a backoff measured
  // on this clock.
  d = WaitForDeployment(
      "stuck",
      [](const json& d) {
        const json* p = Cond(d, "Progressing");
        return p != nullptr && (*p)["reason"] == "ProgressDeadlineExceeded";
      },
      milliseconds(15000), milliseconds(100));
  const json* p = Cond(d, "Progressing");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ((*p)["status"], "False");
  EXPECT_EQ((*Cond(d, "Available"))["status"], "False");
}

}  // namespace
}  // namespace kmock::controllers
