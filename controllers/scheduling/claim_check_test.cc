// The claims of a pod: what stops it everywhere and what waits for a node.
#include "controllers/scheduling/claim_check.h"

#include <gtest/gtest.h>

#include <map>

namespace kmock::controllers::scheduling {
namespace {

json PodWithClaims(std::vector<std::string> names) {
  json volumes = json::array();
  for (const auto& n : names)
    volumes.push_back(
        {{"name", n}, {"persistentVolumeClaim", {{"claimName", n}}}});
  return {{"metadata", {{"namespace", "default"}, {"name", "p"}}},
          {"spec", {{"volumes", volumes}}}};
}

class ClaimCheckTest : public ::testing::Test {
 protected:
  ClaimsVerdict Check(const json& pod) {
    return CheckPodClaims(
        pod,
        [&](const std::string& n) -> std::optional<json> {
          auto it = claims_.find(n);
          if (it == claims_.end()) return std::nullopt;
          return it->second;
        },
        [&](const std::string& n) -> std::optional<std::string> {
          auto it = modes_.find(n);
          if (it == modes_.end()) return std::nullopt;
          return it->second;
        });
  }
  void Claim(const std::string& name, const std::string& cls,
             const std::string& volume = "") {
    json c = {{"metadata", {{"name", name}}},
              {"spec", {{"storageClassName", cls}}}};
    if (!volume.empty()) c["spec"]["volumeName"] = volume;
    claims_[name] = c;
  }
  std::map<std::string, json> claims_;
  std::map<std::string, std::string> modes_ = {{"gp2", "WaitForFirstConsumer"},
                                               {"fast", "Immediate"}};
};

TEST_F(ClaimCheckTest, MissingClaimStopsThePod) {
  EXPECT_FALSE(UsesClaims({{"spec", {{"volumes", json::array()}}}}));
  EXPECT_TRUE(UsesClaims(PodWithClaims({"data"})));
  EXPECT_EQ(Check(PodWithClaims({"data"})).refusal,
            "persistentvolumeclaim \"data\" not found");
  EXPECT_EQ(PreFilterMessage(5, "persistentvolumeclaim \"data\" not found"),
            "0/5 nodes are available: persistentvolumeclaim \"data\" not "
            "found. preemption: 0/5 nodes are available: 5 Preemption is not "
            "helpful for scheduling.");
}

TEST_F(ClaimCheckTest, UnboundImmediateClaimStopsThePod) {
  Claim("a", "fast");
  Claim("b", "gp2");
  EXPECT_EQ(Check(PodWithClaims({"a", "b"})).refusal,
            "pod has unbound immediate PersistentVolumeClaims");
}

TEST_F(ClaimCheckTest, WaitForFirstConsumerClaimsWaitForTheNode) {
  Claim("a", "gp2");
  Claim("b", "fast", "pv-1");
  ClaimsVerdict v = Check(PodWithClaims({"a", "b"}));
  EXPECT_EQ(v.refusal, "");
  EXPECT_EQ(v.delayed, std::vector<std::string>{"a"});
}

TEST_F(ClaimCheckTest, VolumeAffinityJoinsEveryTerm) {
  json pod = PodWithClaims({"a"});
  json expr = {{"key", "topology.kubernetes.io/zone"},
               {"operator", "In"},
               {"values", {"us-east-1a"}}};
  json placed = WithRequiredNodeExpressions(pod, json::array({expr}));
  EXPECT_EQ(placed["spec"]["affinity"]["nodeAffinity"]
                  ["requiredDuringSchedulingIgnoredDuringExecution"]
                  ["nodeSelectorTerms"],
            json::array({{{"matchExpressions", {expr}}}}));
  EXPECT_EQ(WithRequiredNodeExpressions(pod, json::array()), pod);
}

}  // namespace
}  // namespace kmock::controllers::scheduling
