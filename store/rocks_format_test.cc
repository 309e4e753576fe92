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
  EXPECT_EQ(Hex(EncodeHistoryReference(r)), "02 00 01 02 02");

  Event e;
  e.kv.key = "/a";
  e.kv.value = "y";
  e.kv.create_revision = 1;
  e.kv.mod_revision = 2;
  e.kv.version = 2;
  e.has_prev = true;
  e.prev_value = "x";
  e.revision = 2;
  EXPECT_EQ(Hex(EncodeLogEntry(e, 1)), "02 00 01 02 02 01 02 2f 61 79");
  EXPECT_EQ(Hex(EncodeEvent(e)), "01 00 01 01 02 02 02 2f 61 01 78 79");

  EXPECT_EQ(Hex(RevisionKey(258)), "00 00 00 00 00 00 01 02");
  EXPECT_EQ(Hex(HistoryKey("/a", 3)), "2f 61 00 00 00 00 00 00 00 00 03");
}

TEST(RocksFormatTest, HistoryReferenceHoldsRevisionsAndNotTheValue) {
  Record r;
  r.value = "not stored";
  r.create_revision = 3;
  r.mod_revision = int64_t{1} << 40;
  r.version = 300;
  RecordView view;
  ASSERT_TRUE(DecodeRecordView(EncodeHistoryReference(r), &view));
  EXPECT_TRUE(view.value_in_log);
  EXPECT_FALSE(view.tombstone);
  EXPECT_EQ(view.value, "");
  EXPECT_EQ(view.create_revision, 3);
  EXPECT_EQ(view.mod_revision, int64_t{1} << 40);
  EXPECT_EQ(view.version, 300);
  // A reference has no value to hand out as a Record.
  Record back;
  EXPECT_FALSE(DecodeRecord(EncodeHistoryReference(r), &back));

  r.tombstone = true;
  const std::string tombstone = EncodeHistoryReference(r);
  EXPECT_TRUE(IsTombstone(tombstone));
  ASSERT_TRUE(DecodeRecordView(tombstone, &view));
  EXPECT_TRUE(view.tombstone);
  EXPECT_FALSE(view.value_in_log);
  // Bytes after a reference's revisions are corruption, not a value.
  EXPECT_FALSE(DecodeRecordView(EncodeHistoryReference(r) + "x", &view));
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
  EXPECT_FALSE(DecodeRecord(std::string("\x03\x00", 2), &back));
  EXPECT_FALSE(DecodeRecord(std::string("\x01\x00\x80", 3), &back));
}

Event DeleteEvent() {
  Event e;
  e.type = Event::Type::kDelete;
  e.kv.key = "/registry/pods/ns/a";
  e.kv.value = "old";
  e.kv.create_revision = 5;
  e.kv.mod_revision = 9;
  e.kv.version = 3;
  e.has_prev = true;
  e.prev_value = "old";
  e.revision = 9;
  return e;
}

TEST(RocksFormatTest, LogEntryRoundTripsWithThePreviousRevision) {
  Event put = DeleteEvent();
  put.type = Event::Type::kPut;
  put.kv.value = std::string(300, 'v');  // multi-byte length varints
  LogEntryView back;  // views into the encoded entry, which must outlive it
  const std::string encoded = EncodeLogEntry(put, 7);
  ASSERT_TRUE(DecodeLogEntry(encoded, &back));
  EXPECT_EQ(back.type, Event::Type::kPut);
  EXPECT_EQ(back.key, put.kv.key);
  EXPECT_EQ(back.value, put.kv.value);
  EXPECT_TRUE(back.has_prev);
  EXPECT_EQ(back.prev_revision, 7);
  EXPECT_EQ(back.prev_value, "");  // the log entry at 7 holds it
  EXPECT_EQ(back.create_revision, 5);
  EXPECT_EQ(back.mod_revision, 9);
  EXPECT_EQ(back.version, 3);

  Event create = put;
  create.has_prev = false;
  const std::string created = EncodeLogEntry(create, 0);
  ASSERT_TRUE(DecodeLogEntry(created, &back));
  EXPECT_FALSE(back.has_prev);
  EXPECT_EQ(back.prev_revision, 0);

  // A delete stores no value: it removed the one at its previous revision.
  const std::string deleted = EncodeLogEntry(DeleteEvent(), 7);
  EXPECT_EQ(deleted.find("old"), std::string::npos);
  ASSERT_TRUE(DecodeLogEntry(deleted, &back));
  EXPECT_EQ(back.type, Event::Type::kDelete);
  EXPECT_EQ(back.value, "");
  EXPECT_EQ(back.prev_revision, 7);

  EXPECT_FALSE(DecodeLogEntry(encoded.substr(0, 8), &back));
  // The previous revision must come before the entry's own, and a delete
  // must have one.
  EXPECT_FALSE(DecodeLogEntry(EncodeLogEntry(put, 9), &back));
  EXPECT_FALSE(DecodeLogEntry(EncodeLogEntry(DeleteEvent(), 0), &back));
  EXPECT_FALSE(DecodeLogEntry("", &back));
  // Only 0 (put) and 1 (delete) are types, whatever char's signedness.
  for (char type : {'\x02', '\x80', '\xff'}) {
    std::string bad_type = encoded;
    bad_type[1] = type;
    EXPECT_FALSE(DecodeLogEntry(bad_type, &back)) << int{type};
  }
}

TEST(RocksFormatTest, FormatOneEventsStillDecode) {
  const Event e = DeleteEvent();
  LogEntryView back;
  const std::string encoded = EncodeEvent(e);
  ASSERT_TRUE(DecodeLogEntry(encoded, &back));
  EXPECT_EQ(back.type, Event::Type::kDelete);
  EXPECT_EQ(back.key, e.kv.key);
  EXPECT_EQ(back.value, "old");
  EXPECT_EQ(back.prev_value, "old");
  EXPECT_TRUE(back.has_prev);
  EXPECT_EQ(back.prev_revision, 0);
  EXPECT_EQ(back.mod_revision, 9);
  EXPECT_EQ(back.create_revision, 5);
  EXPECT_EQ(back.version, 3);
  EXPECT_FALSE(DecodeLogEntry(encoded.substr(0, 8), &back));
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
  for (const std::string& encoded :
       {EncodeEvent(e), EncodeLogEntry(e, 69999)}) {
    std::string_view key;
    ASSERT_TRUE(DecodeEventKey(encoded, &key));
    EXPECT_EQ(key, "/registry/pods/ns/a");
    EXPECT_FALSE(DecodeEventKey(encoded.substr(0, 10), &key));
  }
  std::string_view key;
  EXPECT_FALSE(DecodeEventKey("", &key));
  EXPECT_FALSE(DecodeEventKey(std::string("\x03\x00\x00", 3), &key));
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
