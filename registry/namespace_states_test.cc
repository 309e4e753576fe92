// NamespaceStates against the real store: reads, the watch's news, and
// recovery when its watch has ended.
#include "registry/namespace_states.h"

#include <gtest/gtest.h>

#include "registry/test_registry.h"

namespace kmock::registry {
namespace {

using State = NamespaceStates::State;

constexpr char kPrefix[] = "/registry/namespaces/";

class NamespaceStatesTest : public ::testing::Test {
 protected:
  void Open(size_t queue_limit) {
    store::StorageOptions so;
    so.watcher_queue_limit = queue_limit;
    storage_ = registry::testing::OpenMemoryStore(so);
    ASSERT_NE(storage_, nullptr);
    states_ = std::make_unique<NamespaceStates>(storage_.get(), kPrefix);
  }
  static std::string Active(const std::string& name) {
    return R"({"metadata":{"name":")" + name +
           R"("},"status":{"phase":"Active"}})";
  }
  static std::string Terminating(const std::string& name) {
    return R"({"metadata":{"name":")" + name +
           R"(","deletionTimestamp":"2027-01-15T08:00:00Z"},)"
           R"("status":{"phase":"Terminating"}})";
  }
  State Look(const std::string& name) {
    auto r = states_->Lookup(name);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : State::kAbsent;
  }

  std::unique_ptr<store::Storage> storage_;
  std::unique_ptr<NamespaceStates> states_;
};

TEST_F(NamespaceStatesTest, FollowsEveryWriteBetweenLookups) {
  Open(1000);
  EXPECT_EQ(Look("lab"), State::kAbsent);
  auto c = storage_->Create(std::string(kPrefix) + "lab", Active("lab"));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(Look("lab"), State::kActive);
  auto u = storage_->Update(std::string(kPrefix) + "lab", Terminating("lab"),
                            c->mod_revision);
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(Look("lab"), State::kTerminating);
  ASSERT_TRUE(storage_->Delete(std::string(kPrefix) + "lab", 0).ok());
  EXPECT_EQ(Look("lab"), State::kAbsent);
  ASSERT_TRUE(
      storage_->Create(std::string(kPrefix) + "lab", Active("lab")).ok());
  EXPECT_EQ(Look("lab"), State::kActive);
}

TEST_F(NamespaceStatesTest, StartsOverWhenItsWatchOverflowed) {
  Open(4);
  ASSERT_TRUE(storage_->Create(std::string(kPrefix) + "a", Active("a")).ok());
  EXPECT_EQ(Look("a"), State::kActive);
  // More news than the watch may queue while nobody looks: the watch ends,
  // and the view must not keep trusting what it knew.
  for (int i = 0; i < 10; ++i) {
    std::string n = "n" + std::to_string(i);
    ASSERT_TRUE(storage_->Create(std::string(kPrefix) + n, Active(n)).ok());
  }
  auto cur = storage_->Get(std::string(kPrefix) + "a");
  ASSERT_TRUE(cur.ok());
  ASSERT_TRUE(storage_
                  ->Update(std::string(kPrefix) + "a", Terminating("a"),
                           cur->mod_revision)
                  .ok());
  EXPECT_EQ(Look("a"), State::kTerminating);
  EXPECT_EQ(Look("n7"), State::kActive);
  ASSERT_TRUE(storage_->Delete(std::string(kPrefix) + "n7", 0).ok());
  EXPECT_EQ(Look("n7"), State::kAbsent);
}

TEST_F(NamespaceStatesTest, ReadsTerminationFromEitherMark) {
  EXPECT_FALSE(NamespaceStates::TerminatingJson(Active("x")));
  EXPECT_TRUE(NamespaceStates::TerminatingJson(Terminating("x")));
  EXPECT_TRUE(NamespaceStates::TerminatingJson(
      R"({"metadata":{"name":"x"},"status":{"phase":"Terminating"}})"));
  EXPECT_FALSE(NamespaceStates::TerminatingJson("not json"));
}

}  // namespace
}  // namespace kmock::registry
