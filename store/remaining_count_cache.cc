#include "store/remaining_count_cache.h"

#include <algorithm>

namespace kmock::store {

void RemainingCountCache::Put(const void* owner, std::string_view prefix,
                              int64_t revision, std::string_view last_key,
                              int64_t count) {
  Key key{owner, std::string(prefix), revision, std::string(last_key)};
  std::lock_guard<std::mutex> l(mu_);
  auto [it, inserted] = counts_.insert_or_assign(key, count);
  if (!inserted) return;
  order_.push_back(std::move(key));
  while (counts_.size() > capacity_) {
    counts_.erase(order_.front());
    order_.pop_front();
  }
}

std::optional<int64_t> RemainingCountCache::CountFrom(
    const void* owner, std::string_view prefix, int64_t revision,
    std::string_view start_key) {
  if (start_key.empty() ||
      (start_key.back() != '\0' && start_key.back() != '\x01')) {
    return std::nullopt;
  }
  start_key.remove_suffix(1);
  Key key{owner, std::string(prefix), revision, std::string(start_key)};
  std::lock_guard<std::mutex> l(mu_);
  auto it = counts_.find(key);
  if (it == counts_.end()) return std::nullopt;
  return it->second;
}

void RemainingCountCache::Forget(const void* owner) {
  std::lock_guard<std::mutex> l(mu_);
  std::erase_if(counts_, [owner](const auto& e) {
    return std::get<0>(e.first) == owner;
  });
  std::erase_if(order_,
                [owner](const Key& k) { return std::get<0>(k) == owner; });
}

size_t RemainingCountCache::SizeForTest() {
  std::lock_guard<std::mutex> l(mu_);
  return counts_.size();
}

}  // namespace kmock::store
