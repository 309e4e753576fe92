#include "server/connection_watchdog.h"

#include <sys/socket.h>

#include "common/thread_name.h"

namespace kmock::server {

ConnectionWatchdog::ConnectionWatchdog(std::chrono::milliseconds tick)
    : tick_(tick) {}

ConnectionWatchdog::~ConnectionWatchdog() { Stop(); }

void ConnectionWatchdog::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (thread_.joinable()) return;
  stop_ = false;
  thread_ = std::thread([this] {
    NameThisThread("conn-watchdog");
    Loop();
  });
}

void ConnectionWatchdog::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ConnectionWatchdog::Track(int fd, std::optional<SteadyTime> deadline) {
  if (fd < 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  sockets_[fd] = deadline;
}

void ConnectionWatchdog::SetDeadline(int fd,
                                     std::optional<SteadyTime> deadline) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sockets_.find(fd);
  if (it != sockets_.end()) it->second = deadline;
}

void ConnectionWatchdog::Forget(int fd) {
  std::lock_guard<std::mutex> lock(mu_);
  sockets_.erase(fd);
}

int ConnectionWatchdog::CutExpired(SteadyTime now) {
  std::lock_guard<std::mutex> lock(mu_);
  int n = 0;
  for (auto& [fd, deadline] : sockets_) {
    if (!deadline || *deadline > now) continue;
    // Under mu_, so fd cannot be forgotten and closed meanwhile.
    shutdown(fd, SHUT_RDWR);
    deadline.reset();  // cut once
    ++n;
  }
  cut_ += n;
  return n;
}

void ConnectionWatchdog::CutAll() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [fd, deadline] : sockets_) {
    shutdown(fd, SHUT_RDWR);
    deadline.reset();
  }
}

size_t ConnectionWatchdog::tracked() const {
  std::lock_guard<std::mutex> lock(mu_);
  return sockets_.size();
}

uint64_t ConnectionWatchdog::cut() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cut_;
}

void ConnectionWatchdog::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    cv_.wait_for(lock, tick_, [this] { return stop_; });
    if (stop_) break;
    lock.unlock();
    CutExpired(std::chrono::steady_clock::now());
    lock.lock();
  }
}

}  // namespace kmock::server
