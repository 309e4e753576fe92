#include "store/rocks_format.h"

#include "common/varint.h"

namespace kmock::store::format {
namespace {

bool GetVarintRevision(std::string_view* in, int64_t* v) {
  uint64_t u;
  if (!GetVarint(in, &u)) return false;
  *v = static_cast<int64_t>(u);
  return true;
}

bool GetLengthPrefixed(std::string_view* in, std::string_view* out) {
  uint64_t len;
  if (!GetVarint(in, &len) || len > in->size()) return false;
  *out = in->substr(0, len);
  in->remove_prefix(len);
  return true;
}

void PutBigEndian(std::string* dst, uint64_t v) {
  for (int i = 7; i >= 0; --i) {
    dst->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
}

uint64_t GetBigEndian(std::string_view data) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) {
    v = (v << 8) | static_cast<uint8_t>(data[i]);
  }
  return v;
}

}  // namespace

namespace {

// The revisions every record, reference and log entry carries.
void PutRevisions(std::string* out, int64_t create_revision,
                  int64_t mod_revision, int64_t version) {
  PutVarint(out, static_cast<uint64_t>(create_revision));
  PutVarint(out, static_cast<uint64_t>(mod_revision));
  PutVarint(out, static_cast<uint64_t>(version));
}

bool GetRevisions(std::string_view* in, int64_t* create_revision,
                  int64_t* mod_revision, int64_t* version) {
  return GetVarintRevision(in, create_revision) &&
         GetVarintRevision(in, mod_revision) && GetVarintRevision(in, version);
}

}  // namespace

std::string EncodeRecord(const Record& r) {
  std::string out;
  out.reserve(r.value.size() + 16);
  out.push_back(kFormatV1);
  out.push_back(r.tombstone ? kRecordTombstone : 0);
  PutRevisions(&out, r.create_revision, r.mod_revision, r.version);
  out.append(r.value);
  return out;
}

std::string EncodeHistoryReference(const Record& r) {
  std::string out;
  out.reserve(16);
  out.push_back(kFormatV2);
  out.push_back(r.tombstone ? kRecordTombstone : 0);
  PutRevisions(&out, r.create_revision, r.mod_revision, r.version);
  return out;
}

bool DecodeRecordView(std::string_view data, RecordView* out) {
  if (data.size() < 2 || (data[0] != kFormatV1 && data[0] != kFormatV2)) {
    return false;
  }
  const bool reference = data[0] == kFormatV2;
  out->tombstone = (data[1] & kRecordTombstone) != 0;
  data.remove_prefix(2);
  if (!GetRevisions(&data, &out->create_revision, &out->mod_revision,
                    &out->version)) {
    return false;
  }
  if (reference && !data.empty()) return false;
  out->value = data;
  out->value_in_log = reference && !out->tombstone;
  return true;
}

bool DecodeRecord(std::string_view data, Record* out) {
  RecordView v;
  if (!DecodeRecordView(data, &v) || v.value_in_log) return false;
  out->tombstone = v.tombstone;
  out->create_revision = v.create_revision;
  out->mod_revision = v.mod_revision;
  out->version = v.version;
  out->value.assign(v.value.data(), v.value.size());
  return true;
}

bool IsTombstone(std::string_view data) {
  return data.size() >= 2 && (data[1] & kRecordTombstone) != 0;
}

std::string EncodeLogEntry(const Event& e, int64_t prev_revision) {
  const bool is_delete = e.type == Event::Type::kDelete;
  std::string out;
  out.reserve(e.kv.key.size() + (is_delete ? 0 : e.kv.value.size()) + 32);
  out.push_back(kFormatV2);
  out.push_back(is_delete ? 1 : 0);
  PutRevisions(&out, e.kv.create_revision, e.kv.mod_revision, e.kv.version);
  PutVarint(&out, static_cast<uint64_t>(prev_revision));
  PutVarint(&out, e.kv.key.size());
  out.append(e.kv.key);
  if (!is_delete) out.append(e.kv.value);
  return out;
}

std::string EncodeEvent(const Event& e) {
  std::string out;
  out.reserve(e.kv.key.size() + e.kv.value.size() + e.prev_value.size() + 24);
  out.push_back(kFormatV1);
  out.push_back(e.type == Event::Type::kDelete ? 1 : 0);
  out.push_back(e.has_prev ? 1 : 0);
  PutRevisions(&out, e.kv.create_revision, e.kv.mod_revision, e.kv.version);
  PutVarint(&out, e.kv.key.size());
  out.append(e.kv.key);
  PutVarint(&out, e.prev_value.size());
  out.append(e.prev_value);
  out.append(e.kv.value);
  return out;
}

bool DecodeLogEntry(std::string_view data, LogEntryView* out) {
  if (data.size() < 2 || (data[1] != 0 && data[1] != 1)) return false;
  out->type = data[1] == 1 ? Event::Type::kDelete : Event::Type::kPut;
  if (data[0] == kFormatV1) {
    if (data.size() < 3) return false;
    out->has_prev = data[2] == 1;
    out->prev_revision = 0;
    data.remove_prefix(3);
    if (!GetRevisions(&data, &out->create_revision, &out->mod_revision,
                      &out->version) ||
        !GetLengthPrefixed(&data, &out->key) ||
        !GetLengthPrefixed(&data, &out->prev_value)) {
      return false;
    }
    out->value = data;
    return true;
  }
  if (data[0] != kFormatV2) return false;
  data.remove_prefix(2);
  if (!GetRevisions(&data, &out->create_revision, &out->mod_revision,
                    &out->version) ||
      !GetVarintRevision(&data, &out->prev_revision) ||
      !GetLengthPrefixed(&data, &out->key)) {
    return false;
  }
  const bool is_delete = out->type == Event::Type::kDelete;
  if (out->prev_revision < 0 || out->prev_revision >= out->mod_revision ||
      (is_delete && (out->prev_revision == 0 || !data.empty()))) {
    return false;
  }
  out->has_prev = out->prev_revision != 0;
  out->prev_value = {};
  out->value = data;
  return true;
}

bool DecodeEventKey(std::string_view data, std::string_view* key) {
  if (data.size() < 2) return false;
  size_t header = data[0] == kFormatV1 ? 3 : 2;
  int varints = data[0] == kFormatV1 ? 3 : 4;
  if ((data[0] != kFormatV1 && data[0] != kFormatV2) || data.size() < header) {
    return false;
  }
  data.remove_prefix(header);
  uint64_t skipped;
  for (int i = 0; i < varints; ++i) {
    if (!GetVarint(&data, &skipped)) return false;
  }
  return GetLengthPrefixed(&data, key);
}

std::string RevisionKey(int64_t revision) {
  std::string out;
  out.reserve(8);
  PutBigEndian(&out, static_cast<uint64_t>(revision));
  return out;
}

bool DecodeRevision(std::string_view data, int64_t* out) {
  if (data.size() != 8) return false;
  *out = static_cast<int64_t>(GetBigEndian(data));
  return true;
}

std::string HistoryKey(std::string_view key, int64_t revision) {
  std::string out;
  out.reserve(key.size() + 9);
  out.append(key);
  out.push_back('\0');
  PutBigEndian(&out, static_cast<uint64_t>(revision));
  return out;
}

bool ParseHistoryKey(std::string_view raw, std::string_view* key,
                     int64_t* revision) {
  if (raw.size() < 9 || raw[raw.size() - 9] != '\0') return false;
  *key = raw.substr(0, raw.size() - 9);
  *revision = static_cast<int64_t>(GetBigEndian(raw.substr(raw.size() - 8)));
  return true;
}

}  // namespace kmock::store::format
