#include "fanout/stream_decoder.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kmock::bench {
namespace {

std::vector<std::string> Decode(const std::string& raw, size_t piece,
                                bool* ok = nullptr) {
  std::vector<std::string> lines;
  ChunkedLineReader reader([&](std::string_view l) { lines.emplace_back(l); });
  bool good = true;
  for (size_t i = 0; i < raw.size(); i += piece) {
    good = reader.Feed(std::string_view(raw).substr(i, piece)) && good;
  }
  if (ok != nullptr) *ok = good;
  return lines;
}

TEST(ChunkedLineReaderTest, SplitsLinesAcrossChunksAndPieces) {
  // Two events: the first split over two chunks, the second in one chunk
  // with an extension; then the last chunk.
  std::string raw =
      "6\r\n{\"a\":1\r\n"
      "2\r\n}\n\r\n"
      "A;x=y\r\n{\"b\":22}\n\r\n"
      "0\r\n\r\n";
  for (size_t piece : {1, 2, 3, 7, 1000}) {
    bool ok = false;
    auto lines = Decode(raw, piece, &ok);
    EXPECT_TRUE(ok) << piece;
    ASSERT_EQ(lines.size(), 2u) << piece;
    EXPECT_EQ(lines[0], "{\"a\":1}");
    EXPECT_EQ(lines[1], "{\"b\":22}");
  }
}

TEST(ChunkedLineReaderTest, UppercaseHexSizeAndFinish) {
  std::vector<std::string> lines;
  ChunkedLineReader reader([&](std::string_view l) { lines.emplace_back(l); });
  std::string body(26, 'x');
  body += "\n";  // 27 = 0x1B bytes
  EXPECT_TRUE(reader.Feed("1B\r\n" + body + "\r\n"));
  EXPECT_FALSE(reader.finished());
  EXPECT_TRUE(reader.Feed("0\r\n\r\n"));
  EXPECT_TRUE(reader.finished());
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].size(), 26u);
}

TEST(ChunkedLineReaderTest, RejectsBadFraming) {
  bool ok = true;
  Decode("zz\r\nabc\r\n", 100, &ok);
  EXPECT_FALSE(ok);
  Decode("3\r\nabcX\r\n", 100, &ok);
  EXPECT_FALSE(ok);
}

TEST(ParseWatchEventTest, TypeIsTheLastAndVersionTheFirst) {
  std::string line =
      "{\"object\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{"
      "\"annotations\":{\"x\":\"{\\\"resourceVersion\\\":\\\"5\\\"}\"},"
      "\"name\":\"p\",\"resourceVersion\":\"1234\"},\"status\":{"
      "\"conditions\":[{\"status\":\"True\",\"type\":\"Ready\"}]}},"
      "\"type\":\"MODIFIED\"}";
  WatchEventInfo ev = ParseWatchEvent(line);
  EXPECT_EQ(ev.type, "MODIFIED");
  EXPECT_EQ(ev.resource_version, 1234);
}

TEST(ParseWatchEventTest, KubeApiserverOrderTypeFirst) {
  std::string line =
      "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":"
      "\"v1\",\"metadata\":{\"name\":\"p\",\"resourceVersion\":\"77\"},"
      "\"status\":{\"conditions\":[{\"type\":\"Ready\"}]}}}";
  WatchEventInfo ev = ParseWatchEvent(line);
  EXPECT_EQ(ev.type, "ADDED");
  EXPECT_EQ(ev.resource_version, 77);
}

TEST(ParseWatchEventTest, MissingFields) {
  WatchEventInfo ev = ParseWatchEvent("{\"object\":{}}");
  EXPECT_EQ(ev.type, "");
  EXPECT_EQ(ev.resource_version, -1);
}

TEST(ListFieldsTest, VersionTokenAndCount) {
  std::string list =
      "{\"apiVersion\":\"v1\",\"items\":["
      "{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"7\"}},"
      "{\"metadata\":{\"name\":\"b\",\"resourceVersion\":\"9\"}}],"
      "\"kind\":\"PodList\",\"metadata\":{\"continue\":\"eyJ0b2s=\","
      "\"remainingItemCount\":3,\"resourceVersion\":\"42\"}}";
  EXPECT_EQ(ListResourceVersion(list), 42);
  EXPECT_EQ(FirstResourceVersion(list), 7);
  EXPECT_EQ(ListContinueToken(list), "eyJ0b2s=");
  EXPECT_EQ(ListItemCount(list), 2);
  std::string last =
      "{\"items\":[],\"kind\":\"PodList\",\"metadata\":{"
      "\"resourceVersion\":\"42\"}}";
  EXPECT_EQ(ListContinueToken(last), "");
  EXPECT_EQ(ListItemCount(last), 0);
  // kube-apiserver's order: the list's own metadata first.
  std::string go =
      "{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{"
      "\"resourceVersion\":\"42\",\"continue\":\"eyJ0b2s=\","
      "\"remainingItemCount\":3},\"items\":["
      "{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"7\"}},"
      "{\"metadata\":{\"name\":\"b\",\"resourceVersion\":\"9\"}}]}";
  EXPECT_EQ(ListResourceVersion(go), 42);
  EXPECT_EQ(ListContinueToken(go), "eyJ0b2s=");
  EXPECT_EQ(ListItemCount(go), 2);
}

TEST(StreamDecoder, CountsItemsOfABodyFedInPieces) {
  std::string list =
      "{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"42\"},"
      "\"items\":[";
  for (int i = 0; i < 9; ++i) {
    if (i) list += ',';
    list += "{\"metadata\":{\"name\":\"p" + std::to_string(i) +
            "\",\"resourceVersion\":\"" + std::to_string(7 + i) + "\"}}";
  }
  list += "]}";
  ASSERT_EQ(ListItemCount(list), 9);
  for (size_t piece = 1; piece <= list.size(); ++piece) {
    StreamingItemCounter counter;
    for (size_t at = 0; at < list.size(); at += piece)
      counter.Feed(std::string_view(list).substr(at, piece));
    EXPECT_EQ(counter.items(), 9) << "pieces of " << piece;
  }
  StreamingItemCounter empty;
  empty.Feed("{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":");
  empty.Feed("\"4\"},\"items\":[]}");
  EXPECT_EQ(empty.items(), 0);
}

}  // namespace
}  // namespace kmock::bench
