#include "common/sample_compressor.h"

#include <gtest/gtest.h>

#include <string>

namespace kmock {
namespace {

std::string PodText(int i) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"app":"web"},"name":"web-)" +
         std::to_string(i) +
         R"(","namespace":"default","uid":"8b927043-50c4-48ca-a42b-15dff8a5a5)" +
         std::to_string(10 + i % 90) +
         R"("},"spec":{"containers":[{"image":"nginx:1.25","imagePullPolicy":"IfNotPresent","name":"web","terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler"},"status":{"phase":"Pending","qosClass":"BestEffort"}})";
}

TEST(SampleCompressorTest, TextsLikeTheSampleShrinkAndComeBack) {
  SampleCompressor c(PodText(0));
  for (int i = 1; i < 50; ++i) {
    const std::string text = PodText(i);
    const std::string packed = c.Compress(text);
    EXPECT_LT(packed.size() * 4, text.size()) << i;
    EXPECT_EQ(c.Expand(packed), text);
  }
}

TEST(SampleCompressorTest, UnlikeOrTinyTextsAreStoredAsTheyAre) {
  SampleCompressor c(PodText(0));
  for (const std::string& text :
       {std::string(), std::string("x"), std::string("\x01\x02\x03", 3)}) {
    const std::string packed = c.Compress(text);
    EXPECT_EQ(packed, std::string(1, '\0') + text);
    EXPECT_EQ(c.Expand(packed), text);
  }
  // Without a sample it still compresses what repeats within the text.
  SampleCompressor none("");
  const std::string text = PodText(1) + PodText(2);
  EXPECT_LT(none.Compress(text).size(), text.size());
  EXPECT_EQ(none.Expand(none.Compress(text)), text);
}

TEST(SampleCompressorTest, ALongSampleKeepsItsLast64KiB) {
  std::string sample(100 << 10, 'z');
  sample += PodText(0);
  SampleCompressor c(sample);
  const std::string packed = c.Compress(PodText(7));
  EXPECT_LT(packed.size() * 4, PodText(7).size());
  EXPECT_EQ(c.Expand(packed), PodText(7));
}

TEST(SampleCompressorTest, BytesNotFromCompressAreRefused) {
  SampleCompressor c(PodText(0));
  std::string packed = c.Compress(PodText(3));
  EXPECT_EQ(c.Expand(""), std::nullopt);
  EXPECT_EQ(c.Expand(std::string("\x02", 1) + PodText(3)), std::nullopt);
  EXPECT_EQ(c.Expand(packed.substr(0, packed.size() - 3)), std::nullopt);
  std::string wrong_length = packed;
  wrong_length[1] = static_cast<char>(wrong_length[1] + 1);
  EXPECT_EQ(c.Expand(wrong_length), std::nullopt);
  // Another sample cannot expand it into the same text.
  SampleCompressor other(PodText(0) + "other");
  EXPECT_NE(other.Expand(packed), std::optional<std::string>(PodText(3)));
}

}  // namespace
}  // namespace kmock
