// The on-disk layout of the RocksDB store: column families, key encodings
// and value encodings. Everything persistent is defined here and only here.
//
// DO NOT CHANGE any name, tag or byte layout below: they are embedded in
// databases on disk. Add a new format byte (kFormatV2...) instead.
//
// Column families
//   "default"  unused (RocksDB requires it).
//   "log"      big-endian revision (8 bytes) -> log entry (EncodeLogEntry).
//              One entry per revision, holding that revision's value: a
//              watch replays it, and "history" refers to it. Compaction
//              keeps the entries "history" still refers to.
//   "current"  user key -> record (EncodeRecord) of the live value. A
//              deleted key has no entry. Serves Get and lists: a key
//              whose record here has mod_revision <= R also had it at R.
//   "history"  user key + '\0' + big-endian revision -> reference
//              (EncodeHistoryReference), one per write to the key (a delete
//              writes a tombstone). A reference holds the key's revisions
//              but not its value, which is the value of the log entry at
//              its mod_revision: every value is stored once outside
//              "current", in revision order, so flushing it never overlaps
//              older tables.
//              The state of a key at revision R is its entry with the
//              largest revision <= R; a list at R looks up only the keys
//              the log shows written after R (revision_cursor.h).
//              User keys must not contain '\0', so the entries of one key
//              are contiguous and keys sort in user-key order.
//   "meta"     fixed names -> big-endian revision (8 bytes):
//              "current_revision"   the last written revision
//              "compact_revision"   the last finished compaction
//              "scheduled_compact"  the last requested compaction; if it is
//                                   above compact_revision at open, the
//                                   compaction was interrupted and is redone.
//
// Worked example: Create("/a","x") at rev 1, Update("/a","y") at rev 2,
// Delete("/a") at rev 3 leave
//   log      00..01 -> {PUT    /a=x        c1 m1 v1}
//            00..02 -> {PUT    /a=y prev@1 c1 m2 v2}
//            00..03 -> {DELETE /a   prev@2 c1 m3 v2}
//   history  "/a\0" 00..01 -> {c1 m1 v1}        (value: log 1)
//            "/a\0" 00..02 -> {c1 m2 v2}        (value: log 2)
//            "/a\0" 00..03 -> {tombstone c1 m3 v2}
//   current  (nothing for /a)
//   meta     "current_revision" -> 00..03
// Compact(2) then removes history 1 (superseded by 2) and log 1; history 2
// and log 2 stay because they are /a's state at revision 2 and 3 > 2.
// Compact(3) removes history 2 and 3 and log 2 and 3: /a was deleted at or
// below 3.
//
// Format 1 (kFormatV1), written before format 2, is still read, and a
// store may hold both: its history records carry their value and its log
// events their previous value. Its compaction removed every log entry at or
// below the compacted revision, so a format 2 write whose previous revision
// is one of those finds the previous value in that revision's history
// record instead (revision_cursor.h, ReadValueAt).
//
// Thread safety: pure functions.
#ifndef KMOCK_STORE_ROCKS_FORMAT_H_
#define KMOCK_STORE_ROCKS_FORMAT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "store/storage.h"

namespace kmock::store::format {

inline constexpr char kLogFamily[] = "log";
inline constexpr char kCurrentFamily[] = "current";
inline constexpr char kHistoryFamily[] = "history";
inline constexpr char kMetaFamily[] = "meta";

inline constexpr char kMetaCurrentRevision[] = "current_revision";
inline constexpr char kMetaCompactRevision[] = "compact_revision";
inline constexpr char kMetaScheduledCompact[] = "scheduled_compact";

// First byte of every record, reference and log entry.
inline constexpr char kFormatV1 = 1;
inline constexpr char kFormatV2 = 2;

// A key's state at one revision, as stored in "current" (and, in format
// 1, in "history").
//   byte 0   kFormatV1
//   byte 1   flags: bit 0 = tombstone (the key was deleted at mod_revision)
//   varint   create_revision, mod_revision, version (LEB128, unsigned)
//   rest     the value bytes
// Example: {c1 m2 v2 "y"} = 01 00 01 02 02 79.
struct Record {
  std::string value;
  int64_t create_revision = 0;
  int64_t mod_revision = 0;
  int64_t version = 0;
  bool tombstone = false;
};

inline constexpr char kRecordTombstone = 1;

std::string EncodeRecord(const Record& r);
bool DecodeRecord(std::string_view data, Record* out);
// A record or reference decoded in place: `value` points into `data`.
struct RecordView {
  std::string_view value;
  int64_t create_revision = 0;
  int64_t mod_revision = 0;
  int64_t version = 0;
  bool tombstone = false;
  // A reference (format 2): `value` is empty; the value is that of the
  // log entry at mod_revision (none for a tombstone).
  bool value_in_log = false;
};
bool DecodeRecordView(std::string_view data, RecordView* out);
// Whether an encoded record or reference is a tombstone, without decoding.
bool IsTombstone(std::string_view data);

// A key's state at one revision without its value, as stored in "history".
//   byte 0   kFormatV2
//   byte 1   flags: bit 0 = tombstone
//   varint   create_revision, mod_revision, version
// Example: {c1 m2 v2} = 02 00 01 02 02. `r.value` is not stored.
std::string EncodeHistoryReference(const Record& r);

// A log entry (format 2).
//   byte 0   kFormatV2
//   byte 1   type: 0 = put, 1 = delete
//   varint   create_revision, mod_revision, version
//   varint   prev_revision: the revision whose log entry holds the previous
//            value, 0 if there is none (a create)
//   varint   key length, then the key
//   rest     for a put, the value; for a delete, nothing (the value before
//            the delete is the previous value)
// Example: PUT /a=y prev@1 c1 m2 v2 = 02 00 01 02 02 01 02 2f 61 79.
// The entry's revision is its mod_revision.
std::string EncodeLogEntry(const Event& e, int64_t prev_revision);

// An event as format 1 stored it in "log": the previous value inline.
//   byte 0   kFormatV1
//   byte 1   type: 0 = put, 1 = delete
//   byte 2   1 if there is a previous value, else 0
//   varint   create_revision, mod_revision, version
//   varint   key length, then the key
//   varint   previous value length, then the previous value
//   rest     the value (for a delete: the value before the delete)
// Example: PUT /a=y prev=x c1 m2 v2 =
//   01 00 01 01 02 02 02 2f 61 01 78 79.
// Written only by tests now, to build stores as format 1 left them.
std::string EncodeEvent(const Event& e);

// A log entry of either format, decoded in place (views into `data`).
struct LogEntryView {
  Event::Type type = Event::Type::kPut;
  std::string_view key;
  // For a put, the new value. For a delete: format 1, the value before the
  // delete; format 2, empty (it is the value at prev_revision).
  std::string_view value;
  int64_t create_revision = 0;
  int64_t mod_revision = 0;
  int64_t version = 0;
  bool has_prev = false;
  // Format 1: the previous value itself. Format 2: empty, and
  // prev_revision names the log entry whose value it is.
  std::string_view prev_value;
  int64_t prev_revision = 0;
};
bool DecodeLogEntry(std::string_view data, LogEntryView* out);
// Only the key of an encoded log entry, without copying anything: `key`
// points into `data`.
bool DecodeEventKey(std::string_view data, std::string_view* key);

// 8-byte big-endian revision: the "log" key and every "meta" value.
std::string RevisionKey(int64_t revision);
bool DecodeRevision(std::string_view data, int64_t* out);

// "history" key: key + '\0' + RevisionKey(revision).
std::string HistoryKey(std::string_view key, int64_t revision);
bool ParseHistoryKey(std::string_view raw, std::string_view* key,
                     int64_t* revision);

}  // namespace kmock::store::format

#endif  // KMOCK_STORE_ROCKS_FORMAT_H_
