// Unit tests of the load driver's pure pieces: templates, encodings, the
// resourceVersion scan and latency summaries.
#include <gtest/gtest.h>

#include <vector>

#include "driver/etcd_load.h"
#include "driver/latency.h"
#include "driver/request_template.h"
#include "driver/watch_latency.h"

namespace kmock::bench {
namespace {

TEST(ExpandTemplate, ReplacesEveryPlaceholder) {
  EXPECT_EQ(ExpandTemplate("{\"name\":\"w-@N@\",\"v\":\"@N@\"}", 42),
            "{\"name\":\"w-42\",\"v\":\"42\"}");
  EXPECT_EQ(ExpandTemplate("no placeholder", 7), "no placeholder");
  EXPECT_EQ(ExpandTemplate("@N@", 0), "0");
  EXPECT_EQ(ExpandTemplate("@N", 5), "@N");
}

TEST(Base64, MatchesRfc4648Vectors) {
  EXPECT_EQ(Base64(""), "");
  EXPECT_EQ(Base64("f"), "Zg==");
  EXPECT_EQ(Base64("fo"), "Zm8=");
  EXPECT_EQ(Base64("foo"), "Zm9v");
  EXPECT_EQ(Base64("foob"), "Zm9vYg==");
  EXPECT_EQ(Base64("fooba"), "Zm9vYmE=");
  EXPECT_EQ(Base64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64(std::string("\xff\xfe\x00", 3)), "//4A");
}

TEST(JsonString, EscapesQuotesBackslashesAndControls) {
  EXPECT_EQ(JsonString("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000a\"");
}

TEST(EtcdPutBody, EncodesKeyAndValue) {
  EXPECT_EQ(EtcdPutBody("foo", "bar"), "{\"key\":\"Zm9v\",\"value\":\"YmFy\"}");
}

TEST(FindResourceVersion, TakesTheFirstObjectRevision) {
  EXPECT_EQ(FindResourceVersion(
                "{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{"
                "\"managedFields\":[{\"fieldsV1\":{\"f:resourceVersion\":{}}}],"
                "\"resourceVersion\":\"1234\"}}}"),
            1234);
  EXPECT_EQ(FindResourceVersion("{\"resourceVersion\":\"\"}"), std::nullopt);
  EXPECT_EQ(FindResourceVersion("{\"resourceVersion\":\"12"), std::nullopt);
  EXPECT_EQ(FindResourceVersion("{\"kind\":\"Status\"}"), std::nullopt);
}

TEST(Summarize, NearestRankPercentiles) {
  std::vector<int64_t> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);
  LatencySummary s = Summarize(v);
  EXPECT_EQ(s.count, 100);
  EXPECT_EQ(s.p50_us, 51);  // rank 0.5 * 99 = 49.5, rounded to index 50
  EXPECT_EQ(s.p90_us, 90);
  EXPECT_EQ(s.p99_us, 99);
  EXPECT_DOUBLE_EQ(s.mean_us, 50.5);
  EXPECT_EQ(s.min_us, 1);
  EXPECT_EQ(s.max_us, 100);
}

TEST(Summarize, KeepsNegativeDifferencesAndEmptyIsZero) {
  std::vector<int64_t> v = {-300, -100, 200};
  LatencySummary s = Summarize(v);
  EXPECT_EQ(s.p50_us, -100);
  EXPECT_EQ(s.min_us, -300);
  std::vector<int64_t> none;
  EXPECT_EQ(Summarize(none).count, 0);
  EXPECT_EQ(Summarize(none).p99_us, 0);
}

}  // namespace
}  // namespace kmock::bench
