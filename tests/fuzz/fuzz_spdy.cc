// Fuzz target: SPDY/3.1 as a client sends it to a container stream (exec
// of kubectl 1.27-1.29, port-forward of every kubectl). The input is the
// client's bytes after the upgrade, read by the frame codec and by the
// exec and port-forward sessions.
//
// Beyond not crashing: a data frame that parses must re-encode to the
// same bytes, and each session must end when the bytes do.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "server/stream/portforward.h"
#include "server/stream/scripted_conn.h"
#include "server/stream/spdy.h"
#include "server/stream/spdy_exec.h"
#include "server/stream/spdy_session.h"

namespace {

using namespace kmock::server::stream;  // NOLINT(build/namespaces)

class Echo : public ForwardedConn {
 public:
  std::string Send(std::string_view data) override { return std::string(data); }
  bool closed() const override { return false; }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  {
    SpdyCodec codec, again;
    std::string_view rest = in;
    while (!rest.empty()) {
      SpdyFrame f;
      auto used = codec.Parse(rest, &f);
      if (!used.ok() || *used == 0) break;
      if (*used > rest.size()) abort();
      if (f.type == kSpdyData &&
          again.Data(f.stream_id, f.data, f.fin()) != rest.substr(0, *used) &&
          (rest[0] & 0x80) == 0 && (static_cast<uint8_t>(rest[4]) & ~1) == 0)
        abort();
      rest.remove_prefix(*used);
    }
  }
  {
    ScriptedConn conn(std::string(in), 61);
    SpdySession session(conn);
    ExecStreams streams;
    streams.in = true;
    auto t = SpdyExecTransport::Open(
        session, streams, size % 2 == 0, [] { return false; },
        std::chrono::seconds(10));
    if (t) {
      ServeExec(
          *t, streams, {"cat"},
          [](const std::string& stdin_data) {
            ExecOutcome o;
            o.out = stdin_data;
            o.exit_code = static_cast<int>(stdin_data.size() % 3);
            return o;
          },
          [] { return false; });
    }
  }
  {
    ScriptedConn conn(std::string(in), 61);
    SpdySession session(conn);
    ServeSpdyPortForward(
        session,
        [](int port) -> kmock::Result<std::unique_ptr<ForwardedConn>> {
          if (port % 2) return std::unique_ptr<ForwardedConn>(new Echo);
          return kmock::Status(kmock::StatusCode::kServiceUnavailable, "no");
        },
        [] { return false; });
  }
  return 0;
}
