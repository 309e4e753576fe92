#include "server/connection_marks.h"

#include <poll.h>

// The C library declares poll's array write-only (for its fortify checks),
// so GCC takes every read of `events` here for a read of uninitialised
// memory; callers do set it.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <atomic>
#include <cerrno>
#include <cstdint>

// The C library's poll under its other name (glibc exports both).
extern "C" int __poll(struct pollfd* fds, nfds_t nfds, int timeout);

namespace kmock::server {
namespace {

constexpr uint8_t kPendingTlsInput = 1;
constexpr uint8_t kClosing = 2;

// Zero-initialised static storage: a page is only backed once a mark is
// written to it.
std::atomic<uint8_t> marks[kMaxMarkedFd];

bool InTable(int fd) { return fd >= 0 && fd < kMaxMarkedFd; }

void Set(int fd, uint8_t mark) {
  if (InTable(fd)) marks[fd].fetch_or(mark, std::memory_order_release);
}

}  // namespace

void MarkPendingTlsInput(int fd) { Set(fd, kPendingTlsInput); }

void MarkClosing(int fd) { Set(fd, kClosing); }

void ClearConnectionMarks(int fd) {
  if (InTable(fd) && marks[fd].load(std::memory_order_relaxed) != 0)
    marks[fd].store(0, std::memory_order_relaxed);
}

namespace {

// Answers a poll of one marked socket for input; -2 when the C library
// must be asked.
int MarkedPoll(struct pollfd* fds, nfds_t nfds) {
  if (nfds != 1 || (fds[0].events & POLLIN) == 0 || !InTable(fds[0].fd))
    return -2;
  std::atomic<uint8_t>& mark = marks[fds[0].fd];
  uint8_t m = mark.load(std::memory_order_acquire);
  if (m == 0) return -2;
  if ((m & kClosing) != 0) {
    errno = ECONNABORTED;
    return -1;
  }
  mark.fetch_and(static_cast<uint8_t>(~kPendingTlsInput),
                 std::memory_order_relaxed);
  fds[0].revents = POLLIN;
  return 1;
}

}  // namespace

}  // namespace kmock::server

// Every poll of the process, the HTTP library's included, comes here.
extern "C" int poll(struct pollfd* fds, nfds_t nfds, int timeout) {
  int marked = kmock::server::MarkedPoll(fds, nfds);
  if (marked != -2) return marked;
  return __poll(fds, nfds, timeout);
}
