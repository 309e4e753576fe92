#include "server/stream/websocket.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "server/stream/channel_exec.h"
#include "server/stream/scripted_conn.h"

namespace kmock::server::stream {
namespace {

std::string Masked(uint8_t opcode, const std::string& payload) {
  std::string f;
  f.push_back(static_cast<char>(0x80 | opcode));
  f.push_back(static_cast<char>(0x80 | payload.size()));
  const char mask[4] = {0x11, 0x22, 0x33, 0x44};
  f.append(mask, 4);
  for (size_t i = 0; i < payload.size(); ++i)
    f.push_back(static_cast<char>(payload[i] ^ mask[i % 4]));
  return f;
}

TEST(WebSocketTest, AcceptKeyOfTheRfcExample) {
  EXPECT_EQ(WsAcceptKey("dGhlIHNhbXBsZSBub25jZQ=="),
            "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

TEST(WebSocketTest, ParsesMaskedFramesAndWaitsForWholeOnes) {
  std::string f = Masked(kWsBinary, std::string("\0hi", 3));
  WsFrame out;
  EXPECT_EQ(*ParseWsFrame(f.substr(0, 4), 1024, &out), 0u);
  ASSERT_EQ(*ParseWsFrame(f, 1024, &out), f.size());
  EXPECT_EQ(out.opcode, kWsBinary);
  EXPECT_EQ(out.payload, std::string("\0hi", 3));
  std::string big = EncodeWsFrame(kWsBinary, std::string(70000, 'x'));
  ASSERT_EQ(*ParseWsFrame(big, 1 << 20, &out), big.size());
  EXPECT_EQ(out.payload.size(), 70000u);
  EXPECT_FALSE(ParseWsFrame(big, 1024, &out).ok());  // over the limit
  std::string reserved = f;
  reserved[0] = static_cast<char>(reserved[0] | 0x40);
  EXPECT_FALSE(ParseWsFrame(reserved, 1024, &out).ok());
}

class FakeConn : public ScriptedConn {
 public:
  using ScriptedConn::ScriptedConn;
  // The channel messages written, as (channel, data).
  std::vector<std::pair<int, std::string>> Messages() {
    std::vector<std::pair<int, std::string>> m;
    std::string_view rest = written();
    while (!rest.empty()) {
      WsFrame f;
      auto used = ParseWsFrame(rest, 1 << 20, &f);
      if (!used.ok() || *used == 0) break;
      rest.remove_prefix(*used);
      if (f.opcode == kWsBinary)
        m.emplace_back(static_cast<unsigned char>(f.payload[0]),
                       f.payload.substr(1));
    }
    return m;
  }
};

// An instant command's output waits out a runtime's start (kubectl 1.30 to
// 1.32 drop messages that come before they made their channels).
TEST(ChannelExecTest, NothingIsSentBeforeTheStartLatency) {
  FakeConn conn("");
  const auto latency = std::chrono::milliseconds(40);
  const auto opened = std::chrono::steady_clock::now();
  WebSocketExecTransport t(conn, true, latency);
  ASSERT_TRUE(t.Send(1, "out"));
  EXPECT_GE(std::chrono::steady_clock::now() - opened, latency);
  EXPECT_EQ(conn.Messages().size(), 1u);
}

TEST(ChannelExecTest, StdinUntilCloseThenOutputAndExitStatus) {
  FakeConn conn(Masked(kWsBinary, std::string("\0typed\n", 7)) +
                Masked(kWsBinary, std::string("\xff\0", 2)));
  ExecStreams streams;
  streams.in = true;
  std::string seen;
  WebSocketExecTransport t(conn, true);
  ServeExec(
      t, streams, {"sh", "-c", "cat; exit 3"},
      [&](const std::string& in) {
        seen = in;
        ExecOutcome o;
        o.out = in;
        o.err = "warn\n";
        o.exit_code = 3;
        return o;
      },
      [] { return false; });
  EXPECT_EQ(seen, "typed\n");
  auto m = conn.Messages();
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0], std::make_pair(1, std::string("typed\n")));
  EXPECT_EQ(m[1], std::make_pair(2, std::string("warn\n")));
  EXPECT_EQ(m[2].first, 3);
  auto status = nlohmann::json::parse(m[2].second);
  EXPECT_EQ(status["reason"], "NonZeroExitCode");
  EXPECT_EQ(status["details"]["causes"][0]["message"], "3");
  EXPECT_EQ(status["message"],
            "command terminated with non-zero exit code: error executing "
            "command [sh -c cat; exit 3], exit code 3");
}

}  // namespace
}  // namespace kmock::server::stream
