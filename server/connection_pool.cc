#include "server/connection_pool.h"

#include <utility>

namespace kmock::server {
namespace {

thread_local bool refused_task = false;

// The smallest stack the C library accepts on every platform we build on.
constexpr size_t kMinStackBytes = 64 * 1024;

}  // namespace

ConnectionPool::ConnectionPool(ConnectionPoolOptions options)
    : options_(std::move(options)) {
  pthread_attr_init(&attr_);
  pthread_attr_setstacksize(&attr_,
                            std::max(options_.stack_bytes, kMinStackBytes));
  std::lock_guard<std::mutex> lock(mu_);
  size_t warm = std::min(options_.warm_workers, options_.max_workers);
  for (size_t i = 0; i < warm; ++i) {
    if (!StartWorkerLocked()) break;
  }
}

ConnectionPool::~ConnectionPool() {
  shutdown();
  pthread_attr_destroy(&attr_);
}

bool ConnectionPool::CurrentTaskRefused() { return refused_task; }

void ConnectionPool::enqueue(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ReapLocked();
    bool has_room = !shutdown_ && busy_ + jobs_.size() < options_.max_workers;
    if (has_room) {
      jobs_.push_back(std::move(fn));
      if (idle_ >= jobs_.size() || StartWorkerLocked()) {
        work_cv_.notify_one();
        return;
      }
      // No idle worker and no new thread: refuse rather than queue.
      fn = std::move(jobs_.back());
      jobs_.pop_back();
    }
    ++refused_;
  }
  RunRefused(fn);
}

void ConnectionPool::RunRefused(std::function<void()>& fn) {
  refused_task = true;
  fn();
  refused_task = false;
}

void ConnectionPool::shutdown() {
  std::unique_lock<std::mutex> lock(mu_);
  shutdown_ = true;
  work_cv_.notify_all();
  exit_cv_.wait(lock, [this] { return threads_ == 0; });
  ReapLocked();
}

size_t ConnectionPool::threads() const {
  std::lock_guard<std::mutex> lock(mu_);
  return threads_;
}

size_t ConnectionPool::busy() const {
  std::lock_guard<std::mutex> lock(mu_);
  return busy_;
}

uint64_t ConnectionPool::refused() const {
  std::lock_guard<std::mutex> lock(mu_);
  return refused_;
}

uint64_t ConnectionPool::started_threads() const {
  std::lock_guard<std::mutex> lock(mu_);
  return started_;
}

bool ConnectionPool::StartWorkerLocked() {
  pthread_t tid;
  if (pthread_create(&tid, &attr_, &ConnectionPool::ThreadMain, this) != 0)
    return false;
  ++threads_;
  ++idle_;  // counted idle until it takes its first job
  ++started_;
  return true;
}

void ConnectionPool::ReapLocked() {
  for (pthread_t tid : exited_) pthread_join(tid, nullptr);
  exited_.clear();
}

void* ConnectionPool::ThreadMain(void* arg) {
  static_cast<ConnectionPool*>(arg)->WorkerLoop();
  return nullptr;
}

void ConnectionPool::WorkerLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (jobs_.empty() && !shutdown_) {
      bool spare = threads_ > options_.warm_workers;
      if (spare) {
        work_cv_.wait_for(lock, options_.idle_exit,
                          [this] { return !jobs_.empty() || shutdown_; });
        // Still nothing to do: a spare worker retires.
        if (jobs_.empty() && !shutdown_ && threads_ > options_.warm_workers)
          break;
      } else {
        work_cv_.wait(lock, [this] { return !jobs_.empty() || shutdown_; });
      }
    }
    if (jobs_.empty()) {
      if (shutdown_) break;
      continue;
    }
    std::function<void()> fn = std::move(jobs_.front());
    jobs_.pop_front();
    --idle_;
    ++busy_;
    lock.unlock();
    fn();
    fn = nullptr;  // release captured state outside the lock
    lock.lock();
    --busy_;
    ++idle_;
  }
  --idle_;
  --threads_;
  exited_.push_back(pthread_self());
  exit_cv_.notify_all();
}

}  // namespace kmock::server
