#include "server/connection_watchdog.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

namespace kmock::server {
namespace {

using namespace std::chrono_literals;
using SteadyTime = ConnectionWatchdog::SteadyTime;

// A connected socket pair; the test watches `server`.
struct Pair {
  Pair() { EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0); }
  ~Pair() {
    close(fds[0]);
    close(fds[1]);
  }
  int server() const { return fds[0]; }
  int client() const { return fds[1]; }
  // Whether the client sees the server's side shut down (end of file).
  bool ClientSeesEof() const {
    pollfd p{client(), POLLIN, 0};
    if (poll(&p, 1, 0) != 1) return false;
    char c;
    return recv(client(), &c, 1, MSG_DONTWAIT) == 0;
  }
  int fds[2];
};

TEST(ConnectionWatchdogTest, CutsOnlyPassedDeadlines) {
  ConnectionWatchdog w(50ms);
  Pair late, early, none;
  SteadyTime t0 = std::chrono::steady_clock::now();
  w.Track(late.server(), t0 + 10s);
  w.Track(early.server(), t0 + 1s);
  w.Track(none.server(), std::nullopt);
  EXPECT_EQ(w.CutExpired(t0), 0);
  EXPECT_EQ(w.CutExpired(t0 + 2s), 1);
  EXPECT_TRUE(early.ClientSeesEof());
  EXPECT_FALSE(late.ClientSeesEof());
  EXPECT_FALSE(none.ClientSeesEof());
  // Cut once only.
  EXPECT_EQ(w.CutExpired(t0 + 3s), 0);
  EXPECT_EQ(w.cut(), 1u);
}

TEST(ConnectionWatchdogTest, DeadlinesMoveAndForgottenSocketsAreLeftAlone) {
  ConnectionWatchdog w(50ms);
  Pair a, b;
  SteadyTime t0 = std::chrono::steady_clock::now();
  w.Track(a.server(), t0 + 1s);
  w.Track(b.server(), t0 + 1s);
  w.SetDeadline(a.server(), std::nullopt);  // a request is being served
  w.Forget(b.server());                     // closed by its owner
  EXPECT_EQ(w.tracked(), 1u);
  EXPECT_EQ(w.CutExpired(t0 + 5s), 0);
  EXPECT_FALSE(a.ClientSeesEof());
  EXPECT_FALSE(b.ClientSeesEof());
  w.SetDeadline(a.server(), t0 + 6s);
  w.SetDeadline(b.server(), t0 + 6s);  // untracked: ignored
  EXPECT_EQ(w.tracked(), 1u);
  EXPECT_EQ(w.CutExpired(t0 + 7s), 1);
  EXPECT_TRUE(a.ClientSeesEof());
}

TEST(ConnectionWatchdogTest, ItsThreadWakesABlockedReader) {
  ConnectionWatchdog w(20ms);
  w.Start();
  Pair p;
  w.Track(p.server(), std::chrono::steady_clock::now() + 100ms);
  char buf[8];
  auto start = std::chrono::steady_clock::now();
  // Blocks until the watchdog shuts the socket down.
  ssize_t n = recv(p.server(), buf, sizeof(buf), 0);
  auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(n, 0);
  EXPECT_GE(waited, 80ms);
  EXPECT_LT(waited, 2s);
  w.Stop();
  w.Stop();
}

TEST(ConnectionWatchdogTest, CutAllShutsEverySocket) {
  ConnectionWatchdog w(50ms);
  Pair a, b;
  w.Track(a.server(), std::nullopt);
  w.Track(b.server(), std::chrono::steady_clock::now() + 1h);
  w.CutAll();
  EXPECT_TRUE(a.ClientSeesEof());
  EXPECT_TRUE(b.ClientSeesEof());
}

// A TCP connection over loopback; the test watches `server`, which sends.
struct TcpPair {
  TcpPair() {
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    EXPECT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&addr), len), 0);
    EXPECT_EQ(getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len),
              0);
    EXPECT_EQ(listen(listener, 1), 0);
    client_fd = socket(AF_INET, SOCK_STREAM, 0);
    int small = 4096;
    setsockopt(client_fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
    EXPECT_EQ(
        connect(client_fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)),
        0);
    server_fd = accept(listener, nullptr, nullptr);
    close(listener);
    setsockopt(server_fd, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
    fcntl(server_fd, F_SETFL, O_NONBLOCK);
  }
  ~TcpPair() {
    close(server_fd);
    close(client_fd);
  }
  // Sends until the client's window and the server's buffer are full.
  void FillUp() {
    char buf[4096] = {};
    for (int i = 0; i < 100000; ++i) {
      if (send(server_fd, buf, sizeof(buf), MSG_NOSIGNAL) < 0) break;
    }
    // Let the kernel settle on a zero window.
    std::this_thread::sleep_for(50ms);
  }
  size_t Drain() {
    char buf[65536];
    size_t total = 0;
    for (;;) {
      ssize_t n = recv(client_fd, buf, sizeof(buf), MSG_DONTWAIT);
      if (n <= 0) break;
      total += static_cast<size_t>(n);
    }
    return total;
  }
  bool ServerShutDown() const {
    char c = 0;
    return send(server_fd, &c, 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 &&
           errno == EPIPE;
  }
  int server_fd = -1;
  int client_fd = -1;
};

TEST(ConnectionWatchdogTest,
     CutsAResponseThePeerTakesNothingOfForTheWriteTimeout) {
  ConnectionWatchdog w(50ms);
  TcpPair stalled, reading, idle, no_timeout;
  w.Track(stalled.server_fd, std::nullopt, 10s);
  w.Track(reading.server_fd, std::nullopt, 10s);
  w.Track(idle.server_fd, std::nullopt, 10s);
  w.Track(no_timeout.server_fd, std::nullopt);
  stalled.FillUp();
  reading.FillUp();
  no_timeout.FillUp();
  SteadyTime t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(w.CutStalled(t0), 0);
  // Progress within the timeout restarts it, however long the response
  // takes as a whole.
  EXPECT_EQ(w.CutStalled(t0 + 6s), 0);
  EXPECT_GT(reading.Drain(), 0u);
  reading.FillUp();  // the response goes on
  EXPECT_EQ(w.CutStalled(t0 + 9s), 0);
  EXPECT_EQ(w.CutStalled(t0 + 11s), 1);
  EXPECT_TRUE(stalled.ServerShutDown());
  EXPECT_FALSE(reading.ServerShutDown());
  EXPECT_FALSE(idle.ServerShutDown());
  EXPECT_FALSE(no_timeout.ServerShutDown());
  // Cut once only. The reader, once it stops reading, is cut a write
  // timeout after its last progress (which the data its reads let in may
  // have made after the look at 9 s).
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(w.CutStalled(t0 + 30s) + w.CutStalled(t0 + 41s), 1);
  EXPECT_TRUE(reading.ServerShutDown());
  EXPECT_EQ(w.stalled(), 2u);
  EXPECT_EQ(w.cut(), 0u);
}

}  // namespace
}  // namespace kmock::server
