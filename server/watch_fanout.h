// Writes watch events for many streams from a few threads.
//
// Each watch stream is served on its connection's thread, which parked one
// thread per watch waiting for its next event: with a thousand watchers,
// every write woke a thousand threads, each making its own context switch,
// poll calls and TLS write, and the write that caused it queued behind them
// all. With a fan-out, a stream's connection thread parks for a while at a
// time (so it still notices departed clients, deadlines and bookmarks), and
// the store's ready callback queues the stream here; one of a few writer
// threads then takes its events and writes them on the connection's behalf
// while that thread is parked. A client that does not keep up is handed back
// to its own thread (see FanoutTarget::Deliver), so a writer never blocks on
// it.
//
// Thread safety: Ready may be called from any thread, including with store
// locks held (it only queues); Start and Stop from one thread.
#ifndef KMOCK_SERVER_WATCH_FANOUT_H_
#define KMOCK_SERVER_WATCH_FANOUT_H_

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace kmock::server {

class FanoutTarget {
 public:
  virtual ~FanoutTarget() = default;
  // Writes what the stream has ready, without blocking on its client: what
  // does not fit its socket's buffer now is left to the stream's own thread.
  virtual void Deliver() = 0;
};

class WatchFanout {
 public:
  explicit WatchFanout(int threads);
  ~WatchFanout();
  WatchFanout(const WatchFanout&) = delete;
  WatchFanout& operator=(const WatchFanout&) = delete;

  void Start();
  // Joins the writers; queued targets are dropped. Idempotent.
  void Stop();

  // Queues a Deliver on a writer thread. Holds only a weak reference: a
  // stream that has ended by then is skipped, and no stream is destroyed
  // from inside a caller's lock.
  void Ready(std::weak_ptr<FanoutTarget> target);

 private:
  void Run();

  const int thread_count_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::weak_ptr<FanoutTarget>> ready_;  // GUARDED_BY(mu_)
  bool stop_ = false;                              // GUARDED_BY(mu_)
  int idle_ = 0;  // writers waiting on cv_; GUARDED_BY(mu_)
  std::vector<std::thread> threads_;
};

}  // namespace kmock::server

#endif  // KMOCK_SERVER_WATCH_FANOUT_H_
