#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/heap_trimmer.h"
#include "common/rng.h"
#include "common/status.h"
#include "common/thread_name.h"

namespace kmock {
namespace {

TEST(ThreadNameTest, NamesTheCallingThreadWithinTheKernelLimit) {
  std::string seen;
  std::thread t([&] {
    NameThisThread("inf/horizontalpodautoscalers");
    seen = ThisThreadName();
  });
  t.join();
  EXPECT_EQ(seen, "inf/horizontalp");
  EXPECT_NE(ThisThreadName(), "inf/horizontalp");
}

TEST(ClockTest, FormatsAndParsesRfc3339) {
  TimePoint t;
  ASSERT_TRUE(ParseRfc3339("2026-11-30T06:27:27Z", &t));
  EXPECT_EQ(FormatRfc3339(t), "2026-11-30T06:27:27Z");
  ASSERT_TRUE(ParseRfc3339("2026-11-30T06:27:27.123456Z", &t));
  EXPECT_EQ(FormatRfc3339Micro(t), "2026-11-30T06:27:27.123456Z");
  EXPECT_EQ(FormatRfc3339Nano(t), "2026-11-30T06:27:27.123456Z");
  EXPECT_EQ(FormatRfc3339Nano(t + std::chrono::nanoseconds(700)),
            "2026-11-30T06:27:27.1234567Z");
  EXPECT_EQ(FormatRfc3339Nano(t - std::chrono::microseconds(123456)),
            "2026-11-30T06:27:27Z");
  ASSERT_TRUE(ParseRfc3339("2026-11-30T08:27:27+02:00", &t));
  EXPECT_EQ(FormatRfc3339(t), "2026-11-30T06:27:27Z");
  EXPECT_FALSE(ParseRfc3339("yesterday", &t));
}

TEST(ClockTest, FormattingAgreesWithTheCLibraryAcrossCalendars) {
  // Leap days, ends of years and months, before 1970, and far ahead
  // (a TimePoint counts nanoseconds: years 1678 to 2262).
  std::vector<long long> seconds = {0,          -1,         86399,
                                    951782400,  951868799,  1078012800,
                                    4107542399, -86400 * 3, 9214646399};
  Rng rng(7);
  for (int i = 0; i < 2000; ++i)
    seconds.push_back(static_cast<long long>(rng.Uniform(11000000000ULL)) -
                      2000000000LL);
  for (long long s : seconds) {
    std::time_t tt = static_cast<std::time_t>(s);
    std::tm tm{};
    gmtime_r(&tt, &tm);
    char want[32];
    std::strftime(want, sizeof(want), "%Y-%m-%dT%H:%M:%SZ", &tm);
    TimePoint t = std::chrono::system_clock::from_time_t(tt);
    ASSERT_EQ(FormatRfc3339(t), want) << s;
    ASSERT_EQ(FormatRfc3339(t + std::chrono::milliseconds(999)), want) << s;
  }
  TimePoint before =
      std::chrono::system_clock::from_time_t(0) - std::chrono::nanoseconds(1);
  EXPECT_EQ(FormatRfc3339(before), "1969-12-31T23:59:59Z");
  EXPECT_EQ(FormatRfc3339Micro(before), "1969-12-31T23:59:59.999999Z");
  EXPECT_EQ(FormatRfc3339Nano(before), "1969-12-31T23:59:59.999999999Z");
  EXPECT_EQ(FormatRfc3339Nano(std::chrono::system_clock::from_time_t(0) +
                              std::chrono::milliseconds(20)),
            "1970-01-01T00:00:00.02Z");
}

TEST(ClockTest, HumanDurationMatchesKubectl) {
  using std::chrono::seconds;
  EXPECT_EQ(HumanDuration(seconds(5)), "5s");
  EXPECT_EQ(HumanDuration(seconds(119)), "119s");
  EXPECT_EQ(HumanDuration(seconds(182)), "3m2s");
  EXPECT_EQ(HumanDuration(seconds(600)), "10m");
  EXPECT_EQ(HumanDuration(seconds(3 * 3600 + 120)), "3h2m");
  EXPECT_EQ(HumanDuration(seconds(10 * 3600)), "10h");
  EXPECT_EQ(HumanDuration(seconds(3 * 86400 + 3600)), "3d1h");
}

TEST(RngTest, SameSeedSameSequence) {
  Rng a(42), b(42), c(43);
  std::string ua = a.Uuid();
  EXPECT_EQ(ua, b.Uuid());
  EXPECT_NE(ua, c.Uuid());
  EXPECT_EQ(ua.size(), 36u);
  EXPECT_EQ(ua[14], '4');
  std::string s = a.NameSuffix(5);
  EXPECT_EQ(s.size(), 5u);
  EXPECT_EQ(s.find_first_not_of("bcdfghjklmnpqrstvwxz2456789"),
            std::string::npos);
}

TEST(RngTest, SeedForStoreNeverRepeatsARestartsStream) {
  // A fresh store keeps the seed, so a fresh run is reproducible.
  EXPECT_EQ(SeedForStore(7, 0), 7u);
  // Each later revision gives its own stream, deterministically.
  EXPECT_EQ(SeedForStore(7, 120), SeedForStore(7, 120));
  std::set<uint64_t> seeds = {7};
  for (int64_t rev = 1; rev <= 1000; ++rev) seeds.insert(SeedForStore(7, rev));
  EXPECT_EQ(seeds.size(), 1001u);
  Rng first(SeedForStore(7, 0)), restarted(SeedForStore(7, 95));
  EXPECT_NE(first.Uuid(), restarted.Uuid());
}

TEST(ResultTest, CarriesValueOrError) {
  Result<int> ok(3);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 3);
  Result<int> bad(NotFoundError("x"));
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace kmock

namespace kmock {
namespace {

long ResidentKb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

TEST(HeapTrimmerTest, GivesFreedHeapBackToTheSystem) {
  // 64 MB of small blocks, then one more above them so that freeing the
  // blocks leaves a hole glibc does not give back by itself.
  std::vector<char*> blocks;
  for (int i = 0; i < 256 * 1024; ++i) {
    char* b = static_cast<char*>(std::malloc(256));
    std::memset(b, 1, 256);
    blocks.push_back(b);
  }
  char* pin = static_cast<char*>(std::malloc(256));
  std::memset(pin, 1, 256);
  for (char* b : blocks) std::free(b);
  blocks = {};
  const long before = ResidentKb();
  const bool trimmed = HeapTrimmer::TrimNow();
  const long after = ResidentKb();
  std::free(pin);
  // Sanitizers bring their own allocator, which glibc cannot trim.
  if (std::getenv("KMOCK_SANITIZER") != nullptr) return;
  EXPECT_TRUE(trimmed);
  EXPECT_LT(after, before - 32 * 1024) << before << " kB -> " << after;
}

TEST(HeapTrimmerTest, StopsPromptly) {
  HeapTrimmer trimmer(std::chrono::hours(1));
  trimmer.Start();
  auto t0 = std::chrono::steady_clock::now();
  trimmer.Stop();
  trimmer.Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
}

}  // namespace
}  // namespace kmock
