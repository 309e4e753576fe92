// Test-only fixture for the garbage collector and namespace controller
// tests: an in-memory store, the real registry on a FakeClock, the
// controller manager (so pods go through their kubelets' graceful
// deletion), and polling helpers that advance the fake clock.
//
// Thread safety: used from the test thread only.
#ifndef KMOCK_CONTROLLERS_GC_TEST_HARNESS_H_
#define KMOCK_CONTROLLERS_GC_TEST_HARNESS_H_

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "controllers/controller_manager.h"
#include "registry/test_registry.h"

namespace kmock::controllers {

class GcTestHarness : public ::testing::Test {
 protected:
  using json = nlohmann::json;

  void SetUp() override {
    storage_ = registry::testing::OpenMemoryStore();
    ASSERT_NE(storage_, nullptr);
    registry_ =
        std::make_unique<registry::Registry>(storage_.get(), &clock_, &rng_);
    auto res = CoreResources::Lookup(registry_->catalog());
    ASSERT_TRUE(res.ok()) << res.status().ToString();
    res_ = *res;
    ControllerManagerOptions opts;
    opts.heartbeats = false;
    // The tests make their own collector and namespace controller: the
    // controller manager's would do their work and hide their faults.
    opts.garbage_collector = false;
    opts.namespace_controller = false;
    cm_ = std::make_unique<ControllerManager>(registry_.get(), &clock_, &rng_,
                                              DefaultCluster(), opts);
    Status started = cm_->Start();
    ASSERT_TRUE(started.ok()) << started.ToString();
    Status ready = cm_->WaitForClusterReady(std::chrono::milliseconds(20000));
    ASSERT_TRUE(ready.ok()) << ready.ToString();
  }

  void TearDown() override {
    StopControllers();
    if (cm_) cm_->Stop();
    cm_.reset();
    registry_.reset();
    if (storage_) storage_->Close();
  }

  // Stops what the test started before the controller manager goes.
  virtual void StopControllers() {}

  json Create(const api::ResourceInfo& res, const std::string& ns, json obj) {
    auto r =
        registry_->Create(res, ns, std::move(obj), registry::WriteOptions{});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->object : json();
  }

  json Lease(const std::string& ns, const std::string& name,
             json owners = json::array(), json finalizers = json::array()) {
    json md = {{"name", name}, {"namespace", ns}};
    if (!owners.empty()) md["ownerReferences"] = owners;
    if (!finalizers.empty()) md["finalizers"] = finalizers;
    return Create(*res_.leases, ns,
                  {{"apiVersion", "coordination.k8s.io/v1"},
                   {"kind", "Lease"},
                   {"metadata", md},
                   {"spec", {{"holderIdentity", name}}}});
  }

  json Pod(const std::string& ns, const std::string& name,
           json owners = json::array()) {
    json md = {{"name", name}, {"namespace", ns}};
    if (!owners.empty()) md["ownerReferences"] = owners;
    return Create(
        *res_.pods, ns,
        {{"apiVersion", "v1"},
         {"kind", "Pod"},
         {"metadata", md},
         {"spec", {{"containers", {{{"name", "c1"}, {"image", "nginx"}}}}}}});
  }

  json Service(const std::string& ns, const std::string& name) {
    return Create(*res_.services, ns,
                  {{"apiVersion", "v1"},
                   {"kind", "Service"},
                   {"metadata", {{"name", name}, {"namespace", ns}}},
                   {"spec", {{"ports", {{{"port", 80}}}}}}});
  }

  json Namespace(const std::string& name) {
    return Create(*res_.namespaces, "",
                  {{"apiVersion", "v1"},
                   {"kind", "Namespace"},
                   {"metadata", {{"name", name}}}});
  }

  // An ownerReference to obj (a served object with apiVersion and kind).
  static json RefTo(const json& obj, bool block = false) {
    json r = {{"apiVersion", obj["apiVersion"]},
              {"kind", obj["kind"]},
              {"name", obj["metadata"]["name"]},
              {"uid", obj["metadata"]["uid"]}};
    if (block) r["blockOwnerDeletion"] = true;
    return r;
  }

  Status Delete(const api::ResourceInfo& res, const std::string& ns,
                const std::string& name, const std::string& policy = "") {
    registry::DeleteOptions opts;
    opts.propagation_policy = policy;
    auto r = registry_->Delete(res, ns, name, opts);
    return r.ok() ? Status::Ok() : r.status();
  }

  // The object, or null when it is not found.
  json Get(const api::ResourceInfo& res, const std::string& ns,
           const std::string& name) {
    auto r = registry_->Get(res, ns, name);
    return r.ok() ? *r : json();
  }

  // Polls (advancing the fake clock by `step` each time) until pred holds.
  bool Eventually(
      const std::function<bool()>& pred,
      std::chrono::milliseconds step = std::chrono::milliseconds(0),
      std::chrono::milliseconds timeout = std::chrono::milliseconds(10000)) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (pred()) return true;
      if (step.count() > 0) clock_.Advance(step);
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return pred();
  }

  bool Gone(const api::ResourceInfo& res, const std::string& ns,
            const std::string& name,
            std::chrono::milliseconds step = std::chrono::milliseconds(0)) {
    return Eventually([&] { return Get(res, ns, name).is_null(); }, step);
  }

  // Stays true for a while (real time): for what must not happen.
  bool Stays(const std::function<bool()>& pred,
             std::chrono::milliseconds d = std::chrono::milliseconds(300)) {
    auto deadline = std::chrono::steady_clock::now() + d;
    while (std::chrono::steady_clock::now() < deadline) {
      if (!pred()) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return pred();
  }

  FakeClock clock_{std::chrono::system_clock::from_time_t(1735725600)};
  Rng rng_{42};
  std::unique_ptr<store::Storage> storage_;
  std::unique_ptr<registry::Registry> registry_;
  CoreResources res_;
  std::unique_ptr<ControllerManager> cm_;
};

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_GC_TEST_HARNESS_H_
