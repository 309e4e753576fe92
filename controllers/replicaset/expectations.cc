#include "controllers/replicaset/expectations.h"

namespace kmock::controllers::replicaset {

namespace {
constexpr auto kTtl = std::chrono::minutes(5);
}  // namespace

void Expectations::ExpectCreations(const std::string& key, int count) {
  Expect(key, count, {});
}

void Expectations::ExpectDeletions(const std::string& key,
                                   const std::vector<std::string>& pod_keys) {
  Expect(key, 0, pod_keys);
}

void Expectations::Expect(const std::string& key, int count,
                          const std::vector<std::string>& pod_keys) {
  std::lock_guard<std::mutex> l(mu_);
  entries_[key] =
      Entry{count, {pod_keys.begin(), pod_keys.end()}, clock_->Now()};
}

void Expectations::CreationObserved(const std::string& key) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = entries_.find(key);
  if (it != entries_.end() && it->second.adds > 0) it->second.adds--;
}

void Expectations::DeletionObserved(const std::string& key,
                                    const std::string& pod_key) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = entries_.find(key);
  if (it != entries_.end()) it->second.deletes.erase(pod_key);
}

bool Expectations::Satisfied(const std::string& key) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return true;
  const Entry& e = it->second;
  if (e.adds <= 0 && e.deletes.empty()) return true;
  return clock_->Now() - e.set_at > kTtl;
}

void Expectations::Forget(const std::string& key) {
  std::lock_guard<std::mutex> l(mu_);
  entries_.erase(key);
}

}  // namespace kmock::controllers::replicaset
