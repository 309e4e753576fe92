// RocksStorage: the write path (one writer, group commit).
#include <string_view>
#include <unordered_map>
#include <utility>

#include "store/rocks_storage.h"

namespace kmock::store {
namespace {

// Bounds on one group commit, so a huge queue does not make one giant batch.
constexpr size_t kMaxGroupWriters = 1024;
constexpr size_t kMaxGroupBytes = 8 << 20;

Status ValidateKey(const std::string& key) {
  if (key.empty()) return BadRequestError("empty key");
  if (key.find('\0') != std::string::npos) {
    return BadRequestError("key contains a NUL byte");
  }
  return Status::Ok();
}

KeyValue ToKeyValue(const std::string& key, const format::Record& r) {
  KeyValue kv;
  kv.key = key;
  kv.value = r.value;
  kv.create_revision = r.create_revision;
  kv.mod_revision = r.mod_revision;
  kv.version = r.version;
  return kv;
}

Status CasConflict(const std::string& key, int64_t expected, int64_t stored) {
  return Status(StatusCode::kConflict,
                "mod revision of " + key + " is " + std::to_string(stored) +
                    ", expected " + std::to_string(expected));
}

}  // namespace

Result<KeyValue> RocksStorage::Create(const std::string& key,
                                      std::string value) {
  Writer w(Op::kCreate, key, std::move(value), 0);
  return SubmitWrite(&w);
}

Result<KeyValue> RocksStorage::Update(const std::string& key, std::string value,
                                      int64_t expected_mod_revision) {
  Writer w(Op::kUpdate, key, std::move(value), expected_mod_revision);
  return SubmitWrite(&w);
}

Result<KeyValue> RocksStorage::Delete(const std::string& key,
                                      int64_t expected_mod_revision) {
  Writer w(Op::kDelete, key, "", expected_mod_revision);
  return SubmitWrite(&w);
}

Result<KeyValue> RocksStorage::SubmitWrite(Writer* w) {
  KMOCK_RETURN_IF_ERROR(ValidateKey(*w->key));
  std::unique_lock<std::mutex> l(mu_);
  if (closed_) {
    return Status(StatusCode::kServiceUnavailable, "storage is closed");
  }
  if (!bg_error_.ok()) return bg_error_;
  writers_.push_back(w);
  w->cv.wait(l, [&] { return w->done || writers_.front() == w; });
  if (w->done) return std::move(*w->result);

  // This writer leads: take the queued writers behind it as one group.
  std::vector<Writer*> group;
  size_t bytes = 0;
  for (Writer* x : writers_) {
    if (group.size() >= kMaxGroupWriters ||
        (!group.empty() && bytes >= kMaxGroupBytes)) {
      break;
    }
    group.push_back(x);
    bytes += x->key->size() + x->value.size();
  }
  Status bg_error = bg_error_;
  l.unlock();  // Others may queue while the group commits.
  if (bg_error.ok()) {
    std::shared_lock<std::shared_mutex> db_lock(db_mu_);
    CommitGroup(group);
  } else {
    for (Writer* x : group) x->result = bg_error;
  }
  l.lock();

  for (Writer* x : group) {
    writers_.pop_front();
    if (x != w) {
      x->done = true;
      x->cv.notify_one();
    }
  }
  if (!writers_.empty()) {
    writers_.front()->cv.notify_one();
  } else {
    idle_cv_.notify_all();
  }
  return std::move(*w->result);
}

size_t RocksStorage::QueuedWritersForTest() {
  std::lock_guard<std::mutex> l(mu_);
  return writers_.size();
}

Status RocksStorage::ReadCurrent(const std::string& key,
                                 std::optional<format::Record>* out) {
  std::string value;
  rocksdb::Status rs =
      db_->Get(rocksdb::ReadOptions(), current_cf_, key, &value);
  if (rs.IsNotFound()) {
    out->reset();
    return Status::Ok();
  }
  if (!rs.ok()) return FromRocks(rs, "reading " + key);
  format::Record r;
  if (!format::DecodeRecord(value, &r)) {
    return InternalError("corrupt record for " + key);
  }
  *out = std::move(r);
  return Status::Ok();
}

void RocksStorage::CommitGroup(const std::vector<Writer*>& group) {
  // The group's view of each key it touches: the stored record, then the
  // group's own earlier writes. nullopt = absent.
  std::unordered_map<std::string_view, std::optional<format::Record>> state;
  rocksdb::WriteBatch batch;
  std::vector<EventPtr> events;
  std::vector<Writer*> written;
  int64_t revision = last_revision_;
  for (Writer* w : group) {
    auto it = state.find(*w->key);
    if (it == state.end()) {
      std::optional<format::Record> stored;
      Status s = ReadCurrent(*w->key, &stored);
      if (!s.ok()) {
        health_->Observe(s);
        w->result = s;
        continue;
      }
      it = state.emplace(*w->key, std::move(stored)).first;
    }
    EventPtr e = ApplyOne(w, &it->second, revision + 1, &batch);
    if (e != nullptr) {
      ++revision;
      events.push_back(std::move(e));
      written.push_back(w);
    }
  }
  if (events.empty()) return;

  batch.Put(meta_cf_, format::kMetaCurrentRevision,
            format::RevisionKey(revision));
  const rocksdb::WriteOptions wo = WriteOptionsFor(sync_writes_.load());
  rocksdb::Status rs = db_->Write(wo, &batch);
  commits_.fetch_add(1);
  if (!rs.ok()) {
    Status err = InternalError(
        "write failed; the store refuses writes from "
        "now on: " +
        rs.ToString());
    {
      std::lock_guard<std::mutex> l(mu_);
      bg_error_ = err;
    }
    health_->Report(err.message());
    for (Writer* w : written) w->result = err;
    return;
  }
  last_revision_ = revision;
  hub_->Publish(events);
  current_revision_.store(revision);
}

EventPtr RocksStorage::ApplyOne(Writer* w, std::optional<format::Record>* state,
                                int64_t revision, rocksdb::WriteBatch* batch) {
  const std::string& key = *w->key;
  if (w->op == Op::kCreate) {
    if (state->has_value()) {
      w->result = Status(StatusCode::kAlreadyExists, "key exists: " + key);
      return nullptr;
    }
  } else {
    if (!state->has_value()) {
      w->result = NotFoundError("key not found: " + key);
      return nullptr;
    }
    int64_t stored = (*state)->mod_revision;
    if (w->expected_mod_revision != 0 && w->expected_mod_revision != stored) {
      w->result = CasConflict(key, w->expected_mod_revision, stored);
      return nullptr;
    }
    if (w->op == Op::kUpdate && (*state)->value == w->value) {
      w->result = ToKeyValue(key, **state);  // nothing to write
      return nullptr;
    }
  }

  const int64_t prev_revision = state->has_value() ? (*state)->mod_revision : 0;
  auto e = std::make_shared<Event>();
  e->revision = revision;
  e->kv.key = key;
  e->kv.mod_revision = revision;
  format::Record r;
  r.mod_revision = revision;
  switch (w->op) {
    case Op::kCreate:
      r.create_revision = revision;
      r.version = 1;
      r.value = std::move(w->value);
      break;
    case Op::kUpdate:
      r.create_revision = (*state)->create_revision;
      r.version = (*state)->version + 1;
      r.value = std::move(w->value);
      e->has_prev = true;
      e->prev_value = std::move((*state)->value);
      break;
    case Op::kDelete:
      r.create_revision = (*state)->create_revision;
      r.version = (*state)->version;
      r.tombstone = true;
      e->type = Event::Type::kDelete;
      e->has_prev = true;
      e->prev_value = (*state)->value;
      e->kv.value = std::move((*state)->value);
      break;
  }
  e->kv.create_revision = r.create_revision;
  e->kv.version = r.version;
  if (!r.tombstone) e->kv.value = r.value;

  // The value goes to "current" and, once, to the log; history refers to
  // the log entry (rocks_format.h).
  if (r.tombstone) {
    batch->Delete(current_cf_, key);
  } else {
    batch->Put(current_cf_, key, format::EncodeRecord(r));
  }
  batch->Put(history_cf_, format::HistoryKey(key, revision),
             format::EncodeHistoryReference(r));
  batch->Put(log_cf_, format::RevisionKey(revision),
             format::EncodeLogEntry(*e, prev_revision));

  w->result = e->kv;
  if (r.tombstone) {
    state->reset();
  } else {
    *state = std::move(r);
  }
  return e;
}

}  // namespace kmock::store
