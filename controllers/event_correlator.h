// What a component's event broadcaster does with an event before it is
// written, as client-go's event correlator does for core/v1 events:
//
// - aggregation: the tenth event within ten minutes from one source about
//   one object with the same type and reason but another message becomes
//   one "(combined from similar events): <message>" event, counted from
//   then on (a ReplicaSet's "Created pod: ..." events);
// - deduplication: an event seen before (same source, object, field path,
//   type, reason, message) is not created again: the first one's count
//   goes up and its lastTimestamp and message move on (kubectl describe's
//   "(x3 over 2m)");
// - spam filter: each source and object may have 25 events at once, then
//   one more per five minutes; the rest are dropped (after they counted).
//
// The caches hold 4,096 keys each, least recently used first out. A key is
// kept as a 128-bit digest of the fields it joins, and a similar event's
// message as a 64-bit one: there is a correlator per fake kubelet, and
// 5,000 of them holding the joined fields of every recent event took
// about 320 MB more at 150,000 pods.
//
// Thread safety: Correlate may be called from any thread.
#ifndef KMOCK_CONTROLLERS_EVENT_CORRELATOR_H_
#define KMOCK_CONTROLLERS_EVENT_CORRELATOR_H_

#include <cstdint>
#include <functional>
#include <list>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/clock.h"

namespace kmock::controllers {

struct CorrelatedEvent {
  enum class Action {
    kCreate,  // a new event (count 1)
    kUpdate,  // an event seen before: count, lastTimestamp, message
    kDrop,    // over the spam filter's rate
  };
  Action action = Action::kCreate;
  nlohmann::json event;  // what to write (for kUpdate: the event's new state)
};

struct EventCorrelatorOptions {
  size_t max_similar = 10;                   // aggregation threshold
  std::chrono::seconds similar_window{600};  // aggregation window
  double burst = 25;                         // spam filter bucket
  double refill_per_second = 1.0 / 300;
  size_t cache_entries = 4096;
};

class EventCorrelator {
 public:
  // Names a combined event (object name, the time it was made).
  using NameFunc = std::function<std::string(const std::string& object_name)>;

  EventCorrelator(NameFunc name_event, EventCorrelatorOptions options = {});

  // event: a core/v1 Event as BuildEvent makes it (legacy shape: count,
  // firstTimestamp, lastTimestamp).
  CorrelatedEvent Correlate(nlohmann::json event, TimePoint now);

 private:
  // A cache key: a digest of the joined fields (see DigestOf).
  struct Digest {
    uint64_t hi = 0, lo = 0;
    bool operator==(const Digest&) const = default;
  };
  struct DigestHash {
    size_t operator()(const Digest& d) const { return d.lo; }
  };
  static Digest DigestOf(std::string_view joined);

  template <typename V>
  class Lru {
   public:
    explicit Lru(size_t capacity) : capacity_(capacity) {}
    // The entry for key, made (default) if new; most recently used now.
    V& Touch(const Digest& key);

   private:
    size_t capacity_;
    std::list<std::pair<Digest, V>> order_;  // most recent first
    std::unordered_map<
        Digest, typename std::list<std::pair<Digest, V>>::iterator, DigestHash>
        index_;
  };

  struct Similar {
    // Digests of the distinct messages, sorted: at most max_similar of
    // them, and most groups have one (a vector costs a word per message
    // where a set costs a tree node).
    std::vector<uint64_t> messages;
    TimePoint last{};
  };
  struct Observed {
    int64_t count = 0;
    std::string name;
    std::string first_timestamp;
  };
  struct Bucket {
    double tokens = 0;
    TimePoint last{};
    bool used = false;
  };

  NameFunc name_event_;
  EventCorrelatorOptions options_;
  std::mutex mu_;
  Lru<Similar> similar_;
  Lru<Observed> observed_;
  Lru<Bucket> buckets_;
};

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_EVENT_CORRELATOR_H_
