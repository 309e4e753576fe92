#include "store/rocks_format.h"

#include <gtest/gtest.h>

#include <string>

namespace kmock::store::format {
namespace {

std::string Hex(const std::string& s) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    if (!out.empty()) out += ' ';
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

// These bytes are on disk: if this test fails, the format changed.
TEST(RocksFormatTest, WorkedExamplesFromTheHeader) {
  Record r;
  r.value = "y";
  r.create_revision = 1;
  r.mod_revision = 2;
  r.version = 2;
  EXPECT_EQ(Hex(EncodeRecord(r)), "01 00 01 02 02 79");

  Event e;
  e.kv.key = "/a";
  e.kv.value = "y";
  e.kv.create_revision = 1;
  e.kv.mod_revision = 2;
  e.kv.version = 2;
  e.has_prev = true;
  e.prev_value = "x";
  e.revision = 2;
  EXPECT_EQ(Hex(EncodeEvent(e)), "01 00 01 01 02 02 02 2f 61 01 78 79");

  EXPECT_EQ(Hex(RevisionKey(258)), "00 00 00 00 00 00 01 02");
  EXPECT_EQ(Hex(HistoryKey("/a", 3)), "2f 61 00 00 00 00 00 00 00 00 03");
}

TEST(RocksFormatTest, RecordRoundTripsIncludingTombstonesAndBigRevisions) {
  Record r;
  r.value = std::string("bin\0ary", 7);
  r.create_revision = 1;
  r.mod_revision = int64_t{1} << 40;
  r.version = 300;
  r.tombstone = true;
  std::string enc = EncodeRecord(r);
  EXPECT_TRUE(IsTombstone(enc));
  Record back;
  ASSERT_TRUE(DecodeRecord(enc, &back));
  EXPECT_EQ(back.value, r.value);
  EXPECT_EQ(back.create_revision, 1);
  EXPECT_EQ(back.mod_revision, int64_t{1} << 40);
  EXPECT_EQ(back.version, 300);
  EXPECT_TRUE(back.tombstone);
  EXPECT_FALSE(DecodeRecord("", &back));
  EXPECT_FALSE(DecodeRecord(std::string("\x02\x00", 2), &back));
  EXPECT_FALSE(DecodeRecord(std::string("\x01\x00\x80", 3), &back));
}

TEST(RocksFormatTest, EventRoundTrips) {
  Event e;
  e.type = Event::Type::kDelete;
  e.kv.key = "/registry/pods/ns/a";
  e.kv.value = "old";
  e.kv.create_revision = 5;
  e.kv.mod_revision = 9;
  e.kv.version = 3;
  e.has_prev = true;
  e.prev_value = "old";
  Event back;
  ASSERT_TRUE(DecodeEvent(EncodeEvent(e), &back));
  EXPECT_EQ(back.type, Event::Type::kDelete);
  EXPECT_EQ(back.kv.key, e.kv.key);
  EXPECT_EQ(back.kv.value, "old");
  EXPECT_EQ(back.prev_value, "old");
  EXPECT_TRUE(back.has_prev);
  EXPECT_EQ(back.revision, 9);
  EXPECT_EQ(back.kv.create_revision, 5);
  EXPECT_EQ(back.kv.version, 3);
  std::string truncated = EncodeEvent(e).substr(0, 8);
  EXPECT_FALSE(DecodeEvent(truncated, &back));
}

TEST(RocksFormatTest, EventKeyIsReadWithoutTheValues) {
  Event e;
  e.kv.key = "/registry/pods/ns/a";
  e.kv.value = std::string(300, 'v');  // multi-byte length varints
  e.kv.create_revision = 200;
  e.kv.mod_revision = 70000;
  e.kv.version = 130;
  e.has_prev = true;
  e.prev_value = std::string(200, 'p');
  const std::string encoded = EncodeEvent(e);
  std::string_view key;
  ASSERT_TRUE(DecodeEventKey(encoded, &key));
  EXPECT_EQ(key, "/registry/pods/ns/a");
  EXPECT_FALSE(DecodeEventKey(encoded.substr(0, 10), &key));
  EXPECT_FALSE(DecodeEventKey("", &key));
  EXPECT_FALSE(DecodeEventKey(std::string("\x02\x00\x00", 3), &key));
}

TEST(RocksFormatTest, HistoryKeysSortByKeyThenRevision) {
  std::string_view key;  // points into raw, which must outlive it
  int64_t rev;
  const std::string raw = HistoryKey("/a/b", 70000);
  ASSERT_TRUE(ParseHistoryKey(raw, &key, &rev));
  EXPECT_EQ(key, "/a/b");
  EXPECT_EQ(rev, 70000);
  EXPECT_FALSE(ParseHistoryKey("short", &key, &rev));
  // "/a" entries all sort before "/a/b" and "/ab" entries.
  EXPECT_LT(HistoryKey("/a", 1000), HistoryKey("/a/b", 1));
  EXPECT_LT(HistoryKey("/a/b", 1000), HistoryKey("/ab", 1));
  EXPECT_LT(HistoryKey("/a", 255), HistoryKey("/a", 256));
  EXPECT_LT(RevisionKey(255), RevisionKey(256));
}

}  // namespace
}  // namespace kmock::store::format
