#include "controllers/event_correlator.h"

#include <algorithm>
#include <utility>

#include "common/fnv.h"

namespace kmock::controllers {

namespace {

using nlohmann::json;

constexpr char kCombinedPrefix[] = "(combined from similar events): ";

const std::string& Str(const json& obj, const char* key) {
  static const std::string kEmpty;
  if (!obj.is_object()) return kEmpty;
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get_ref<const std::string&>()
                                            : kEmpty;
}

// Fields joined with a separator no field holds.
std::string Key(std::initializer_list<const std::string*> parts) {
  std::string key;
  for (const std::string* p : parts) {
    key.append(*p);
    key.push_back('\x1f');
  }
  return key;
}

}  // namespace

EventCorrelator::Digest EventCorrelator::DigestOf(std::string_view joined) {
  // Two independent 64-bit hashes: the standard library's (MurmurHash2 in
  // libstdc++) and FNV-1a. The keys come from our own components, not from
  // clients, so a chance collision (about 1 in 10^38 per pair) is all
  // there is to fear.
  return Digest{Fnv1a64(joined), std::hash<std::string_view>{}(joined)};
}

template <typename V>
V& EventCorrelator::Lru<V>::Touch(const Digest& key) {
  auto it = index_.find(key);
  if (it != index_.end()) {
    order_.splice(order_.begin(), order_, it->second);
    return it->second->second;
  }
  order_.emplace_front(key, V{});
  index_[key] = order_.begin();
  if (order_.size() > capacity_) {
    index_.erase(order_.back().first);
    order_.pop_back();
  }
  return order_.front().second;
}

EventCorrelator::EventCorrelator(NameFunc name_event,
                                 EventCorrelatorOptions options)
    : name_event_(std::move(name_event)),
      options_(options),
      similar_(options.cache_entries),
      observed_(options.cache_entries),
      buckets_(options.cache_entries) {}

CorrelatedEvent EventCorrelator::Correlate(json event, TimePoint now) {
  const json& src = event["source"];
  const json& io = event["involvedObject"];
  const std::string &component = Str(src, "component"),
                    &host = Str(src, "host"), &kind = Str(io, "kind"),
                    &ns = Str(io, "namespace"), &name = Str(io, "name"),
                    &uid = Str(io, "uid"), &api_version = Str(io, "apiVersion"),
                    &field_path = Str(io, "fieldPath"),
                    &type = Str(event, "type"), &reason = Str(event, "reason"),
                    &message = Str(event, "message");
  const Digest event_key =
      DigestOf(Key({&component, &host, &kind, &ns, &name, &field_path, &uid,
                    &api_version, &type, &reason, &message}));
  const Digest similar_key = DigestOf(Key(
      {&component, &host, &kind, &ns, &name, &uid, &api_version, &type, &reason,
       &Str(event, "reportingComponent"), &Str(event, "reportingInstance")}));
  const Digest spam_key =
      DigestOf(Key({&component, &host, &kind, &ns, &name, &uid, &api_version}));
  const uint64_t message_digest = DigestOf(message).lo;

  std::lock_guard<std::mutex> l(mu_);
  // Aggregation: the max_similar-th message of a kind within the window
  // turns into the combined event, observed under the similar key.
  Digest observed_key = event_key;
  Similar& similar = similar_.Touch(similar_key);
  if (now - similar.last > options_.similar_window) similar = Similar{};
  auto at = std::lower_bound(similar.messages.begin(), similar.messages.end(),
                             message_digest);
  if (at == similar.messages.end() || *at != message_digest) {
    similar.messages.insert(at, message_digest);
  }
  similar.last = now;
  if (similar.messages.size() >= options_.max_similar) {
    similar.messages.erase(similar.messages.begin());
    event["metadata"]["name"] = name_event_(name);
    event["message"] = kCombinedPrefix + message;
    event["count"] = 1;
    observed_key = similar_key;
  }
  // Deduplication: a repeat updates the first event's count.
  CorrelatedEvent out;
  Observed& seen = observed_.Touch(observed_key);
  if (seen.count > 0) {
    out.action = CorrelatedEvent::Action::kUpdate;
    event["count"] = seen.count + 1;
    event["firstTimestamp"] = seen.first_timestamp;
    event["metadata"]["name"] = seen.name;
  }
  seen.count = event.value("count", int64_t{1});
  seen.name = Str(event["metadata"], "name");
  seen.first_timestamp = Str(event, "firstTimestamp");
  // Spam filter: a token bucket per source and object.
  Bucket& bucket = buckets_.Touch(spam_key);
  if (!bucket.used) {
    bucket = Bucket{options_.burst, now, true};
  } else {
    double elapsed = std::chrono::duration<double>(now - bucket.last).count();
    if (elapsed > 0) {
      bucket.tokens = std::min(
          options_.burst, bucket.tokens + elapsed * options_.refill_per_second);
      bucket.last = now;
    }
  }
  if (bucket.tokens < 1) {
    out.action = CorrelatedEvent::Action::kDrop;
    return out;
  }
  bucket.tokens -= 1;
  out.event = std::move(event);
  return out;
}

}  // namespace kmock::controllers
