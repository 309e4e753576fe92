#include "registry/served_object.h"

#include <functional>

#include "api/json_encode.h"
#include "api/typed_json.h"
#include "common/fast_json.h"
#include "registry/object_codec.h"
#include "registry/stored_json.h"

namespace kmock::registry {

using nlohmann::json;

std::string EncodeServedJson(const json& object) {
  return api::EncodeTypedJson(object);
}

ServedObject::ServedObject(BytesOnly, std::string bytes) : given_(true) {
  std::call_once(encoded_, [&] { bytes_ = std::move(bytes); });
}

std::shared_ptr<const ServedObject> ServedObject::FromBytes(std::string bytes) {
  return std::shared_ptr<const ServedObject>(
      new ServedObject(BytesOnly{}, std::move(bytes)));
}

void ServedObject::Parse() const {
  std::call_once(parse_once_, [this] {
    object_ = ParseJson(bytes_);
    // Bytes this process wrote from a valid object cannot fail to parse;
    // should they, readers get an empty object rather than a crash.
    if (object_.is_discarded() || !object_.is_object())
      object_ = json::object();
    parsed_.store(true, std::memory_order_release);
  });
}

ServedObject::ServedObject(json object, std::string bytes)
    : object_(std::move(object)), given_(true) {
  parsed_.store(true, std::memory_order_relaxed);
  std::call_once(encoded_, [&] { bytes_ = std::move(bytes); });
}

const std::string& ServedObject::JsonBytes() const {
  std::call_once(encoded_, [this] { bytes_ = EncodeServedJson(object_); });
  return bytes_;
}

void AppendListItemJson(const ServedObject& object, std::string* out) {
  // The served bytes start {"kind":"K","apiVersion":"V", (Go's TypeMeta
  // order); an item is the same bytes without that prefix.
  const std::string& bytes = object.JsonBytes();
  const json& v = object.value();
  auto kind = v.find("kind");
  auto api_version = v.find("apiVersion");
  if (kind != v.end() && kind->is_string() && api_version != v.end() &&
      api_version->is_string()) {
    std::string prefix = "{\"kind\":";
    api::AppendJsonString(kind->get_ref<const std::string&>(), &prefix);
    prefix += ",\"apiVersion\":";
    api::AppendJsonString(api_version->get_ref<const std::string&>(), &prefix);
    prefix += ',';
    if (bytes.starts_with(prefix)) {
      out->push_back('{');
      out->append(bytes, prefix.size());
      return;
    }
  }
  const api::Type* type = api::TypeOfObject(v);
  json item = v;
  if (item.is_object()) {
    item.erase("kind");
    item.erase("apiVersion");
  }
  if (type) {
    api::AppendObjectJson(item, *type, out, api::Schema::Builtin());
  } else {
    api::AppendJson(item, out);
  }
}

size_t ServedObjectCache::SlotOf(const api::ResourceInfo& res,
                                 std::string_view key, int64_t revision) const {
  size_t h = std::hash<std::string_view>{}(key) ^
             (std::hash<int64_t>{}(revision)*0x9e3779b97f4a7c15ULL) ^
             std::hash<const void*>{}(&res);
  return h % kSlots;
}

ServedPtr ServedObjectCache::Lookup(size_t slot, const api::ResourceInfo& res,
                                    std::string_view key, int64_t revision) {
  std::lock_guard<std::mutex> l(locks_[slot % kStripes]);
  const Slot& s = slots_[slot];
  if (s.res != &res || s.revision != revision || s.key != key) return nullptr;
  ServedPtr found = s.object ? s.object : s.held.lock();
  if (found) hits_.fetch_add(1, std::memory_order_relaxed);
  return found;
}

Result<ServedPtr> ServedObjectCache::DecodeMetadata(
    const api::ResourceInfo& res, std::string_view key, std::string_view bytes,
    int64_t revision) {
  // A cached object serves as its metadata view once its tree exists; a
  // bytes-only one would be parsed whole for a reader of its metadata.
  ServedPtr hit = Lookup(SlotOf(res, key, revision), res, key, revision);
  if (hit && hit->HasTree()) return hit;
  KMOCK_ASSIGN_OR_RETURN(json obj, DecodeObjectMetadata(res, bytes, revision));
  return MakeServed(std::move(obj));
}

Result<ServedPtr> ServedObjectCache::Decode(const api::ResourceInfo& res,
                                            std::string_view key,
                                            std::string_view bytes,
                                            int64_t revision, bool remember) {
  const size_t slot = SlotOf(res, key, revision);
  std::mutex& lock = locks_[slot % kStripes];
  if (ServedPtr hit = Lookup(slot, res, key, revision)) return hit;
  misses_.fetch_add(1, std::memory_order_relaxed);
  // The served bytes are the stored ones with the revision put back: a
  // copy now instead of an encode for each watch stream or cold cache,
  // and the tree parsed from them only when a reader asks for it.
  std::string text;
  ServedPtr served;
  if (AppendServedFromStored(res, bytes, revision, true, &text)) {
    served = ServedObject::FromBytes(std::move(text));
  } else {
    KMOCK_ASSIGN_OR_RETURN(json obj, DecodeObject(res, bytes, revision));
    served = MakeServed(std::move(obj));
  }
  if (!remember) return served;
  // A decoded object takes a few times its JSON text in memory.
  const size_t charge = 4 * bytes.size() + key.size() + 256;
  ServedPtr evicted;  // destroyed after the lock is released
  {
    std::lock_guard<std::mutex> l(lock);
    Slot& s = slots_[slot];
    s.res = &res;
    s.revision = revision;
    s.key.assign(key);
    evicted = std::exchange(s.object, served);
    s.held = served;
    charged_.fetch_add(charge, std::memory_order_relaxed);
    charged_.fetch_sub(s.charge, std::memory_order_relaxed);
    s.charge = charge;
  }
  EvictOverBudget(slot);
  return served;
}

Result<json> ServedObjectCache::DecodeCopy(const api::ResourceInfo& res,
                                           std::string_view key,
                                           std::string_view bytes,
                                           int64_t revision) {
  if (ServedPtr hit = Lookup(SlotOf(res, key, revision), res, key, revision))
    return hit->value();
  misses_.fetch_add(1, std::memory_order_relaxed);
  return DecodeObject(res, bytes, revision);
}

void ServedObjectCache::EvictOverBudget(size_t keep) {
  for (size_t swept = 0;
       swept < kSlots && charged_.load(std::memory_order_relaxed) > budget_;
       ++swept) {
    size_t i = hand_.fetch_add(1, std::memory_order_relaxed) % kSlots;
    // Never the object just decoded: the other watchers of its event are
    // about to ask for it.
    if (i == keep) continue;
    ServedPtr victim;
    std::lock_guard<std::mutex> l(locks_[i % kStripes]);
    Slot& s = slots_[i];
    if (!s.object) continue;
    victim = std::move(s.object);
    s.object.reset();
    charged_.fetch_sub(s.charge, std::memory_order_relaxed);
    s.charge = 0;
  }
}

}  // namespace kmock::registry
