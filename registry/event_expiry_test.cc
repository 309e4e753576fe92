// Events expire a TTL after their last write, against the real store and
// registry, on a fake clock.
#include "registry/event_expiry.h"

#include <gtest/gtest.h>

#include "api/builtin_catalog.h"
#include "registry/test_registry.h"

namespace kmock::registry {
namespace {

using nlohmann::json;
using std::chrono::minutes;

class EventExpiryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    storage_ = registry::testing::OpenMemoryStore();
    ASSERT_NE(storage_, nullptr);
    registry_ = std::make_unique<Registry>(storage_.get(), &clock_, &rng_);
    events_ = api::testing::BuiltinCatalog().Find("", "v1", "events");
    ASSERT_NE(events_, nullptr);
    ASSERT_TRUE(
        registry::testing::CreateNamespace(registry_.get(), "default").ok());
  }

  json Event(const std::string& name, const std::string& last) {
    return json{{"apiVersion", "v1"},
                {"kind", "Event"},
                {"metadata", {{"name", name}}},
                {"involvedObject", {{"kind", "Pod"}, {"name", "p"}}},
                {"reason", "Started"},
                {"message", "Started container c"},
                {"type", "Normal"},
                {"count", 1},
                {"firstTimestamp", last},
                {"lastTimestamp", last}};
  }
  std::string NowText() const { return FormatRfc3339(clock_.Now()); }
  void Write(const std::string& name) {
    ASSERT_TRUE(
        registry_->Create(*events_, "default", Event(name, NowText()), {})
            .ok());
  }
  bool Exists(const std::string& name) {
    return registry_->Get(*events_, "default", name).ok();
  }
  int Round(EventExpiry& e) {
    auto r = e.RunOnce(std::chrono::milliseconds(0));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : -1;
  }

  FakeClock clock_{TimePoint(std::chrono::seconds(1'800'000'000))};
  Rng rng_{1};
  std::unique_ptr<store::Storage> storage_;
  std::unique_ptr<Registry> registry_;
  const api::ResourceInfo* events_ = nullptr;
};

TEST_F(EventExpiryTest, EventsGoATtlAfterTheirLastWrite) {
  EventExpiry expiry(registry_.get(), &clock_, std::chrono::hours(1));
  Write("first");
  EXPECT_EQ(Round(expiry), 0);
  clock_.Advance(minutes(30));
  Write("second");
  EXPECT_EQ(Round(expiry), 0);
  EXPECT_EQ(expiry.tracked(), 2u);

  clock_.Advance(minutes(31));  // 61 min: first is due, second is not
  EXPECT_EQ(Round(expiry), 1);
  EXPECT_FALSE(Exists("first"));
  EXPECT_TRUE(Exists("second"));

  clock_.Advance(minutes(9));  // 70 min: second written again
  auto cur = registry_->Get(*events_, "default", "second");
  ASSERT_TRUE(cur.ok());
  json again = *cur;
  again["count"] = 2;
  again["lastTimestamp"] = NowText();
  ASSERT_TRUE(
      registry_->Update(*events_, "default", "second", "", again, {}).ok());
  EXPECT_EQ(Round(expiry), 0);

  clock_.Advance(minutes(30));  // 100 min: past its first write's expiry
  EXPECT_EQ(Round(expiry), 0);
  EXPECT_TRUE(Exists("second"));
  clock_.Advance(minutes(31));  // 131 min: an hour after its last write
  EXPECT_EQ(Round(expiry), 1);
  EXPECT_FALSE(Exists("second"));
  EXPECT_EQ(expiry.tracked(), 0u);
}

// More due events than one round of concurrent deletes takes: every due one
// goes, once; one written again meanwhile stays.
TEST_F(EventExpiryTest, ManyDueEventsAreDeletedTogether) {
  EventExpiry expiry(registry_.get(), &clock_, std::chrono::hours(1));
  const int count = 1200;
  for (int i = 0; i < count; ++i) Write("e" + std::to_string(i));
  EXPECT_EQ(Round(expiry), 0);
  EXPECT_EQ(expiry.tracked(), static_cast<size_t>(count));
  clock_.Advance(minutes(30));
  auto cur = registry_->Get(*events_, "default", "e700");
  ASSERT_TRUE(cur.ok());
  json again = *cur;
  again["count"] = 2;
  ASSERT_TRUE(
      registry_->Update(*events_, "default", "e700", "", again, {}).ok());
  EXPECT_EQ(Round(expiry), 0);
  clock_.Advance(minutes(31));
  EXPECT_EQ(Round(expiry), count - 1);
  EXPECT_EQ(expiry.tracked(), 1u);
  auto left = registry_->List(*events_, "default", {});
  ASSERT_TRUE(left.ok());
  ASSERT_EQ((*left)["items"].size(), 1u);
  EXPECT_EQ((*left)["items"][0]["metadata"]["name"], "e700");
}

TEST_F(EventExpiryTest, EventsStoredBeforeAStartExpireByTheirOwnTimes) {
  // Written while no expiry loop ran (an earlier server): two hours ago,
  // and twenty minutes ago.
  const TimePoint start = clock_.Now();
  clock_.Set(start - minutes(120));
  Write("old");
  clock_.Set(start - minutes(20));
  Write("recent");
  clock_.Set(start);
  EventExpiry expiry(registry_.get(), &clock_, std::chrono::hours(1));
  EXPECT_EQ(Round(expiry), 1);
  EXPECT_FALSE(Exists("old"));
  EXPECT_TRUE(Exists("recent"));
  clock_.Advance(minutes(39));
  EXPECT_EQ(Round(expiry), 0);
  clock_.Advance(minutes(2));
  EXPECT_EQ(Round(expiry), 1);
  EXPECT_FALSE(Exists("recent"));
}

TEST_F(EventExpiryTest, DeletedEventsAreForgotten) {
  EventExpiry expiry(registry_.get(), &clock_, std::chrono::hours(1));
  Write("gone");
  EXPECT_EQ(Round(expiry), 0);
  ASSERT_TRUE(registry_->Delete(*events_, "default", "gone", {}).ok());
  EXPECT_EQ(Round(expiry), 0);
  EXPECT_EQ(expiry.tracked(), 0u);
  clock_.Advance(minutes(61));
  EXPECT_EQ(Round(expiry), 0);
}

}  // namespace
}  // namespace kmock::registry
