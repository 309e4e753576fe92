#include "server/connection_watchdog.h"

#include <gtest/gtest.h>
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

}  // namespace
}  // namespace kmock::server
