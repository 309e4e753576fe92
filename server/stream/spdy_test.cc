#include "server/stream/spdy.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <nlohmann/json.hpp>

#include "server/stream/portforward.h"
#include "server/stream/scripted_conn.h"
#include "server/stream/spdy_exec.h"
#include "server/stream/spdy_session.h"

namespace kmock::server::stream {
namespace {

TEST(SpdyCodecTest, HeadersSurviveCompressionAcrossFrames) {
  SpdyCodec client, server;
  // The compression context spans frames: the second block refers back
  // to the first, so parsing them out of order would fail.
  std::string a = client.SynStream(1, {{"streamtype", "error"}}, false);
  std::string b =
      client.SynStream(3, {{"streamtype", "stdout"}, {"port", "80"}}, true);
  std::string both = a + b;
  SpdyFrame f;
  EXPECT_EQ(*server.Parse(both.substr(0, 7), &f), 0u);
  ASSERT_EQ(*server.Parse(both, &f), a.size());
  EXPECT_EQ(f.type, kSpdySynStream);
  EXPECT_EQ(f.stream_id, 1u);
  EXPECT_EQ(SpdyHeader(f.headers, "streamtype"), "error");
  EXPECT_FALSE(f.fin());
  ASSERT_EQ(*server.Parse(std::string_view(both).substr(a.size()), &f),
            b.size());
  EXPECT_EQ(f.stream_id, 3u);
  EXPECT_EQ(SpdyHeader(f.headers, "port"), "80");
  EXPECT_TRUE(f.fin());
}

TEST(SpdyCodecTest, HeaderBlocksUseTheProtocolDictionary) {
  SpdyCodec c;
  std::string syn = c.SynStream(1, {{"a", "b"}}, false);
  // The zlib stream starts with FDICT set and the dictionary's Adler-32,
  // the value every SPDY/3 peer checks.
  const auto* z = reinterpret_cast<const unsigned char*>(syn.data()) + 18;
  EXPECT_TRUE(z[1] & 0x20);
  uint32_t id = (uint32_t{z[2]} << 24) | (uint32_t{z[3]} << 16) |
                (uint32_t{z[4]} << 8) | z[5];
  EXPECT_EQ(id, 0xe3c6a7c2u);
}

TEST(SpdyCodecTest, DataPingRstAndBadFrames) {
  SpdyCodec c;
  SpdyFrame f;
  std::string d = c.Data(5, "hello", true);
  ASSERT_EQ(*c.Parse(d, &f), d.size());
  EXPECT_EQ(f.type, kSpdyData);
  EXPECT_EQ(f.stream_id, 5u);
  EXPECT_EQ(f.data, "hello");
  EXPECT_TRUE(f.fin());
  std::string p = c.Ping(7);
  ASSERT_EQ(*c.Parse(p, &f), p.size());
  EXPECT_EQ(f.type, kSpdyPing);
  EXPECT_EQ(f.value, 7u);
  std::string r = c.RstStream(9, kSpdyCancel);
  ASSERT_EQ(*c.Parse(r, &f), r.size());
  EXPECT_EQ(f.type, kSpdyRstStream);
  EXPECT_EQ(f.value, kSpdyCancel);
  std::string v2 = p;
  v2[1] = 2;  // SPDY/2
  EXPECT_FALSE(c.Parse(v2, &f).ok());
  // A SYN_STREAM whose header block is not zlib.
  std::string bad = std::string("\x80\x03\x00\x01\x00\x00\x00\x0e", 8) +
                    std::string(10, '\0') + "junk";
  EXPECT_FALSE(SpdyCodec().Parse(bad, &f).ok());
}

// A client's bytes in, the server's bytes out.
class FakeConn : public ScriptedConn {
 public:
  using ScriptedConn::ScriptedConn;
  // The server's frames, parsed with a client's codec.
  std::vector<SpdyFrame> Frames() {
    std::vector<SpdyFrame> frames;
    SpdyCodec client;
    std::string_view rest = written();
    while (!rest.empty()) {
      SpdyFrame f;
      auto used = client.Parse(rest, &f);
      if (!used.ok() || *used == 0) break;
      rest.remove_prefix(*used);
      frames.push_back(std::move(f));
    }
    return frames;
  }
  // The data the server sent on a stream, and whether it ended it.
  std::string DataOf(uint32_t stream, bool* fin = nullptr) {
    std::string data;
    for (const auto& f : Frames()) {
      if (f.type != kSpdyData || f.stream_id != stream) continue;
      data += f.data;
      if (fin != nullptr && f.fin()) *fin = true;
    }
    return data;
  }
};

TEST(SpdyExecTest, StdinToItsEndThenOutputAndV4Status) {
  SpdyCodec client;
  // One statement per frame: the header compressor's context must see
  // them in order.
  std::string in = client.SynStream(1, {{"streamtype", "error"}}, false);
  in += client.SynStream(3, {{"streamtype", "stdin"}}, false);
  in += client.SynStream(5, {{"streamtype", "stdout"}}, false);
  in += client.SynStream(7, {{"streamtype", "stderr"}}, false);
  in += client.Data(3, "typed\n", false);
  in += client.Data(3, "", true);
  FakeConn conn(in);
  SpdySession session(conn);
  ExecStreams streams;
  streams.in = true;
  auto t = SpdyExecTransport::Open(
      session, streams, true, [] { return false; }, std::chrono::seconds(1));
  ASSERT_NE(t, nullptr);
  std::string seen;
  ServeExec(
      *t, streams, {"sh", "-c", "cat; exit 3"},
      [&](const std::string& stdin_data) {
        seen = stdin_data;
        ExecOutcome o;
        o.out = stdin_data;
        o.err = "warn\n";
        o.exit_code = 3;
        return o;
      },
      [] { return false; });
  EXPECT_EQ(seen, "typed\n");
  int replies = 0;
  for (const auto& f : conn.Frames())
    if (f.type == kSpdySynReply) ++replies;
  EXPECT_EQ(replies, 4);
  bool out_fin = false, err_fin = false;
  EXPECT_EQ(conn.DataOf(5, &out_fin), "typed\n");
  EXPECT_TRUE(out_fin);
  auto status = nlohmann::json::parse(conn.DataOf(1, &err_fin));
  EXPECT_TRUE(err_fin);
  EXPECT_EQ(status["reason"], "NonZeroExitCode");
  EXPECT_EQ(status["details"]["causes"][0]["message"], "3");
  EXPECT_EQ(conn.DataOf(7), "warn\n");
}

TEST(SpdyExecTest, NoTransportWhenTheStreamsNeverCome) {
  SpdyCodec client;
  FakeConn conn(client.SynStream(1, {{"streamtype", "error"}}, false));
  SpdySession session(conn);
  ExecStreams streams;  // stdout and stderr asked for, never opened
  EXPECT_EQ(SpdyExecTransport::Open(
                session, streams, true, [] { return false; },
                std::chrono::milliseconds(300)),
            nullptr);
}

class EchoConn : public ForwardedConn {
 public:
  std::string Send(std::string_view data) override {
    return "echo:" + std::string(data);
  }
  bool closed() const override { return false; }
};

TEST(SpdyPortForwardTest, PairsStreamsByRequestAndReportsRefusedPorts) {
  SpdyCodec client;
  auto headers = [](const char* type, const char* port, const char* id) {
    return SpdyHeaders{{"streamtype", type}, {"port", port}, {"requestid", id}};
  };
  std::string in = client.SynStream(1, headers("error", "80", "0"), false);
  in += client.SynStream(3, headers("data", "80", "0"), false);
  in += client.SynStream(5, headers("error", "81", "1"), false);
  in += client.SynStream(7, headers("data", "81", "1"), false);
  in += client.Data(3, "ping", false);
  in += client.Data(3, "", true);
  FakeConn conn(in);
  SpdySession session(conn);
  ServeSpdyPortForward(
      session,
      [](int port) -> Result<std::unique_ptr<ForwardedConn>> {
        if (port == 80) return std::unique_ptr<ForwardedConn>(new EchoConn);
        return Status(StatusCode::kServiceUnavailable,
                      "refused " + std::to_string(port));
      },
      [] { return false; });
  bool fin = false;
  EXPECT_EQ(conn.DataOf(3, &fin), "echo:ping");
  EXPECT_TRUE(fin);
  EXPECT_EQ(conn.DataOf(1), "");
  EXPECT_EQ(conn.DataOf(5), "refused 81");
}

TEST(PortListTest, ParsesAndRejects) {
  EXPECT_EQ(*ParsePortList({"80,8080", "9"}), (std::vector<int>{80, 8080, 9}));
  EXPECT_FALSE(ParsePortList({}).ok());
  EXPECT_FALSE(ParsePortList({"0"}).ok());
  EXPECT_FALSE(ParsePortList({"http"}).ok());
  EXPECT_FALSE(ParsePortList({"70000"}).ok());
}

}  // namespace
}  // namespace kmock::server::stream
