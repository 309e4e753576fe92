// RemainingCountCache: remembers, for recent list pages, how many keys came
// after the page, so that the next page of the same walk need not count
// them again.
//
// A list at revision R whose last item was key L had N keys under its
// prefix after L at R. The next page starts right after L (a continue
// token's start key is L + '\0'), so its remaining count is N minus its own
// items. The state at a retained revision never changes, so an entry stays
// true until the store is closed (its owner then calls Forget) or until R
// is compacted (the store then refuses reads at R anyway). Entries are
// dropped oldest first beyond a fixed capacity.
//
// Thread safety: every method may be called from any thread.
#ifndef KMOCK_STORE_REMAINING_COUNT_CACHE_H_
#define KMOCK_STORE_REMAINING_COUNT_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

namespace kmock::store {

class RemainingCountCache {
 public:
  explicit RemainingCountCache(size_t capacity) : capacity_(capacity) {}
  RemainingCountCache(const RemainingCountCache&) = delete;
  RemainingCountCache& operator=(const RemainingCountCache&) = delete;

  // Records that `owner`'s keys under `prefix` at `revision` include
  // `count` keys after `last_key`.
  void Put(const void* owner, std::string_view prefix, int64_t revision,
           std::string_view last_key, int64_t count);
  // How many keys follow a start key, if known: for a start key L + '\0'
  // (or L + '\x01', the same place as no key contains '\0'), the count
  // recorded after L. nullopt for any other start key.
  std::optional<int64_t> CountFrom(const void* owner, std::string_view prefix,
                                   int64_t revision,
                                   std::string_view start_key);
  // Drops every entry of `owner`.
  void Forget(const void* owner);

  size_t SizeForTest();

 private:
  using Key = std::tuple<const void*, std::string, int64_t, std::string>;

  const size_t capacity_;
  std::mutex mu_;
  std::map<Key, int64_t> counts_;  // guarded by mu_
  std::deque<Key> order_;          // insertion order; guarded by mu_
};

}  // namespace kmock::store

#endif  // KMOCK_STORE_REMAINING_COUNT_CACHE_H_
