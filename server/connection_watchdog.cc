#include "server/connection_watchdog.h"

#include <linux/sockios.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <cstddef>

#include "common/thread_name.h"

namespace kmock::server {
namespace {

// How often the thread looks for stalled writes.
constexpr std::chrono::milliseconds kStallCheckInterval{1000};

// Bytes the socket holds that the peer has not acknowledged (sent or not
// yet sent); 0 when it cannot tell.
int PendingBytes(int fd) {
  int n = 0;
  if (ioctl(fd, SIOCOUTQ, &n) != 0) return 0;
  return n;
}

// Bytes the peer has acknowledged so far; nullopt for a socket that is not
// TCP.
std::optional<uint64_t> AckedBytes(int fd) {
  tcp_info info{};
  socklen_t len = sizeof(info);
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) {
    return std::nullopt;
  }
  if (len <
      offsetof(tcp_info, tcpi_bytes_acked) + sizeof(info.tcpi_bytes_acked))
    return std::nullopt;
  return info.tcpi_bytes_acked;
}

}  // namespace

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

void ConnectionWatchdog::Track(
    int fd, std::optional<SteadyTime> deadline,
    std::optional<std::chrono::milliseconds> write_timeout) {
  if (fd < 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  Entry& e = sockets_[fd];
  e = Entry();
  e.deadline = deadline;
  e.write_timeout = write_timeout;
}

void ConnectionWatchdog::SetDeadline(int fd,
                                     std::optional<SteadyTime> deadline) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sockets_.find(fd);
  if (it != sockets_.end()) it->second.deadline = deadline;
}

void ConnectionWatchdog::Forget(int fd) {
  std::lock_guard<std::mutex> lock(mu_);
  sockets_.erase(fd);
}

int ConnectionWatchdog::CutExpired(SteadyTime now) {
  std::lock_guard<std::mutex> lock(mu_);
  int n = 0;
  for (auto& [fd, e] : sockets_) {
    if (!e.deadline || *e.deadline > now) continue;
    // Under mu_, so fd cannot be forgotten and closed meanwhile.
    shutdown(fd, SHUT_RDWR);
    e.deadline.reset();  // cut once
    e.cut = true;
    ++n;
  }
  cut_ += n;
  return n;
}

int ConnectionWatchdog::CutStalled(SteadyTime now) {
  std::lock_guard<std::mutex> lock(mu_);
  int n = 0;
  for (auto& [fd, e] : sockets_) {
    if (!e.write_timeout || e.cut) continue;
    if (PendingBytes(fd) <= 0) {
      e.stuck_since.reset();
      continue;
    }
    std::optional<uint64_t> acked = AckedBytes(fd);
    if (!acked) continue;
    if (!e.stuck_since || *acked != e.acked) {
      e.acked = *acked;
      e.stuck_since = now;
      continue;
    }
    if (now - *e.stuck_since < *e.write_timeout) continue;
    // Under mu_, so fd cannot be forgotten and closed meanwhile. Waking
    // the blocked writer makes the library drop the response and close.
    shutdown(fd, SHUT_RDWR);
    e.cut = true;
    e.deadline.reset();
    ++n;
  }
  stalled_ += n;
  return n;
}

void ConnectionWatchdog::CutAll() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [fd, e] : sockets_) {
    shutdown(fd, SHUT_RDWR);
    e.deadline.reset();
    e.cut = true;
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

uint64_t ConnectionWatchdog::stalled() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stalled_;
}

void ConnectionWatchdog::Loop() {
  SteadyTime next_stall_check = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    cv_.wait_for(lock, tick_, [this] { return stop_; });
    if (stop_) break;
    lock.unlock();
    SteadyTime now = std::chrono::steady_clock::now();
    CutExpired(now);
    if (now >= next_stall_check) {
      CutStalled(now);
      next_stall_check = now + kStallCheckInterval;
    }
    lock.lock();
  }
}

}  // namespace kmock::server
