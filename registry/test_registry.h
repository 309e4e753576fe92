// Test code only: what the fixtures of the registry, the controllers and the
// API server share. A store on RocksDB's memory environment (nothing on
// disk, no fsync, no periodic compaction: a test compacts when it means
// to), and the namespace most tests create first.
//
// Thread safety: called from the test's own thread while setting up.
#ifndef KMOCK_REGISTRY_TEST_REGISTRY_H_
#define KMOCK_REGISTRY_TEST_REGISTRY_H_

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "api/resource.h"
#include "common/clock.h"
#include "common/rng.h"
#include "registry/registry.h"
#include "store/storage.h"

namespace kmock::registry::testing {

// An in-memory store with `so`'s other options; null, with the test
// failed, when it cannot be opened.
inline std::unique_ptr<store::Storage> OpenMemoryStore(
    store::StorageOptions so = store::StorageOptions()) {
  so.in_memory = true;
  so.sync = false;
  so.compaction_interval = std::chrono::milliseconds(0);
  auto s = store::OpenRocksStorage(so);
  if (!s.ok()) {
    ADD_FAILURE() << "opening an in-memory store: " << s.status().ToString();
    return nullptr;
  }
  return std::move(s).value();
}

// Creates the namespace `name` through the registry.
inline Status CreateNamespace(Registry* registry, const std::string& name) {
  const api::ResourceInfo* namespaces =
      registry->catalog().Find("", "v1", "namespaces");
  if (namespaces == nullptr) return Status(StatusCode::kNotFound, "namespaces");
  return registry
      ->Create(*namespaces, "", nlohmann::json{{"metadata", {{"name", name}}}},
               {})
      .status();
}

// A registry on an in-memory store with a fake clock (1,800,000,000 s after
// the epoch) and a seeded random source, for tests that drive it directly.
class RegistryFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    storage_ = OpenMemoryStore();
    ASSERT_NE(storage_, nullptr);
    registry_ = std::make_unique<Registry>(storage_.get(), &clock_, &rng_);
  }

  FakeClock clock_{TimePoint(std::chrono::seconds(1'800'000'000))};
  Rng rng_{1};
  std::unique_ptr<store::Storage> storage_;
  std::unique_ptr<Registry> registry_;
};

}  // namespace kmock::registry::testing

#endif  // KMOCK_REGISTRY_TEST_REGISTRY_H_
