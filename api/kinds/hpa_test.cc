#include "api/kinds/hpa.h"

#include <gtest/gtest.h>

namespace kmock::api::kinds {
namespace {

TEST(HpaConversionTest, V1CpuTargetBecomesAResourceMetricAndBack) {
  json v1 = json::parse(R"({
    "apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment",
                                "name": "web"},
             "minReplicas": 1, "maxReplicas": 5,
             "targetCPUUtilizationPercentage": 70},
    "status": {"currentReplicas": 2, "desiredReplicas": 2,
               "currentCPUUtilizationPercentage": 35}
  })");
  json v2 = HpaV1ToV2(v1);
  EXPECT_EQ(v2["apiVersion"], "autoscaling/v2");
  EXPECT_EQ(v2["spec"]["metrics"], json::parse(R"([{"type": "Resource",
      "resource": {"name": "cpu", "target": {"type": "Utilization",
                                              "averageUtilization": 70}}}])"));
  EXPECT_EQ(v2["status"]["currentMetrics"][0]["resource"]["current"]
              ["averageUtilization"],
            35);
  EXPECT_EQ(HpaV2ToV1(v2), v1);
}

TEST(HpaConversionTest, V2WithoutCpuMetricHasNoV1Target) {
  json v2 = json::parse(R"({
    "metadata": {"name": "q"},
    "spec": {"maxReplicas": 3, "metrics": [{"type": "Pods",
      "pods": {"metric": {"name": "qps"},
               "target": {"type": "AverageValue", "averageValue": "10"}}}]}
  })");
  json v1 = HpaV2ToV1(v2);
  EXPECT_EQ(v1["spec"], json::parse(R"({"maxReplicas": 3})"));
  EXPECT_FALSE(v1.contains("status"));
  // A v1 autoscaler without a target is stored with the default 80% CPU.
  json back = HpaV1ToV2(v1);
  EXPECT_EQ(
      back["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"],
      80);
}

}  // namespace
}  // namespace kmock::api::kinds
