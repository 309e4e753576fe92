#include "store/watch_hub.h"

#include <algorithm>
#include <utility>

namespace kmock::store {

WatchQueue::WatchQueue(std::string prefix, size_t limit)
    : prefix_(std::move(prefix)), limit_(limit == 0 ? 1 : limit) {}

bool WatchQueue::Push(const std::vector<EventPtr>& events) {
  std::shared_ptr<const std::function<void()>> ready;
  bool alive = true;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (ended_) return false;
    size_t before = queue_.size();
    for (const EventPtr& e : events) {
      if (e->revision <= floor_) continue;
      if (queue_.size() >= limit_) {
        ended_ = true;
        end_status_ = Status(StatusCode::kFellBehind,
                             "watcher fell too far behind; watch again from "
                             "the last revision seen");
        queue_.clear();
        alive = false;
        break;
      }
      queue_.push_back(e);
    }
    if (!alive || queue_.size() != before) {
      cv_.notify_all();
      ready = ready_;
    }
  }
  if (ready) (*ready)();
  return alive;
}

void WatchQueue::SetReadyCallback(std::function<void()> callback) {
  std::lock_guard<std::mutex> l(mu_);
  if (callback) {
    ready_ = std::make_shared<const std::function<void()>>(std::move(callback));
  } else {
    ready_.reset();
  }
}

void WatchQueue::InstallReplay(std::vector<EventPtr> replay, int64_t through) {
  std::lock_guard<std::mutex> l(mu_);
  if (ended_) return;
  floor_ = std::max(floor_, through);
  while (!queue_.empty() && queue_.front()->revision <= floor_) {
    queue_.pop_front();
  }
  queue_.insert(queue_.begin(), std::make_move_iterator(replay.begin()),
                std::make_move_iterator(replay.end()));
  if (!queue_.empty()) cv_.notify_all();
  // No ready callback: replays are installed while the watch is made,
  // before anyone can have set one.
}

void WatchQueue::End(Status why) {
  std::shared_ptr<const std::function<void()>> ready;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (ended_) return;
    ended_ = true;
    end_status_ = std::move(why);
    queue_.clear();
    cv_.notify_all();
    ready = ready_;
  }
  if (ready) (*ready)();
}

bool WatchQueue::ended() {
  std::lock_guard<std::mutex> l(mu_);
  return ended_;
}

bool WatchQueue::empty() {
  std::lock_guard<std::mutex> l(mu_);
  return queue_.empty();
}

Status WatchQueue::Next(std::chrono::milliseconds timeout,
                        std::vector<EventPtr>* out) {
  std::deque<EventPtr> taken;
  {
    std::unique_lock<std::mutex> l(mu_);
    // A zero timeout is a poll: no timed wait (a clock read and a futex
    // call) when nothing is queued.
    if (timeout.count() > 0) {
      cv_.wait_for(l, timeout, [this] { return ended_ || !queue_.empty(); });
    }
    if (ended_) return end_status_;
    taken.swap(queue_);
  }
  // Shared, not copied: a pod event with its previous value is ~10 KB, and
  // every watcher of the prefix gets it.
  out->reserve(out->size() + taken.size());
  for (EventPtr& e : taken) out->push_back(std::move(e));
  return Status::Ok();
}

void WatchHub::SetPublishedRevision(int64_t revision) {
  std::lock_guard<std::mutex> l(mu_);
  published_ = revision;
}

int64_t WatchHub::published_revision() {
  std::lock_guard<std::mutex> l(mu_);
  return published_;
}

Result<int64_t> WatchHub::Register(std::shared_ptr<WatchQueue> queue) {
  std::lock_guard<std::mutex> l(mu_);
  if (closed_) {
    return Status(StatusCode::kServiceUnavailable, "storage is closed");
  }
  queues_.push_back(std::move(queue));
  return published_;
}

void WatchHub::Unregister(const WatchQueue* queue) {
  std::lock_guard<std::mutex> l(mu_);
  std::erase_if(queues_, [queue](const std::shared_ptr<WatchQueue>& q) {
    return q.get() == queue;
  });
}

void WatchHub::Publish(const std::vector<EventPtr>& events) {
  if (events.empty()) return;
  std::lock_guard<std::mutex> l(mu_);
  std::vector<EventPtr> matching;
  std::erase_if(queues_, [&](const std::shared_ptr<WatchQueue>& q) {
    matching.clear();
    for (const EventPtr& e : events) {
      if (e->kv.key.starts_with(q->prefix())) matching.push_back(e);
    }
    if (matching.empty()) return false;
    return !q->Push(matching);
  });
  published_ = events.back()->revision;
}

void WatchHub::CloseAll(const Status& why) {
  std::vector<std::shared_ptr<WatchQueue>> queues;
  {
    std::lock_guard<std::mutex> l(mu_);
    closed_ = true;
    queues.swap(queues_);
  }
  for (auto& q : queues) q->End(why);
}

size_t WatchHub::watcher_count() {
  std::lock_guard<std::mutex> l(mu_);
  return queues_.size();
}

HubWatcher::HubWatcher(std::shared_ptr<WatchHub> hub,
                       std::shared_ptr<WatchQueue> queue)
    : hub_(std::move(hub)), queue_(std::move(queue)) {}

HubWatcher::~HubWatcher() { Stop(); }

int64_t HubWatcher::IdleProgressRevision() {
  // Read the published revision first: Publish pushes to every queue before
  // it moves the revision (both under the hub's lock), so an empty queue
  // afterwards means every event up to it was handed out.
  int64_t published = hub_->published_revision();
  return queue_->empty() ? published : 0;
}

Status HubWatcher::Next(std::chrono::milliseconds timeout,
                        std::vector<EventPtr>* out) {
  return queue_->Next(timeout, out);
}

void HubWatcher::SetReadyCallback(std::function<void()> callback) {
  queue_->SetReadyCallback(std::move(callback));
}

void HubWatcher::Stop() {
  queue_->End(Status(StatusCode::kServiceUnavailable, "watch stopped"));
  hub_->Unregister(queue_.get());
}

}  // namespace kmock::store
