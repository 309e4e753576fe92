#include "store/revision_cursor.h"

#include <algorithm>
#include <utility>

#include "store/store_health.h"

namespace kmock::store {
namespace {

std::string_view View(const rocksdb::Slice& s) {
  return std::string_view(s.data(), s.size());
}

}  // namespace

Status ReadValueAt(const SnapshotView& view,
                   const rocksdb::ReadOptions& options, std::string_view key,
                   int64_t revision, std::string* out) {
  auto at = [&] {
    return " of " + std::string(key) + " at revision " +
           std::to_string(revision);
  };
  rocksdb::PinnableSlice entry;
  rocksdb::Status rs =
      view.db->Get(options, view.log, format::RevisionKey(revision), &entry);
  if (rs.ok()) {
    format::LogEntryView e;
    if (!format::DecodeLogEntry(View(entry), &e) || e.key != key ||
        e.type != Event::Type::kPut) {
      return InternalError("corrupt log entry" + at());
    }
    out->assign(e.value.data(), e.value.size());
    return Status::Ok();
  }
  if (!rs.IsNotFound()) return FromRocks(rs, "reading the log");
  entry.Reset();
  rs = view.db->Get(options, view.history, format::HistoryKey(key, revision),
                    &entry);
  if (rs.IsNotFound()) return InternalError("no value" + at());
  if (!rs.ok()) return FromRocks(rs, "reading history");
  format::RecordView record;
  if (!format::DecodeRecordView(View(entry), &record) || record.tombstone ||
      record.value_in_log) {
    return InternalError("no value" + at());
  }
  out->assign(record.value.data(), record.value.size());
  return Status::Ok();
}

RevisionCursor::RevisionCursor(const SnapshotView& view, std::string prefix,
                               int64_t revision)
    : view_(view), prefix_(std::move(prefix)), revision_(revision) {
  read_options_.snapshot = view.snapshot;
  // A list reads each block once: keeping them would evict the blocks
  // point reads use (a full LIST of pods is hundreds of MB) and cost a
  // cache insert and eviction per block (a sixth of a LIST's CPU).
  read_options_.fill_cache = false;
}

Result<std::unique_ptr<RevisionCursor>> RevisionCursor::Open(
    const SnapshotView& view, std::string prefix, std::string start,
    int64_t revision) {
  std::unique_ptr<RevisionCursor> c(
      new RevisionCursor(view, std::move(prefix), revision));
  if (start.empty()) start = c->prefix_;
  if (revision < view.current_revision) {
    KMOCK_RETURN_IF_ERROR(c->LoadChangedKeys(start));
  }
  c->current_it_.reset(view.db->NewIterator(c->read_options_, view.current));
  c->current_it_->Seek(start);
  KMOCK_RETURN_IF_ERROR(c->Settle());
  return c;
}

Status RevisionCursor::LoadChangedKeys(std::string_view start) {
  std::unique_ptr<rocksdb::Iterator> it(
      view_.db->NewIterator(read_options_, view_.log));
  for (it->Seek(format::RevisionKey(revision_ + 1)); it->Valid(); it->Next()) {
    std::string_view key;
    if (!format::DecodeEventKey(View(it->value()), &key)) {
      return InternalError("corrupt log entry");
    }
    if (key.starts_with(prefix_) && key >= start) changed_.emplace_back(key);
  }
  if (!it->status().ok()) return FromRocks(it->status(), "reading the log");
  std::sort(changed_.begin(), changed_.end());
  changed_.erase(std::unique(changed_.begin(), changed_.end()), changed_.end());
  return Status::Ok();
}

Status RevisionCursor::LookUpHistory(std::string_view key, bool* found) {
  *found = false;
  if (history_it_ == nullptr) {
    history_it_.reset(view_.db->NewIterator(read_options_, view_.history));
  }
  // The key's entry with the largest revision <= revision_, if any: entries
  // of one key are contiguous and sorted by revision.
  history_it_->SeekForPrev(format::HistoryKey(key, revision_));
  if (!history_it_->Valid()) {
    if (!history_it_->status().ok()) {
      return FromRocks(history_it_->status(), "reading history");
    }
    return Status::Ok();
  }
  std::string_view entry_key;
  int64_t entry_revision;
  if (!format::ParseHistoryKey(View(history_it_->key()), &entry_key,
                               &entry_revision)) {
    return InternalError("corrupt history key");
  }
  if (entry_key != key) return Status::Ok();  // created after revision_
  std::string_view record = View(history_it_->value());
  format::RecordView state;
  if (!format::DecodeRecordView(record, &state)) {
    return InternalError("corrupt record in history");
  }
  if (state.tombstone) return Status::Ok();
  history_record_.assign(record.data(), record.size());
  if (state.value_in_log) {
    KMOCK_RETURN_IF_ERROR(ReadValueAt(view_, read_options_, key,
                                      state.mod_revision, &history_value_));
  }
  *found = true;
  return Status::Ok();
}

Status RevisionCursor::Settle() {
  for (;;) {
    bool have_current =
        current_it_->Valid() && View(current_it_->key()).starts_with(prefix_);
    if (!have_current && !current_it_->status().ok()) {
      return FromRocks(current_it_->status(), "listing");
    }
    bool have_changed = next_changed_ < changed_.size();
    if (!have_current && !have_changed) {
      valid_ = false;
      return Status::Ok();
    }
    if (have_current &&
        (!have_changed || View(current_it_->key()) < changed_[next_changed_])) {
      // Not written after revision_: "current" holds its state then.
      valid_ = true;
      from_current_ = true;
      key_ = View(current_it_->key());
      return Status::Ok();
    }
    // Written after revision_: its state then is in "history".
    const std::string& key = changed_[next_changed_++];
    if (have_current && View(current_it_->key()) == key) current_it_->Next();
    bool found;
    KMOCK_RETURN_IF_ERROR(LookUpHistory(key, &found));
    if (found) {
      valid_ = true;
      from_current_ = false;
      key_ = key;
      return Status::Ok();
    }
  }
}

Status RevisionCursor::Next() {
  if (from_current_) current_it_->Next();
  return Settle();
}

Status RevisionCursor::Read(format::RecordView* out) const {
  std::string_view record =
      from_current_ ? View(current_it_->value()) : history_record_;
  if (!format::DecodeRecordView(record, out)) {
    return InternalError(std::string("corrupt record in ") +
                         (from_current_ ? "current" : "history"));
  }
  if (out->value_in_log) out->value = history_value_;
  if (out->mod_revision > revision_) {
    // Only possible if the log missed a write: refuse rather than serve a
    // state from after the revision.
    return InternalError("record of " + std::string(key_) + " at revision " +
                         std::to_string(out->mod_revision) +
                         " is not in the log after " +
                         std::to_string(revision_));
  }
  return Status::Ok();
}

}  // namespace kmock::store
