#include "controllers/event_sink.h"

#include <algorithm>
#include <cstdio>

#include "common/thread_name.h"

namespace kmock::controllers {

namespace {

// Logs a failed write. An event about an object in a namespace that is
// gone or going is refused, as kube-apiserver refuses it; that is expected
// and not logged.
void Report(const Status& st) {
  if (st.ok() || st.code() == StatusCode::kForbidden ||
      st.code() == StatusCode::kNotFound) {
    return;
  }
  std::fprintf(stderr, "events: writing an event failed: %s\n",
               st.ToString().c_str());
}

}  // namespace

EventSink::EventSink(EventSinkOptions options) : options_(options) {
  const int writers = std::max(1, options_.writers);
  for (int i = 0; i < writers; ++i) threads_.emplace_back([this] { Run(); });
}

EventSink::~EventSink() { Stop(); }

void EventSink::Submit(Write write) {
  std::unique_lock<std::mutex> l(mu_);
  if (stopping_) {
    l.unlock();
    Report(write());
    return;
  }
  space_cv_.wait(l, [&] {
    return stopping_ ||
           queue_.size() < std::max<size_t>(1, options_.max_queued);
  });
  queue_.push_back(std::move(write));
  ++submitted_;
  work_cv_.notify_one();
}

void EventSink::Flush() {
  std::unique_lock<std::mutex> l(mu_);
  const uint64_t target = submitted_;
  done_cv_.wait(l, [&] { return finished_ >= target; });
}

void EventSink::Stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (stopping_ && threads_.empty()) return;
    stopping_ = true;
  }
  work_cv_.notify_all();
  space_cv_.notify_all();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  std::lock_guard<std::mutex> l(mu_);
  threads_.clear();
}

size_t EventSink::FailedWrites() const {
  std::lock_guard<std::mutex> l(mu_);
  return failed_;
}

void EventSink::Run() {
  NameThisThread("event-sink");
  std::unique_lock<std::mutex> l(mu_);
  while (true) {
    work_cv_.wait(l, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and nothing left to write
    Write write = std::move(queue_.front());
    queue_.pop_front();
    space_cv_.notify_one();
    l.unlock();
    Status st = write();
    Report(st);
    l.lock();
    if (!st.ok()) ++failed_;
    ++finished_;
    done_cv_.notify_all();
  }
}

}  // namespace kmock::controllers
