#include "store/rocks_format.h"

namespace kmock::store::format {
namespace {

void PutVarint(std::string* dst, uint64_t v) {
  while (v >= 0x80) {
    dst->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  dst->push_back(static_cast<char>(v));
}

bool GetVarint(std::string_view* in, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift <= 63 && !in->empty(); shift += 7) {
    auto byte = static_cast<uint8_t>(in->front());
    in->remove_prefix(1);
    result |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *v = result;
      return true;
    }
  }
  return false;
}

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

std::string EncodeRecord(const Record& r) {
  std::string out;
  out.reserve(r.value.size() + 16);
  out.push_back(kFormatV1);
  out.push_back(r.tombstone ? kRecordTombstone : 0);
  PutVarint(&out, static_cast<uint64_t>(r.create_revision));
  PutVarint(&out, static_cast<uint64_t>(r.mod_revision));
  PutVarint(&out, static_cast<uint64_t>(r.version));
  out.append(r.value);
  return out;
}

bool DecodeRecordView(std::string_view data, RecordView* out) {
  if (data.size() < 2 || data[0] != kFormatV1) return false;
  out->tombstone = (data[1] & kRecordTombstone) != 0;
  data.remove_prefix(2);
  if (!GetVarintRevision(&data, &out->create_revision) ||
      !GetVarintRevision(&data, &out->mod_revision) ||
      !GetVarintRevision(&data, &out->version)) {
    return false;
  }
  out->value = data;
  return true;
}

bool DecodeRecord(std::string_view data, Record* out) {
  RecordView v;
  if (!DecodeRecordView(data, &v)) return false;
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

std::string EncodeEvent(const Event& e) {
  std::string out;
  out.reserve(e.kv.key.size() + e.kv.value.size() + e.prev_value.size() + 24);
  out.push_back(kFormatV1);
  out.push_back(e.type == Event::Type::kDelete ? 1 : 0);
  out.push_back(e.has_prev ? 1 : 0);
  PutVarint(&out, static_cast<uint64_t>(e.kv.create_revision));
  PutVarint(&out, static_cast<uint64_t>(e.kv.mod_revision));
  PutVarint(&out, static_cast<uint64_t>(e.kv.version));
  PutVarint(&out, e.kv.key.size());
  out.append(e.kv.key);
  PutVarint(&out, e.prev_value.size());
  out.append(e.prev_value);
  out.append(e.kv.value);
  return out;
}

bool DecodeEvent(std::string_view data, Event* out) {
  if (data.size() < 3 || data[0] != kFormatV1) return false;
  out->type = data[1] == 1 ? Event::Type::kDelete : Event::Type::kPut;
  out->has_prev = data[2] == 1;
  data.remove_prefix(3);
  std::string_view key, prev;
  if (!GetVarintRevision(&data, &out->kv.create_revision) ||
      !GetVarintRevision(&data, &out->kv.mod_revision) ||
      !GetVarintRevision(&data, &out->kv.version) ||
      !GetLengthPrefixed(&data, &key) || !GetLengthPrefixed(&data, &prev)) {
    return false;
  }
  out->kv.key.assign(key.data(), key.size());
  out->prev_value.assign(prev.data(), prev.size());
  out->kv.value.assign(data.data(), data.size());
  out->revision = out->kv.mod_revision;
  return true;
}

bool DecodeEventKey(std::string_view data, std::string_view* key) {
  if (data.size() < 3 || data[0] != kFormatV1) return false;
  data.remove_prefix(3);
  uint64_t skipped;
  for (int i = 0; i < 3; ++i) {
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
