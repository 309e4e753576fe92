// Writes Events on threads of its own, so that a component recording an
// event goes on without waiting for the write, as the event broadcaster of
// a real kubelet, scheduler or controller manager does. Without a sink an
// EventRecorder writes each event before Record returns.
//
// Writes from several threads at once share one commit of the store (its
// writes are grouped), which is what makes the sink cheaper than writing
// each event on the recording thread: a pod's start records five or six
// events in a row.
//
// Events are written in the order they are taken off the queue, by
// `writers` threads at once, so two events may reach the store in the
// other order; their names (stamped when recorded) keep list order. Submit
// blocks while `max_queued` events wait, so a burst slows the recorders
// down instead of growing the queue without bound or dropping events.
//
// Thread safety: Submit, Flush and Stop may be called from any thread. The
// registry must outlive the sink.
#ifndef KMOCK_CONTROLLERS_EVENT_SINK_H_
#define KMOCK_CONTROLLERS_EVENT_SINK_H_

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "common/status.h"

namespace kmock::controllers {

struct EventSinkOptions {
  int writers = 4;
  size_t max_queued = 4096;
};

class EventSink {
 public:
  // One queued event: writes it and says how it went.
  using Write = std::function<Status()>;

  explicit EventSink(EventSinkOptions options = {});
  ~EventSink();  // Stop()
  EventSink(const EventSink&) = delete;
  EventSink& operator=(const EventSink&) = delete;

  // Queues a write; after Stop, writes it on the calling thread.
  void Submit(Write write);
  // Returns once every write submitted before the call has been made.
  void Flush();
  // Makes the queued writes, then joins the threads. Idempotent.
  void Stop();

  // Writes that failed so far (each is also logged).
  size_t FailedWrites() const;

 private:
  void Run();

  const EventSinkOptions options_;
  mutable std::mutex mu_;
  std::condition_variable work_cv_;   // queue not empty, or stopping
  std::condition_variable space_cv_;  // room in the queue
  std::condition_variable done_cv_;   // a write finished
  std::deque<Write> queue_;           // guarded by mu_
  uint64_t submitted_ = 0;            // guarded by mu_
  uint64_t finished_ = 0;             // guarded by mu_
  size_t failed_ = 0;                 // guarded by mu_
  bool stopping_ = false;             // guarded by mu_
  std::vector<std::thread> threads_;
};

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_EVENT_SINK_H_
