#include "sim/servers.h"

#include <gtest/gtest.h>

#include "sim/container.h"

namespace kmock::sim {
namespace {

TimePoint T0() { return TimePoint(std::chrono::hours(24 * 365 * 56)); }

std::shared_ptr<Container> Started(const std::string& image,
                                   std::vector<std::string> argv = {}) {
  ProcessSpec spec;
  spec.image = ImageCatalog::Builtin().Find(image);
  spec.argv = argv.empty() ? ResolveArgv(spec.image, {}, {}) : argv;
  spec.hostname = "web-1";
  spec.start = T0();
  auto c = std::make_shared<Container>(spec, nullptr);
  c->Advance(T0());
  return c;
}

TEST(ServersTest, NginxServesItsWelcomePageAndLogsTheRequest) {
  auto c = Started("docker.io/library/nginx");
  auto conn = Container::Connect(c, 80, "127.0.0.1");
  ASSERT_NE(conn, nullptr);
  size_t before = c->Log().lines.size();
  std::string res = conn->Send(
      "GET / HTTP/1.1\r\nHost: localhost:8080\r\nUser-Agent: curl/8.5.0\r\n"
      "Accept: */*\r\n\r\n",
      T0() + std::chrono::seconds(5));
  EXPECT_EQ(res.rfind("HTTP/1.1 200 OK\r\nServer: nginx/", 0), 0u) << res;
  EXPECT_NE(res.find("Content-Type: text/html\r\n"), std::string::npos);
  EXPECT_NE(res.find("<h1>Welcome to nginx!</h1>"), std::string::npos);
  EXPECT_FALSE(conn->closed());  // keep-alive
  ContainerLog log = c->Log();
  ASSERT_EQ(log.lines.size(), before + 1);
  EXPECT_EQ(log.lines.back().text.rfind("127.0.0.1 - - [", 0), 0u);
  EXPECT_NE(log.lines.back().text.find("\"GET / HTTP/1.1\" 200 "),
            std::string::npos);
  EXPECT_NE(log.lines.back().text.find("\"curl/8.5.0\" \"-\"\n"),
            std::string::npos);

  // Pipelined: a missing page and a HEAD, then a close.
  res = conn->Send(
      "GET /nope HTTP/1.1\r\nHost: x\r\n\r\nHEAD / HTTP/1.1\r\nHost: x\r\n"
      "Connection: close\r\n\r\n",
      T0() + std::chrono::seconds(6));
  EXPECT_EQ(res.rfind("HTTP/1.1 404 Not Found\r\n", 0), 0u);
  EXPECT_NE(res.find("<center><h1>404 Not Found</h1></center>"),
            std::string::npos);
  size_t second = res.find("HTTP/1.1 200 OK");
  ASSERT_NE(second, std::string::npos);
  EXPECT_EQ(res.find("<html", second), std::string::npos);  // HEAD: no body
  EXPECT_TRUE(conn->closed());
}

TEST(ServersTest, RequestsSplitAcrossSendsAreAnsweredOnce) {
  auto c = Started("docker.io/library/httpd");
  auto conn = Container::Connect(c, 80, "127.0.0.1");
  ASSERT_NE(conn, nullptr);
  EXPECT_EQ(conn->Send("GET / HTTP/1.1\r\nHo", T0()), "");
  std::string res = conn->Send("st: x\r\n\r\n", T0());
  EXPECT_NE(res.find("<h1>It works!</h1>"), std::string::npos);
  EXPECT_NE(res.find("Server: Apache/"), std::string::npos);
}

TEST(ServersTest, NothingListensOnOtherPortsOrAfterExit) {
  auto c = Started("docker.io/library/nginx");
  EXPECT_EQ(Container::Connect(c, 81, "127.0.0.1"), nullptr);
  auto done = Started("docker.io/library/busybox", {"true"});
  EXPECT_EQ(Container::Connect(done, 80, "127.0.0.1"), nullptr);
}

TEST(ServersTest, RedisAnswersRespAndInlineCommands) {
  auto c = Started("docker.io/library/redis");
  auto conn = Container::Connect(c, 6379, "127.0.0.1");
  ASSERT_NE(conn, nullptr);
  EXPECT_EQ(conn->Send("PING\r\n", T0()), "+PONG\r\n");
  EXPECT_EQ(conn->Send("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\nv1\r\n*2\r\n$3\r\n"
                       "GET\r\n$1\r\nk\r\n",
                       T0()),
            "+OK\r\n$2\r\nv1\r\n");
  EXPECT_EQ(conn->Send("*2\r\n$3\r\nGET\r\n$1", T0()), "");  // partial
  EXPECT_EQ(conn->Send("\r\nz\r\n", T0()), "$-1\r\n");
  EXPECT_EQ(conn->Send("FOO bar\r\n", T0()),
            "-ERR unknown command 'FOO', with args beginning with: 'bar' \r\n");
}

TEST(ServersTest, PythonHttpServerListsItsDirectory) {
  auto c = Started("docker.io/library/python",
                   {"python", "-m", "http.server", "8000"});
  auto conn = Container::Connect(c, 8000, "127.0.0.1");
  ASSERT_NE(conn, nullptr);
  std::string res = conn->Send("GET /etc/ HTTP/1.1\r\nHost: x\r\n\r\n", T0());
  EXPECT_EQ(res.rfind("HTTP/1.0 200 OK\r\n", 0), 0u) << res;
  EXPECT_NE(res.find("<a href=\"passwd\">passwd</a>"), std::string::npos);
  EXPECT_TRUE(conn->closed());
}

}  // namespace
}  // namespace kmock::sim
