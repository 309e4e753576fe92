// LimitRanger admission: defaults filled in and noted, min, max and ratio
// held per container and per pod, through the registry.
#include "registry/admission/limit_ranger.h"

#include <gtest/gtest.h>

#include "api/builtin_catalog.h"
#include "registry/registry.h"
#include "registry/test_registry.h"

namespace kmock::registry {
namespace {

using nlohmann::json;

json Range(json limits) {
  return {{"metadata", {{"name", "limits"}, {"namespace", "default"}}},
          {"spec", {{"limits", limits}}}};
}

json Pod(json resources = json::object()) {
  return {
      {"metadata", {{"name", "web"}}},
      {"spec",
       {{"containers",
         {{{"name", "web"}, {"image", "nginx"}, {"resources", resources}}}}}}};
}

TEST(LimitRangeDefaultsTest, FillsInWhatIsMissingAndSaysSo) {
  json range = Range({{{"type", "Container"},
                       {"default", {{"cpu", "500m"}, {"memory", "256Mi"}}},
                       {"defaultRequest", {{"cpu", "100m"}}}}});
  json pod = Pod({{"limits", {{"memory", "1Gi"}}}});
  ApplyLimitRangeDefaults(range, pod);
  const json& r = pod["spec"]["containers"][0]["resources"];
  EXPECT_EQ(r["limits"], (json{{"cpu", "500m"}, {"memory", "1Gi"}}));
  EXPECT_EQ(r["requests"], (json{{"cpu", "100m"}}));
  EXPECT_EQ(pod["metadata"]["annotations"]["kubernetes.io/limit-ranger"],
            "LimitRanger plugin set: cpu request for container web; cpu "
            "limit for container web");
}

TEST(LimitRangeViolationsTest, ContainerAndPodBounds) {
  json range = Range({{{"type", "Container"}, {"max", {{"cpu", "800m"}}}}});
  EXPECT_EQ(LimitRangeViolations(range, Pod({{"limits", {{"cpu", "1500m"}}}}),
                                 "pods"),
            std::vector<std::string>{"maximum cpu usage per Container is "
                                     "800m, but limit is 1500m"});
  EXPECT_EQ(LimitRangeViolations(range, Pod(), "pods"),
            std::vector<std::string>{"maximum cpu usage per Container is "
                                     "800m.  No limit is specified"});
  json min = Range({{{"type", "Container"}, {"min", {{"memory", "500Mi"}}}}});
  EXPECT_EQ(LimitRangeViolations(min,
                                 Pod({{
                                     "requests",
                                     {{"memory", "100Mi"}},
                                 }}),
                                 "pods"),
            std::vector<std::string>{"minimum memory usage per Container is "
                                     "500Mi, but request is 100Mi"});
  json ratio = Range(
      {{{"type", "Container"}, {"maxLimitRequestRatio", {{"cpu", "2"}}}}});
  EXPECT_EQ(LimitRangeViolations(ratio,
                                 Pod({{"requests", {{"cpu", "100m"}}},
                                      {"limits", {{"cpu", "500m"}}}}),
                                 "pods"),
            std::vector<std::string>{"cpu max limit to request ratio per "
                                     "Container is 2, but provided ratio is "
                                     "5.000000"});
  json pod_max = Range({{{"type", "Pod"}, {"max", {{"cpu", "1"}}}}});
  json two = Pod({{"limits", {{"cpu", "600m"}}}});
  two["spec"]["containers"].push_back(two["spec"]["containers"][0]);
  EXPECT_EQ(LimitRangeViolations(pod_max, two, "pods"),
            std::vector<std::string>{"maximum cpu usage per Pod is 1, but "
                                     "limit is 1200m"});
}

TEST(LimitRangeViolationsTest, InitContainersAndSidecarsCount) {
  json pod_max = Range({{{"type", "Pod"}, {"max", {{"cpu", "1"}}}}});
  json pod = Pod({{"limits", {{"cpu", "400m"}}}});
  // A sidecar runs beside the containers: 400m + 300m, still within 1.
  pod["spec"]["initContainers"] = {
      {{"name", "proxy"},
       {"image", "envoy"},
       {"restartPolicy", "Always"},
       {"resources", {{"limits", {{"cpu", "300m"}}}}}}};
  EXPECT_TRUE(LimitRangeViolations(pod_max, pod, "pods").empty());
  // An init container after it needs 800m beside the sidecar's 300m.
  pod["spec"]["initContainers"].push_back(
      {{"name", "setup"},
       {"image", "busybox"},
       {"resources", {{"limits", {{"cpu", "800m"}}}}}});
  EXPECT_EQ(LimitRangeViolations(pod_max, pod, "pods"),
            std::vector<std::string>{"maximum cpu usage per Pod is 1, but "
                                     "limit is 1100m"});
  // Container bounds hold for init containers too.
  json container_max =
      Range({{{"type", "Container"}, {"max", {{"cpu", "500m"}}}}});
  EXPECT_EQ(LimitRangeViolations(container_max, pod, "pods"),
            std::vector<std::string>{"maximum cpu usage per Container is "
                                     "500m, but limit is 800m"});
}

TEST(LimitRangeViolationsTest, ClaimsAreHeldToTheirStorageRequest) {
  json range = Range({{{"type", "PersistentVolumeClaim"},
                       {"min", {{"storage", "1Gi"}}},
                       {"max", {{"storage", "2Gi"}}}},
                      {{"type", "Container"}, {"max", {{"cpu", "1"}}}}});
  auto claim = [](const char* storage) {
    return json{{"spec",
                 {{"accessModes", {"ReadWriteOnce"}},
                  {"resources", {{"requests", {{"storage", storage}}}}}}}};
  };
  const char* kClaims = "persistentvolumeclaims";
  EXPECT_TRUE(LimitRangeViolations(range, claim("2Gi"), kClaims).empty());
  EXPECT_EQ(LimitRangeViolations(range, claim("5Gi"), kClaims),
            std::vector<std::string>{"maximum storage usage per "
                                     "PersistentVolumeClaim is 2Gi, but "
                                     "request is 5Gi"});
  EXPECT_EQ(LimitRangeViolations(range, claim("500Mi"), kClaims),
            std::vector<std::string>{"minimum storage usage per "
                                     "PersistentVolumeClaim is 1Gi, but "
                                     "request is 500Mi"});
  // A pod is not held to the claims' bounds, nor a claim to the pods'.
  EXPECT_EQ(
      LimitRangeViolations(range, Pod({{"limits", {{"cpu", "2"}}}}), "pods")
          .size(),
      1u);
}

TEST(LimitRangerAdmissionTest, DefaultsThenRefusesThroughTheRegistry) {
  FakeClock clock{TimePoint(std::chrono::seconds(1'800'000'000))};
  Rng rng{1};
  auto storage = registry::testing::OpenMemoryStore();
  ASSERT_NE(storage, nullptr);
  Registry registry(storage.get(), &clock, &rng);
  ASSERT_TRUE(registry::testing::CreateNamespace(&registry, "default").ok());
  const auto& catalog = api::testing::BuiltinCatalog();
  const api::ResourceInfo* pods = catalog.Find("", "v1", "pods");
  const api::ResourceInfo* ranges = catalog.Find("", "v1", "limitranges");
  ASSERT_TRUE(registry
                  .Create(*ranges, "default",
                          Range({{{"type", "Container"},
                                  {"default", {{"cpu", "500m"}}},
                                  {"max", {{"cpu", "800m"}}}}}),
                          {})
                  .ok());
  auto ok = registry.Create(*pods, "default", Pod(), {});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->object["spec"]["containers"][0]["resources"]["limits"]["cpu"],
            "500m");
  json big = Pod({{"limits", {{"cpu", "1500m"}}}});
  big["metadata"]["name"] = "big";
  auto refused = registry.Create(*pods, "default", big, {});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kForbidden);
  EXPECT_EQ(refused.status().message(),
            "pods \"big\" is forbidden: maximum cpu usage per Container is "
            "800m, but limit is 1500m");
  // Two containers breaking the range the same way: said once.
  json twins = Pod({{"limits", {{"cpu", "900m"}}}});
  twins["metadata"]["name"] = "twins";
  twins["spec"]["containers"].push_back(twins["spec"]["containers"][0]);
  twins["spec"]["containers"][1]["name"] = "twin";
  refused = registry.Create(*pods, "default", twins, {});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            "pods \"twins\" is forbidden: maximum cpu usage per Container is "
            "800m, but limit is 900m");
  // Claims are held to the claim bounds of the same namespace's ranges.
  const api::ResourceInfo* claims =
      catalog.Find("", "v1", "persistentvolumeclaims");
  json claim_range = Range(
      {{{"type", "PersistentVolumeClaim"}, {"max", {{"storage", "2Gi"}}}}});
  claim_range["metadata"]["name"] = "storage";
  ASSERT_TRUE(registry.Create(*ranges, "default", claim_range, {}).ok());
  json claim = {{"metadata", {{"name", "data"}}},
                {"spec",
                 {{"accessModes", {"ReadWriteOnce"}},
                  {"resources", {{"requests", {{"storage", "5Gi"}}}}}}}};
  refused = registry.Create(*claims, "default", claim, {});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            "persistentvolumeclaims \"data\" is forbidden: maximum storage "
            "usage per PersistentVolumeClaim is 2Gi, but request is 5Gi");
  claim["spec"]["resources"]["requests"]["storage"] = "1Gi";
  EXPECT_TRUE(registry.Create(*claims, "default", claim, {}).ok());
  storage->Close();
}

}  // namespace
}  // namespace kmock::registry
