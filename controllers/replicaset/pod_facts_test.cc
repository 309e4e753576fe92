// PodFacts: what is read of a pod, and when the cache may reuse it.
#include "controllers/replicaset/pod_facts.h"

#include <gtest/gtest.h>

namespace kmock::controllers::replicaset {
namespace {

std::shared_ptr<const json> PodOwnedBy(const std::string& owner_uid,
                                       bool ready) {
  json pod = json::parse(R"({"metadata":{"name":"p","labels":{"app":"web",
      "tier":"front"}},"status":{"phase":"Running","conditions":[
      {"type":"Ready","status":"False",
       "lastTransitionTime":"2027-01-15T08:00:00Z"}]}})");
  if (!owner_uid.empty())
    pod["metadata"]["ownerReferences"] = {
        {{"uid", owner_uid}, {"controller", true}}};
  if (ready) pod["status"]["conditions"][0]["status"] = "True";
  return std::make_shared<const json>(std::move(pod));
}

class PodFactsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto sel = registry::LabelSelector::FromJson(
        json::parse(R"({"matchLabels":{"app":"web"}})"));
    ASSERT_TRUE(sel.ok());
    selector_ = std::move(sel).value();
    view_.uid = "rs-1";
    view_.selector = &selector_;
    view_.template_labels = &labels_;
  }
  registry::LabelSelector selector_;
  json labels_ = json::parse(R"({"app":"web","tier":"front"})");
  SetView view_;
};

TEST_F(PodFactsTest, ReadsWhatTheSyncNeeds) {
  PodFacts f = FactsOf(*PodOwnedBy("rs-1", true), view_);
  EXPECT_TRUE(f.active);
  EXPECT_TRUE(f.matches_selector);
  EXPECT_TRUE(f.labeled);
  EXPECT_TRUE(f.has_controller);
  EXPECT_TRUE(f.controlled_here);
  EXPECT_TRUE(f.ready);
  ASSERT_TRUE(f.ready_since.has_value());

  PodFacts other = FactsOf(*PodOwnedBy("rs-2", false), view_);
  EXPECT_TRUE(other.has_controller);
  EXPECT_FALSE(other.controlled_here);
  EXPECT_FALSE(other.ready);
  EXPECT_FALSE(other.ready_since.has_value());

  json more = json::parse(R"({"app":"web","tier":"back"})");
  SetView v = view_;
  v.template_labels = &more;
  EXPECT_FALSE(FactsOf(*PodOwnedBy("", false), v).labeled);
  EXPECT_FALSE(FactsOf(*PodOwnedBy("", false), v).has_controller);
}

TEST_F(PodFactsTest, CacheReusesOnlyTheSameObjectOfTheSameSet) {
  PodFactsCache cache;
  auto pod = PodOwnedBy("rs-1", false);
  auto facts = cache.For("ns/rs", 1, view_, {pod});
  ASSERT_EQ(facts.size(), 1u);
  EXPECT_FALSE(facts[0].ready);

  // The same object: its facts are reused, even under a view that would
  // now read it differently (which proves they were not recomputed).
  SetView other_uid = view_;
  other_uid.uid = "rs-9";
  SetView same_uid_differs = other_uid;
  same_uid_differs.uid = "rs-1";
  json back = json::parse(R"({"tier":"back"})");
  same_uid_differs.template_labels = &back;
  EXPECT_TRUE(cache.For("ns/rs", 1, same_uid_differs, {pod})[0].labeled);
  // A new generation or another uid starts over.
  EXPECT_FALSE(cache.For("ns/rs", 2, same_uid_differs, {pod})[0].labeled);
  EXPECT_FALSE(cache.For("ns/rs", 2, other_uid, {pod})[0].controlled_here);

  // A changed pod is a new object: read anew.
  auto now_ready = PodOwnedBy("rs-1", true);
  facts = cache.For("ns/rs", 2, view_, {now_ready});
  EXPECT_TRUE(facts[0].ready);
  cache.Forget("ns/rs");
  EXPECT_TRUE(cache.For("ns/rs", 2, view_, {now_ready})[0].controlled_here);
}

TEST_F(PodFactsTest, CacheForgetsObjectsLeftOutOfACall) {
  PodFactsCache cache;
  auto a = PodOwnedBy("rs-1", false);
  auto b = PodOwnedBy("rs-1", false);
  cache.For("ns/rs", 1, view_, {a, b});
  // b leaves the set (replaced, or released): the next call drops it.
  cache.For("ns/rs", 1, view_, {a});

  // A view that reads every pod differently: a's facts are the cached
  // ones, b's are read anew since it was dropped.
  SetView reads_back = view_;
  json back = json::parse(R"({"tier":"back"})");
  reads_back.template_labels = &back;
  auto facts = cache.For("ns/rs", 1, reads_back, {a, b});
  ASSERT_EQ(facts.size(), 2u);
  EXPECT_TRUE(facts[0].labeled);
  EXPECT_FALSE(facts[1].labeled);

  // Keeping each object alive only through the cache: once out of a call,
  // the cache holds no reference to it.
  std::weak_ptr<const json> gone = b;
  b.reset();
  cache.For("ns/rs", 1, view_, {a});
  EXPECT_TRUE(gone.expired());
}

}  // namespace
}  // namespace kmock::controllers::replicaset
