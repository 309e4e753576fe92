// The HTTP library's task queue, grown on demand: each accepted connection
// runs as one task for its whole life (TLS handshake, keep-alive requests,
// watch streams), so the pool starts a thread per busy connection instead of
// parking a fixed army of threads at start-up.
//
// - A few warm workers stay idle, ready for the next connection.
// - A task that finds no idle worker gets a new thread, up to max_workers.
// - A spare worker (beyond the warm ones) that stays idle for idle_exit
//   exits, so a burst does not leave its threads behind.
// - A task beyond max_workers is refused: it is run at once on the calling
//   (accepting) thread with CurrentTaskRefused() true, so that the server's
//   connection hook can close its socket before anything is read. Nothing
//   is ever queued behind busy workers.
// - Threads get small stacks (stack_bytes), a few hundred KiB instead of the
//   8 MiB default; only the pages touched count against RSS.
//
// Thread safety: enqueue, shutdown and the accessors are safe from any
// thread. shutdown waits for running tasks to finish: the caller ends long
// tasks first (the server closes their sockets). Tasks enqueued after
// shutdown are refused.
#ifndef KMOCK_SERVER_CONNECTION_POOL_H_
#define KMOCK_SERVER_CONNECTION_POOL_H_

#include <httplib.h>
#include <pthread.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <vector>

namespace kmock::server {

struct ConnectionPoolOptions {
  // Idle workers kept ready (started with the pool, never retired).
  size_t warm_workers = 4;
  // Tasks (connections) running at once; more are refused.
  size_t max_workers = 10000;
  // A spare worker idle this long exits.
  std::chrono::milliseconds idle_exit{30000};
  // Stack size of each worker thread.
  size_t stack_bytes = 512 * 1024;
};

class ConnectionPool : public httplib::TaskQueue {
 public:
  explicit ConnectionPool(ConnectionPoolOptions options);
  ~ConnectionPool() override;  // calls shutdown()
  ConnectionPool(const ConnectionPool&) = delete;
  ConnectionPool& operator=(const ConnectionPool&) = delete;

  // Runs fn on an idle worker, on a new one, or (beyond max_workers, or
  // after shutdown) refused on the calling thread.
  void enqueue(std::function<void()> fn) override;
  // Stops taking tasks, lets running ones finish and joins every worker.
  // Idempotent.
  void shutdown() override;

  // True while the calling thread runs a task that was refused.
  static bool CurrentTaskRefused();

  size_t threads() const;  // worker threads alive
  size_t busy() const;     // tasks running on workers
  uint64_t refused() const;
  uint64_t started_threads() const;  // threads ever started

 private:
  static void* ThreadMain(void* arg);
  void WorkerLoop();
  // REQUIRES: mu_ held. Starts one worker thread; false if it could not.
  bool StartWorkerLocked();
  // REQUIRES: mu_ held. Joins workers that have finished their loop.
  void ReapLocked();
  void RunRefused(std::function<void()>& fn);

  const ConnectionPoolOptions options_;
  mutable std::mutex mu_;
  std::condition_variable work_cv_;         // a job arrived, or shutdown
  std::condition_variable exit_cv_;         // a worker exited
  std::deque<std::function<void()>> jobs_;  // guarded by mu_
  size_t threads_ = 0;                      // guarded by mu_
  size_t idle_ = 0;                         // guarded by mu_
  size_t busy_ = 0;                         // guarded by mu_
  uint64_t refused_ = 0;                    // guarded by mu_
  uint64_t started_ = 0;                    // guarded by mu_
  bool shutdown_ = false;                   // guarded by mu_
  std::vector<pthread_t> exited_;           // guarded by mu_; to join
  pthread_attr_t attr_;
};

}  // namespace kmock::server

#endif  // KMOCK_SERVER_CONNECTION_POOL_H_
