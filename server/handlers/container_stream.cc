// pods/<name>/exec, attach and portforward: a client asks to upgrade the
// connection to a stream of a container.
//
// exec over WebSocket (kubectl 1.30+, v5.channel.k8s.io or v4) runs the
// command in the container's simulation (sim/container.h) and streams its
// output and exit status (stream/channel_exec.h). What is not served yet
// (SPDY, which kubectl 1.27-1.29 and port-forward use; attach; port
// forwarding) gets a Status answer instead of the 101 upgrade, as from a
// cluster whose kubelet cannot open the stream: kubectl prints it
// ("Error from server (BadRequest): ...") and exits 1 at once instead of
// waiting for a stream that never comes.
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>

#include <cctype>

#include "common/json_view.h"
#include "server/errors.h"
#include "server/handlers/context.h"
#include "server/handlers/options.h"
#include "server/handlers/pod_container.h"
#include "server/handlers/stream_util.h"
#include "server/response.h"
#include "server/stream/channel_exec.h"
#include "server/stream/websocket.h"

namespace kmock::server {
namespace {

using nlohmann::json;

std::string Lower(std::string s) {
  for (char& c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool BoolParam(const httplib::Request& req, const char* name) {
  return IsTrueParam(QueryParam(req, name));
}

// The connection's bytes once upgraded: TLS records read on the request's
// SSL object, written through the library's response stream.
class UpgradedTls : public stream::UpgradedConn {
 public:
  UpgradedTls(const httplib::Request& req, httplib::DataSink& sink)
      : ssl_(const_cast<SSL*>(req.ssl)), fd_(SocketOf(req)), sink_(sink) {}

  int Read(char* buf, size_t n, std::chrono::milliseconds timeout) override {
    if (fd_ < 0) return -1;
    bool pending = ssl_ != nullptr && SSL_pending(ssl_) > 0;
    if (!pending) {
      pollfd p{fd_, POLLIN, 0};
      int r = ::poll(&p, 1, static_cast<int>(timeout.count()));
      if (r == 0) return 0;
      if (r < 0) return -1;
      if (p.revents & (POLLERR | POLLNVAL)) return -1;
    }
    int got = ssl_ != nullptr ? SSL_read(ssl_, buf, static_cast<int>(n))
                              : static_cast<int>(::recv(fd_, buf, n, 0));
    if (got > 0) return got;
    if (ssl_ != nullptr) {
      int err = SSL_get_error(ssl_, got);
      if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) return 0;
    }
    return -1;
  }

  bool Write(std::string_view bytes) override {
    return sink_.is_writable() && sink_.write(bytes.data(), bytes.size());
  }

 private:
  SSL* ssl_;
  int fd_;
  httplib::DataSink& sink_;
};

// The container's shell for an interactive session.
class ContainerShell : public stream::LineShell {
 public:
  ContainerShell(std::shared_ptr<sim::Container> c, const Clock* clock)
      : container_(std::move(c)), clock_(clock) {
    shell_ = container_->OpenShell();
  }
  std::string Prompt() override { return shell_->Prompt(); }
  std::string Line(const std::string& line) override {
    return container_->RunShellLine(*shell_, line, clock_->Now());
  }
  bool Exited() override { return shell_->exited(); }
  int ExitCode() override { return shell_->exit_code(); }

 private:
  std::shared_ptr<sim::Container> container_;
  const Clock* clock_;
  std::unique_ptr<sim::Process::Shell> shell_;
};

bool IsBareShell(const std::vector<std::string>& command) {
  if (command.size() != 1 && !(command.size() == 2 && command[1] == "-i"))
    return false;
  std::string base = command[0].substr(command[0].rfind('/') + 1);
  return base == "sh" || base == "bash" || base == "ash" || base == "dash";
}

// The answer of a cluster that cannot open the stream.
void Refuse(const RequestContext& ctx, httplib::Response& res,
            const std::string& container) {
  const std::string& what = ctx.info->subresource;
  std::string target = "pod \"" + ctx.info->name + "\"";
  if (!container.empty())
    target = "container \"" + container + "\" in " + target;
  std::string verb =
      what == "portforward" ? "port forwarding to " : what + " to ";
  std::string why =
      what == "exec"
          ? "exec over SPDY is not served yet; kubectl 1.30 and "
            "later use WebSocket"
          : "the containers of this cluster do not serve " + what + " yet";
  WriteError(res, BadRequestError(verb + target + " is not available: " + why));
}

// The WebSocket channel protocol the client offers that we speak, best
// first, or empty.
std::string ChooseProtocol(const httplib::Request& req) {
  std::string offered = req.get_header_value("Sec-WebSocket-Protocol");
  bool v5 = false, v4 = false;
  size_t i = 0;
  while (i < offered.size()) {
    size_t j = offered.find(',', i);
    if (j == std::string::npos) j = offered.size();
    std::string p = offered.substr(i, j - i);
    while (!p.empty() && p.front() == ' ') p.erase(p.begin());
    while (!p.empty() && p.back() == ' ') p.pop_back();
    if (p == "v5.channel.k8s.io") v5 = true;
    if (p == "v4.channel.k8s.io") v4 = true;
    i = j + 1;
  }
  return v5 ? "v5.channel.k8s.io" : v4 ? "v4.channel.k8s.io" : "";
}

void HandleExec(const RequestContext& ctx, httplib::Response& res,
                const json& pod) {
  const httplib::Request& req = *ctx.req;
  Result<std::string> container =
      PickContainer(pod, req.get_param_value("container"));
  if (!container.ok()) return WriteError(res, container.status());
  std::vector<std::string> command;
  for (size_t i = 0; i < req.get_param_value_count("command"); ++i)
    command.push_back(req.get_param_value("command", i));
  if (command.empty())
    return WriteError(res, BadRequestError("you must specify at least one "
                                           "command for the container"));
  std::string phase = ObjectAt(pod, "status").value("phase", "");
  if (phase == "Succeeded" || phase == "Failed")
    return WriteError(
        res, BadRequestError("cannot exec into a container in a completed "
                             "pod; current phase is " +
                             phase));
  bool websocket = Lower(req.get_header_value("Upgrade")) == "websocket";
  std::string protocol = websocket ? ChooseProtocol(req) : "";
  if (protocol.empty()) return Refuse(ctx, res, *container);
  std::shared_ptr<sim::Container> instance;
  if (ctx.containers != nullptr)
    instance = ctx.containers->Find(ctx.info->ns, ctx.info->name,
                                    ObjectAt(pod, "metadata").value("uid", ""),
                                    *container, false);
  bool running = instance != nullptr &&
                 (instance->state() == sim::Process::State::kRunning ||
                  instance->state() == sim::Process::State::kSleeping ||
                  instance->state() == sim::Process::State::kBlocked);
  if (!running)
    return WriteError(
        res, BadRequestError("container not found (\"" + *container + "\")"));
  stream::ExecStreams streams;
  streams.in = BoolParam(req, "stdin");
  streams.out = BoolParam(req, "stdout");
  streams.err = BoolParam(req, "stderr");
  streams.tty = BoolParam(req, "tty");
  const bool v5 = protocol[1] == '5';
  const Clock* clock = ctx.clock;
  Rng* rng = ctx.rng;
  StreamTracker* tracker = ctx.streams;

  res.status = 101;
  res.set_header("Upgrade", "websocket");
  res.set_header("Connection", "Upgrade");
  res.set_header(
      "Sec-WebSocket-Accept",
      stream::WsAcceptKey(req.get_header_value("Sec-WebSocket-Key")));
  res.set_header("Sec-WebSocket-Protocol", protocol);
  DisableCompression(req);
  res.set_content_provider(
      "application/octet-stream",
      [&req, instance, command, streams, v5, clock, rng, tracker](
          size_t, httplib::DataSink& sink) {
        UpgradedTls conn(req, sink);
        auto stopping = [tracker] { return tracker->stopped(); };
        if (streams.tty && streams.in && IsBareShell(command)) {
          ContainerShell shell(instance, clock);
          stream::ServeWebSocketShell(conn, shell, command, stopping);
          return false;
        }
        auto run = [&](const std::string& in) {
          sim::Process::ExecResult r =
              instance->Exec(command, clock->Now(), in);
          stream::ExecOutcome o;
          o.exit_code = r.exit_code;
          o.out = std::move(r.out);
          o.err = std::move(r.err);
          if (r.not_found) {
            o.failure = "failed to exec in container: failed to start exec \"" +
                        rng->Hex(64) +
                        "\": OCI runtime exec failed: exec failed: unable to "
                        "start container process: exec: \"" +
                        command[0] +
                        "\": executable file not found in $PATH: unknown";
          }
          return o;
        };
        stream::ServeWebSocketExec(conn, v5, streams, command, run, stopping);
        return false;  // the session is over: close the connection
      });
}

}  // namespace

void HandleContainerStream(const RequestContext& ctx, httplib::Response& res) {
  Result<json> pod =
      ctx.registry->Get(*ctx.resource, ctx.info->ns, ctx.info->name);
  if (!pod.ok()) return WriteError(res, pod.status());
  if (ctx.info->subresource == "exec") return HandleExec(ctx, res, *pod);
  Refuse(ctx, res, QueryParam(*ctx.req, "container"));
}

}  // namespace kmock::server
