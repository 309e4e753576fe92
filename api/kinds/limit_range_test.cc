// LimitRange defaulting: default limits from max, default requests from
// the default limits, else from min; Pod items untouched.
#include "api/kinds/limit_range.h"

#include <gtest/gtest.h>

namespace kmock::api::kinds {
namespace {

using nlohmann::json;

TEST(LimitRangeDefaultsTest, FollowTheOtherBounds) {
  json range = {{"spec",
                 {{"limits",
                   {{{"type", "Container"},
                     {"max", {{"cpu", "2"}, {"memory", "1Gi"}}},
                     {"default", {{"memory", "512Mi"}}},
                     {"min", {{"cpu", "100m"}, {"ephemeral-storage", "1Gi"}}}},
                    {{"type", "Pod"}, {"max", {{"cpu", "4"}}}}}}}}};
  DefaultLimitRange(range);
  const json& c = range["spec"]["limits"][0];
  EXPECT_EQ(c["default"], (json{{"cpu", "2"}, {"memory", "512Mi"}}));
  EXPECT_EQ(
      c["defaultRequest"],
      (json{{"cpu", "2"}, {"memory", "512Mi"}, {"ephemeral-storage", "1Gi"}}));
  EXPECT_EQ(range["spec"]["limits"][1],
            (json{{"type", "Pod"}, {"max", {{"cpu", "4"}}}}));
}

}  // namespace
}  // namespace kmock::api::kinds
