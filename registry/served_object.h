// An object as served at one revision, decoded once and shared: every
// watcher and informer that receives the same store event gets the same
// ServedObject, and the JSON bytes a watch stream writes are encoded at most
// once per revision however many clients watch. An object decoded from
// stored bytes gets its served bytes from them (registry/stored_json: the
// stored bytes with the resourceVersion put back), not by encoding the
// tree again.
//
// ServedObjectCache maps (resource, key, revision) to the decoded object for
// the most recent revisions, so the N watchers of an event (the controllers'
// informers, kubectl get -w, client informers) decode it once between them.
// It is bounded twice: a fixed number of direct-mapped slots, and a budget
// of bytes (an estimate of the decoded objects' size) enforced by a clock
// hand that empties slots in turn until the cache is back under it. A slot
// the hand empties keeps a weak reference: while someone else still holds
// the object (an informer's cache, a controller in the middle of a sync),
// a lookup of that revision finds it instead of decoding the bytes again,
// which is what a read-modify-write of a pod the informers just delivered
// asks for; the budget counts only what the cache itself keeps alive.
//
// Thread safety: a ServedObject is immutable once built (its bytes are
// encoded, and a bytes-only object's tree parsed, under std::call_once);
// the cache is safe from any thread.
#ifndef KMOCK_REGISTRY_SERVED_OBJECT_H_
#define KMOCK_REGISTRY_SERVED_OBJECT_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "api/resource.h"
#include "common/status.h"

namespace kmock::registry {

class ServedObject {
 public:
  explicit ServedObject(nlohmann::json object) : object_(std::move(object)) {
    parsed_.store(true, std::memory_order_relaxed);
  }
  // REQUIRES: bytes are what EncodeServedJson(object) would give.
  ServedObject(nlohmann::json object, std::string bytes);
  // An object known by its served bytes, parsed into a tree on the first
  // value(): a reader that only sends the bytes (a JSON watch or list)
  // never parses it. REQUIRES: bytes are the JSON of an object.
  static std::shared_ptr<const ServedObject> FromBytes(std::string bytes);
  ServedObject(const ServedObject&) = delete;
  ServedObject& operator=(const ServedObject&) = delete;

  const nlohmann::json& value() const {
    if (!parsed_.load(std::memory_order_acquire)) Parse();
    return object_;
  }
  // The object's JSON as sent to clients (encoded on first use).
  const std::string& JsonBytes() const;
  // The JSON bytes if they came with the object (no encoding), else null.
  const std::string* GivenBytes() const { return given_ ? &bytes_ : nullptr; }
  // Whether the tree exists yet (false for a bytes-only object nobody has
  // asked for the value of).
  bool HasTree() const { return parsed_.load(std::memory_order_acquire); }

 private:
  struct BytesOnly {};
  ServedObject(BytesOnly, std::string bytes);
  void Parse() const;

  mutable nlohmann::json object_;
  mutable std::once_flag parse_once_;
  mutable std::atomic<bool> parsed_{false};
  mutable std::once_flag encoded_;
  mutable std::string bytes_;
  bool given_ = false;
};

using ServedPtr = std::shared_ptr<const ServedObject>;

inline ServedPtr MakeServed(nlohmann::json object) {
  return std::make_shared<const ServedObject>(std::move(object));
}

// The JSON text of an object as clients receive it.
std::string EncodeServedJson(const nlohmann::json& object);

// Appends the object as an item of a List: as served alone but without
// kind and apiVersion, which kube-apiserver leaves out of list items.
void AppendListItemJson(const ServedObject& object, std::string* out);

class ServedObjectCache {
 public:
  static constexpr size_t kDefaultBudgetBytes = 16 << 20;
  explicit ServedObjectCache(size_t budget_bytes = kDefaultBudgetBytes)
      : budget_(budget_bytes) {}
  ServedObjectCache(const ServedObjectCache&) = delete;
  ServedObjectCache& operator=(const ServedObjectCache&) = delete;

  // The served form (with apiVersion and kind) of `bytes`, the value of
  // `key` at `revision` as res decodes it: from the cache, or decoded now
  // (and remembered unless `remember` is false, e.g. for the items of a
  // large list that would only push out what watchers are about to use).
  Result<ServedPtr> Decode(const api::ResourceInfo& res, std::string_view key,
                           std::string_view bytes, int64_t revision,
                           bool remember = true);

  // The object of (res, key, revision) as a tree of the caller's own: a
  // copy of the cached one (a copy costs a fraction of a parse), else
  // decoded from bytes and not remembered (a read-modify-write of a
  // revision the watchers are done with must not push out what they are
  // about to use).
  Result<nlohmann::json> DecodeCopy(const api::ResourceInfo& res,
                                    std::string_view key,
                                    std::string_view bytes, int64_t revision);

  // For metadata watchers and lists: the cached served object when there is
  // one with its tree parsed (a full object serves as its own metadata
  // view), else apiVersion, kind and metadata decoded now and not
  // remembered.
  Result<ServedPtr> DecodeMetadata(const api::ResourceInfo& res,
                                   std::string_view key, std::string_view bytes,
                                   int64_t revision);

  uint64_t hits() const { return hits_.load(std::memory_order_relaxed); }
  uint64_t misses() const { return misses_.load(std::memory_order_relaxed); }
  // The estimated bytes held (may briefly exceed the budget by one entry).
  size_t charged_bytes() const {
    return charged_.load(std::memory_order_relaxed);
  }

 private:
  size_t SlotOf(const api::ResourceInfo& res, std::string_view key,
                int64_t revision) const;
  // The cached object of (res, key, revision), or null.
  ServedPtr Lookup(size_t slot, const api::ResourceInfo& res,
                   std::string_view key, int64_t revision);
  // Empties slots in turn until under budget, never the slot `keep`.
  void EvictOverBudget(size_t keep);

  static constexpr size_t kSlots = 2048;
  static constexpr size_t kStripes = 64;
  struct Slot {
    const api::ResourceInfo* res = nullptr;
    int64_t revision = 0;
    std::string key;
    ServedPtr object;
    // The same object, left behind when the hand empties the slot.
    std::weak_ptr<const ServedObject> held;
    size_t charge = 0;
  };
  std::array<std::mutex, kStripes> locks_;
  std::array<Slot, kSlots> slots_;
  std::atomic<uint64_t> hits_{0};
  std::atomic<uint64_t> misses_{0};
  const size_t budget_;
  std::atomic<size_t> charged_{0};
  std::atomic<size_t> hand_{0};
};

}  // namespace kmock::registry

#endif  // KMOCK_REGISTRY_SERVED_OBJECT_H_
