#include "cmd/repair_options.h"

#include <gtest/gtest.h>

namespace kmock::cmd {
namespace {

TEST(RepairOptionsTest, ParsesTheDataDirectory) {
  auto o = ParseRepairOptions({"--data-dir", "/tmp/d"});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->data_dir, "/tmp/d");
  o = ParseRepairOptions({"--data-dir=/tmp/e"});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->data_dir, "/tmp/e");
  EXPECT_TRUE(ParseRepairOptions({"--help"})->help);
}

TEST(RepairOptionsTest, RejectsUnknownFlags) {
  EXPECT_FALSE(ParseRepairOptions({"--port", "1"}).ok());
  EXPECT_FALSE(ParseRepairOptions({"--data-dir"}).ok());
}

TEST(RepairOptionsTest, HintNamesTheCommand) {
  EXPECT_NE(DamageHint("/d").find("kubemock repair --data-dir /d"),
            std::string::npos);
}

}  // namespace
}  // namespace kmock::cmd
