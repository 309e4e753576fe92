#include "controllers/quantity.h"

#include <gtest/gtest.h>

namespace kmock::controllers {
namespace {

TEST(QuantityTest, MilliValues) {
  EXPECT_EQ(*ParseMilliValue("100m"), 100);
  EXPECT_EQ(*ParseMilliValue("2"), 2000);
  EXPECT_EQ(*ParseMilliValue("0.5"), 500);
  EXPECT_EQ(*ParseMilliValue(nlohmann::json(3)), 3000);
  EXPECT_EQ(*ParseMilliValue("1.5k"), 1500000);
}

TEST(QuantityTest, ByteValues) {
  EXPECT_EQ(*ParseValue("128Mi"), 134217728);
  EXPECT_EQ(*ParseValue("1G"), 1000000000);
  EXPECT_EQ(*ParseValue("8Gi"), 8589934592);
  EXPECT_EQ(*ParseValue("1e3"), 1000);
  EXPECT_EQ(*ParseValue("100m"), 1);  // rounded up
  EXPECT_EQ(*ParseValue("110"), 110);
}

TEST(QuantityTest, Rejects) {
  EXPECT_FALSE(ParseValue("abc").ok());
  EXPECT_FALSE(ParseValue("12Qi").ok());
  EXPECT_FALSE(ParseValue(nlohmann::json::object()).ok());
}

}  // namespace
}  // namespace kmock::controllers
