// Fuzz target: WebSocket frames as a client sends them to a container
// stream (kubectl exec), and the channel session that reads them. The
// input is the client's bytes after the upgrade.
//
// Beyond not crashing: a frame that parses must re-encode (unmasked) to a
// frame that parses to the same opcode and payload, and the session must
// end when the bytes do.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "server/stream/channel_exec.h"
#include "server/stream/scripted_conn.h"
#include "server/stream/websocket.h"

namespace {

using namespace kmock::server::stream;  // NOLINT(build/namespaces)

class EchoShell : public LineShell {
 public:
  std::string Prompt() override { return "$ "; }
  std::string Line(const std::string& line) override {
    if (line == "exit") exited_ = true;
    return line + "\n";
  }
  bool Exited() override { return exited_; }
  int ExitCode() override { return 0; }

 private:
  bool exited_ = false;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  std::string_view rest = in;
  while (!rest.empty()) {
    WsFrame f;
    auto used = ParseWsFrame(rest, 1 << 20, &f);
    if (!used.ok() || *used == 0) break;
    if (*used > rest.size()) abort();
    rest.remove_prefix(*used);
    std::string again = EncodeWsFrame(f.opcode, f.payload);
    WsFrame g;
    auto used2 = ParseWsFrame(again, 1 << 20, &g);
    if (!used2.ok() || *used2 != again.size() || g.opcode != f.opcode ||
        g.payload != f.payload)
      abort();
  }
  const std::vector<std::string> command = {"cat"};
  {
    ScriptedConn conn(std::string(in), 97);
    ExecStreams streams;
    streams.in = true;
    WebSocketExecTransport t(conn, size % 2 == 0, std::chrono::milliseconds(0));
    ServeExec(
        t, streams, command,
        [](const std::string& stdin_data) {
          ExecOutcome o;
          o.out = stdin_data;
          o.exit_code = static_cast<int>(stdin_data.size() % 3);
          return o;
        },
        [] { return false; });
  }
  {
    ScriptedConn conn(std::string(in), 97);
    EchoShell shell;
    WebSocketExecTransport t(conn, true, std::chrono::milliseconds(0));
    ServeShell(t, shell, command, [] { return false; });
  }
  return 0;
}
