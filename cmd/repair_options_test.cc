#include "cmd/repair_options.h"

#include <gtest/gtest.h>

#include <set>

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

TEST(RepairOptionsTest, DamagedCopyNeverReusesATakenName) {
  std::set<std::string> taken;
  auto exists = [&](const std::string& p) { return taken.count(p) > 0; };
  const std::time_t t = 1796266372;  // 2026-12-03T02:52:52Z
  std::string first = DamagedCopyPath("/d", t, exists);
  EXPECT_EQ(first, "/d/store.damaged-20261203T025252Z");
  taken.insert(first);
  std::string second = DamagedCopyPath("/d", t, exists);
  EXPECT_EQ(second, "/d/store.damaged-20261203T025252Z-2");
  taken.insert(second);
  EXPECT_EQ(DamagedCopyPath("/d", t, exists),
            "/d/store.damaged-20261203T025252Z-3");
}

}  // namespace
}  // namespace kmock::cmd
