// Test code only: what the fixtures of the single-controller tests share.
// A registry on an in-memory store with a fake clock and a seeded random
// source, the catalog's CoreResources, the namespace "default", and
// Eventually/Stays to wait on what controller threads do.
//
// Thread safety: set up and torn down on the test's thread; the helpers poll
// from it.
#ifndef KMOCK_CONTROLLERS_TESTS_CONTROLLER_FIXTURE_H_
#define KMOCK_CONTROLLERS_TESTS_CONTROLLER_FIXTURE_H_

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/rng.h"
#include "controllers/resources_lookup.h"
#include "registry/test_registry.h"

namespace kmock::controllers::testing {

class ControllerFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    storage_ = registry::testing::OpenMemoryStore();
    ASSERT_NE(storage_, nullptr);
    registry_ =
        std::make_unique<registry::Registry>(storage_.get(), &clock_, &rng_);
    auto res = CoreResources::Lookup(registry_->catalog());
    ASSERT_TRUE(res.ok()) << res.status().ToString();
    res_ = *res;
    ASSERT_TRUE(
        registry::testing::CreateNamespace(registry_.get(), "default").ok());
  }
  // Subclasses stop their controllers first, then call this.
  void TearDown() override {
    registry_.reset();
    if (storage_) storage_->Close();
  }

  // The stored objects of `res` in `ns` (none when the list fails).
  std::vector<nlohmann::json> Items(const api::ResourceInfo& res,
                                    const std::string& ns = "default") {
    auto list = registry_->List(res, ns, {});
    std::vector<nlohmann::json> out;
    if (list.ok()) {
      for (const nlohmann::json& item : (*list)["items"]) out.push_back(item);
    }
    return out;
  }

  // Polls pred (real time) until it holds or 10 s pass.
  static bool Eventually(const std::function<bool()>& pred) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      if (pred()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return pred();
  }
  // pred holds for 300 ms of real time.
  static bool Stays(const std::function<bool()>& pred) {
    auto deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
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
};

}  // namespace kmock::controllers::testing

#endif  // KMOCK_CONTROLLERS_TESTS_CONTROLLER_FIXTURE_H_
