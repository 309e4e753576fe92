// pods/<name>/exec, attach and portforward: a client asks to upgrade the
// connection to a stream of a container.
//
// exec runs the command in the container's simulation (sim/container.h)
// over WebSocket (kubectl 1.30+, v5.channel.k8s.io or v4) or SPDY/3.1
// (kubectl 1.27-1.29; v4.channel.k8s.io down to channel.k8s.io).
// portforward connects to the servers of the pod's programs
// (sim/servers.h) over SPDY (kubectl 1.27-1.30), SPDY tunnelled in
// WebSocket (1.31+) or WebSocket channels (the Python client). attach
// joins the program's terminal when it is a shell reading its stdin
// (`kubectl run -it -- sh`), else streams what the program prints.
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>

#include <cctype>
#include <cstdio>

#include "common/json_view.h"
#include "server/errors.h"
#include "server/handlers/context.h"
#include "server/handlers/options.h"
#include "server/handlers/pod_container.h"
#include "server/handlers/stream_util.h"
#include "server/response.h"
#include "server/stream/channel_exec.h"
#include "server/stream/portforward.h"
#include "server/stream/spdy_exec.h"
#include "server/stream/spdy_session.h"
#include "server/stream/websocket.h"
#include "server/stream/ws_tunnel.h"

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

// Every value a header offers, over repeated lines and comma lists.
std::vector<std::string> Offered(const httplib::Request& req,
                                 const char* header) {
  std::vector<std::string> out;
  for (size_t n = 0; n < req.get_header_value_count(header); ++n) {
    std::string offered = req.get_header_value(header, n);
    size_t i = 0;
    while (i < offered.size()) {
      size_t j = offered.find(',', i);
      if (j == std::string::npos) j = offered.size();
      std::string p = offered.substr(i, j - i);
      while (!p.empty() && p.front() == ' ') p.erase(p.begin());
      while (!p.empty() && p.back() == ' ') p.pop_back();
      if (!p.empty()) out.push_back(p);
      i = j + 1;
    }
  }
  return out;
}

// The first of `ours` (best first) that the client offers, or empty.
std::string Choose(const std::vector<std::string>& offered,
                   const std::vector<std::string>& ours) {
  for (const auto& p : ours)
    for (const auto& o : offered)
      if (o == p) return p;
  return "";
}

enum class Carrier { kNone, kWebSocket, kSpdy };

Carrier CarrierOf(const httplib::Request& req) {
  std::string upgrade = Lower(req.get_header_value("Upgrade"));
  if (upgrade == "websocket") return Carrier::kWebSocket;
  if (upgrade == "spdy/3.1") return Carrier::kSpdy;
  return Carrier::kNone;
}

// The 101 answer that switches the connection to `carrier` speaking
// `protocol`.
void SwitchProtocols(const httplib::Request& req, httplib::Response& res,
                     Carrier carrier, const std::string& protocol) {
  res.status = 101;
  res.set_header("Connection", "Upgrade");
  if (carrier == Carrier::kWebSocket) {
    res.set_header("Upgrade", "websocket");
    res.set_header(
        "Sec-WebSocket-Accept",
        stream::WsAcceptKey(req.get_header_value("Sec-WebSocket-Key")));
    if (!protocol.empty()) res.set_header("Sec-WebSocket-Protocol", protocol);
  } else {
    res.set_header("Upgrade", "SPDY/3.1");
    res.set_header("X-Stream-Protocol-Version", protocol);
  }
  DisableCompression(req);
}

// The refusal of an upgrade that offers no stream protocol we speak. With
// none offered, kube-apiserver's 400; else the kubelet's handshake answer,
// which kube-apiserver passes on as it is: 403, Go's http.Error text with
// both lists (%v), and the protocols it accepts in headers.
void NoProtocol(httplib::Response& res, Carrier carrier,
                const std::vector<std::string>& offered,
                const std::vector<std::string>& supported) {
  if (carrier == Carrier::kNone)
    return WriteError(res, BadRequestError("Upgrade request required"));
  auto go_list = [](const std::vector<std::string>& v) {
    std::string out;
    for (const auto& o : v) out += (out.empty() ? "" : " ") + o;
    return "[" + out + "]";
  };
  if (offered.empty())
    return WriteError(
        res, BadRequestError("unable to upgrade connection: unable to "
                             "negotiate protocol: client supports [], server "
                             "supports " +
                             go_list(supported)));
  res.status = 403;
  for (const auto& p : supported)
    res.headers.emplace("X-Accepted-Stream-Protocol-Versions", p);
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_content(
      "unable to upgrade: unable to negotiate protocol: client "
      "supports " +
          go_list(offered) + ", server accepts " + go_list(supported) + "\n",
      "text/plain; charset=utf-8");
}

// A session on a container's standard streams: exec's command or
// attach's view of the program, over whichever transport the client chose.
using ChannelSession =
    std::function<void(stream::ExecTransport&, const std::function<bool()>&)>;

// Negotiates the channel protocol of an exec or attach request, checks
// that the container runs, switches the connection and runs `session` on
// it. *instance and *streams are set before make_session is called.
void ServeChannels(const RequestContext& ctx, httplib::Response& res,
                   const json& pod, const std::string& container,
                   std::shared_ptr<sim::Container>* instance,
                   stream::ExecStreams* streams,
                   const std::function<ChannelSession()>& make_session) {
  const httplib::Request& req = *ctx.req;
  Carrier carrier = CarrierOf(req);
  std::string protocol;
  const std::vector<std::string> supported =
      carrier == Carrier::kWebSocket
          ? std::vector<std::string>{"v5.channel.k8s.io", "v4.channel.k8s.io"}
          : std::vector<std::string>{"v5.channel.k8s.io", "v4.channel.k8s.io",
                                     "v3.channel.k8s.io", "v2.channel.k8s.io",
                                     "channel.k8s.io"};
  if (carrier != Carrier::kNone)
    protocol = Choose(
        Offered(req, carrier == Carrier::kSpdy ? "X-Stream-Protocol-Version"
                                               : "Sec-WebSocket-Protocol"),
        supported);
  if (protocol.empty())
    return NoProtocol(
        res, carrier,
        Offered(req, carrier == Carrier::kSpdy ? "X-Stream-Protocol-Version"
                                               : "Sec-WebSocket-Protocol"),
        supported);
  if (ctx.containers != nullptr)
    *instance = ctx.containers->Find(ctx.info->ns, ctx.info->name,
                                     ObjectAt(pod, "metadata").value("uid", ""),
                                     container, false);
  const auto& c = *instance;
  bool running =
      c != nullptr && (c->state() == sim::Process::State::kRunning ||
                       c->state() == sim::Process::State::kSleeping ||
                       c->state() == sim::Process::State::kBlocked);
  if (!running)
    return WriteError(
        res, BadRequestError("container not found (\"" + container + "\")"));
  streams->in = BoolParam(req, "stdin");
  streams->out = BoolParam(req, "stdout");
  streams->err = BoolParam(req, "stderr");
  streams->tty = BoolParam(req, "tty");
  // A terminal merges stderr into stdout: the kubelet drops a stderr
  // asked for with a tty.
  if (streams->tty) streams->err = false;
  ChannelSession session = make_session();
  stream::ExecStreams wanted = *streams;
  StreamTracker* tracker = ctx.streams;
  SwitchProtocols(req, res, carrier, protocol);
  res.set_content_provider(
      "application/octet-stream", [&req, carrier, protocol, wanted, session,
                                   tracker](size_t, httplib::DataSink& sink) {
        UpgradedTls conn(req, sink);
        auto stopping = [tracker] { return tracker->stopped(); };
        if (carrier == Carrier::kWebSocket) {
          stream::WebSocketExecTransport t(conn, protocol[1] == '5');
          session(t, stopping);
        } else {
          stream::SpdySession spdy(conn);
          auto t = stream::SpdyExecTransport::Open(
              spdy, wanted,
              protocol == "v5.channel.k8s.io" ||
                  protocol == "v4.channel.k8s.io",
              stopping, std::chrono::seconds(30));
          if (t) session(*t, stopping);
        }
        return false;  // the session is over: close the connection
      });
}

// The phase check kube-apiserver makes before exec and attach.
Status CheckNotCompleted(const json& pod, const std::string& verb) {
  std::string phase = ObjectAt(pod, "status").value("phase", "");
  if (phase == "Succeeded" || phase == "Failed")
    return BadRequestError("cannot " + verb +
                           " a container in a completed pod; current phase "
                           "is " +
                           phase);
  return Status::Ok();
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
  Status phase = CheckNotCompleted(pod, "exec into");
  if (!phase.ok()) return WriteError(res, phase);
  const Clock* clock = ctx.clock;
  Rng* rng = ctx.rng;
  std::shared_ptr<sim::Container> instance;
  stream::ExecStreams streams;
  ServeChannels(ctx, res, pod, *container, &instance, &streams, [&] {
    return [instance, command, streams, clock, rng](
               stream::ExecTransport& t,
               const std::function<bool()>& stopping) {
      if (streams.tty && streams.in && sim::IsBareShell(command)) {
        ContainerShell shell(instance, clock);
        stream::ServeShell(t, shell, command, stopping);
        return;
      }
      auto run = [&](const std::string& in) {
        sim::Process::ExecResult r = instance->Exec(command, clock->Now(), in);
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
      stream::ServeExec(t, streams, command, run, stopping);
    };
  });
}

// The attached terminal of a program that is a shell reading its stdin.
class AttachedTerminal : public stream::LineShell {
 public:
  AttachedTerminal(std::shared_ptr<sim::Container> c, const Clock* clock)
      : container_(std::move(c)), clock_(clock) {}
  std::string Prompt() override { return container_->TerminalPrompt(); }
  std::string Line(const std::string& line) override {
    return container_->TypeLine(line, clock_->Now());
  }
  bool Exited() override {
    return container_->state() == sim::Process::State::kExited;
  }
  // attach reports no exit code: the container's status carries it.
  int ExitCode() override { return 0; }

 private:
  std::shared_ptr<sim::Container> container_;
  const Clock* clock_;
};

// Streams what the program prints from now on, until it ends or the
// client goes; what is typed is ignored (the program reads no stdin).
void ServeOutput(stream::ExecTransport& t, sim::Container& c,
                 const stream::ExecStreams& streams,
                 const std::function<bool()>& stopping) {
  uint64_t next = c.LogEnd();
  std::string ignored;
  while (!stopping()) {
    sim::ContainerLog log = c.Log(next);
    for (const auto& line : log.lines) {
      bool err = line.fd == 2 && !streams.tty;
      if ((err ? streams.err : streams.out) && !t.Send(err ? 2 : 1, line.text))
        return;
    }
    next = log.first + log.lines.size();
    sim::Process::State st = c.state();
    if (st == sim::Process::State::kExited ||
        st == sim::Process::State::kStartError)
      break;
    if (t.Next(&ignored, std::chrono::milliseconds(200)) ==
        stream::ExecTransport::Got::kEnd)
      return;
  }
  t.Finish(stream::ExecOutcome{}, {});
}

void HandleAttach(const RequestContext& ctx, httplib::Response& res,
                  const json& pod) {
  const httplib::Request& req = *ctx.req;
  Result<std::string> container =
      PickContainer(pod, req.get_param_value("container"));
  if (!container.ok()) return WriteError(res, container.status());
  Status phase = CheckNotCompleted(pod, "attach");
  if (!phase.ok()) return WriteError(res, phase);
  const Clock* clock = ctx.clock;
  std::shared_ptr<sim::Container> instance;
  stream::ExecStreams streams;
  ServeChannels(ctx, res, pod, *container, &instance, &streams, [&] {
    return [instance, streams, clock](stream::ExecTransport& t,
                                      const std::function<bool()>& stopping) {
      if (streams.in && instance->ReadsTerminal()) {
        AttachedTerminal terminal(instance, clock);
        stream::ServeShell(t, terminal, {}, stopping);
        return;
      }
      ServeOutput(t, *instance, streams, stopping);
    };
  });
}

// 64 hex digits that stand for the pod's sandbox in the runtime's words.
std::string SandboxId(const std::string& uid) {
  unsigned char d[SHA256_DIGEST_LENGTH];
  std::string seed = "sandbox/" + uid;
  SHA256(reinterpret_cast<const unsigned char*>(seed.data()), seed.size(), d);
  std::string hex;
  char b[3];
  for (unsigned char c : d) {
    std::snprintf(b, sizeof(b), "%02x", c);
    hex += b;
  }
  return hex;
}

// A forwarded connection to a program of the pod.
class ContainerPort : public stream::ForwardedConn {
 public:
  ContainerPort(std::unique_ptr<sim::PortConnection> c, const Clock* clock)
      : conn_(std::move(c)), clock_(clock) {}
  std::string Send(std::string_view data) override {
    return conn_->Send(data, clock_->Now());
  }
  bool closed() const override { return conn_->closed(); }

 private:
  std::unique_ptr<sim::PortConnection> conn_;
  const Clock* clock_;
};

void HandlePortForward(const RequestContext& ctx, httplib::Response& res,
                       const json& pod) {
  const httplib::Request& req = *ctx.req;
  Carrier carrier = CarrierOf(req);
  std::string protocol;
  bool tunnel = false;
  // A WebSocket client that names no subprotocol speaks the binary one.
  bool agreed = false;
  std::vector<int> ports;
  if (carrier == Carrier::kWebSocket) {
    protocol = Choose(Offered(req, "Sec-WebSocket-Protocol"),
                      {"SPDY/3.1+portforward.k8s.io", "v4.channel.k8s.io"});
    tunnel = protocol == "SPDY/3.1+portforward.k8s.io";
    if (!tunnel) {
      std::vector<std::string> values;
      for (size_t i = 0; i < req.get_param_value_count("ports"); ++i)
        values.push_back(req.get_param_value("ports", i));
      Result<std::vector<int>> parsed = stream::ParsePortList(values);
      if (!parsed.ok())
        return WriteError(res, BadRequestError(parsed.status().message()));
      ports = *parsed;
      agreed = req.get_header_value("Sec-WebSocket-Protocol").empty();
    }
  } else if (carrier == Carrier::kSpdy) {
    protocol = Choose(Offered(req, "X-Stream-Protocol-Version"),
                      {"portforward.k8s.io"});
  }
  if (protocol.empty() && !agreed)
    return NoProtocol(
        res, carrier,
        Offered(req, carrier == Carrier::kSpdy ? "X-Stream-Protocol-Version"
                                               : "Sec-WebSocket-Protocol"),
        carrier == Carrier::kSpdy
            ? std::vector<std::string>{"portforward.k8s.io"}
            : std::vector<std::string>{"SPDY/3.1+portforward.k8s.io",
                                       "v4.channel.k8s.io"});
  std::string ns = ctx.info->ns, name = ctx.info->name;
  std::string uid = ObjectAt(pod, "metadata").value("uid", "");
  std::vector<std::string> containers;
  for (const auto& c : ObjectAt(pod, "spec").value("containers", json::array()))
    if (c.is_object()) containers.push_back(c.value("name", ""));
  const sim::ContainerDirectory* directory = ctx.containers;
  const Clock* clock = ctx.clock;
  StreamTracker* tracker = ctx.streams;
  // Every container of a pod shares its network: the port is whichever
  // program listens on it.
  stream::PortDialer dial =
      [directory, ns, name, uid, containers,
       clock](int port) -> Result<std::unique_ptr<stream::ForwardedConn>> {
    if (directory != nullptr) {
      for (const std::string& c : containers) {
        auto instance = directory->Find(ns, name, uid, c, false);
        if (instance == nullptr) continue;
        auto conn = sim::Container::Connect(instance, port, "127.0.0.1");
        if (conn)
          return std::unique_ptr<stream::ForwardedConn>(
              new ContainerPort(std::move(conn), clock));
      }
    }
    std::string sandbox = SandboxId(uid);
    std::string p = std::to_string(port);
    return Status(
        StatusCode::kServiceUnavailable,
        "error forwarding port " + p + " to pod " + sandbox +
            ", uid : failed to execute portforward in network "
            "namespace \"/var/run/netns/cni-" +
            sandbox.substr(0, 8) + "-" + sandbox.substr(8, 4) + "-" +
            sandbox.substr(12, 4) + "-" + sandbox.substr(16, 4) + "-" +
            sandbox.substr(20, 12) + "\": failed to connect to localhost:" + p +
            " inside namespace \"" + sandbox +
            "\", IPv4: dial tcp4 127.0.0.1:" + p +
            ": connect: connection refused IPv6 dial tcp6 [::1]:" + p +
            ": connect: connection refused ");
  };

  SwitchProtocols(req, res, carrier, protocol);
  res.set_content_provider(
      "application/octet-stream", [&req, carrier, tunnel, ports, dial, tracker](
                                      size_t, httplib::DataSink& sink) {
        UpgradedTls conn(req, sink);
        auto stopping = [tracker] { return tracker->stopped(); };
        if (carrier == Carrier::kSpdy) {
          stream::SpdySession session(conn);
          stream::ServeSpdyPortForward(session, dial, stopping);
        } else if (tunnel) {
          stream::WsTunnel tunnelled(conn);
          stream::SpdySession session(tunnelled);
          stream::ServeSpdyPortForward(session, dial, stopping);
        } else {
          stream::ServeWebSocketPortForward(conn, ports, dial, stopping);
        }
        return false;
      });
}

}  // namespace

void HandleContainerStream(const RequestContext& ctx, httplib::Response& res) {
  Result<json> pod =
      ctx.registry->Get(*ctx.resource, ctx.info->ns, ctx.info->name);
  if (!pod.ok()) return WriteError(res, pod.status());
  if (ctx.info->subresource == "exec") return HandleExec(ctx, res, *pod);
  if (ctx.info->subresource == "portforward")
    return HandlePortForward(ctx, res, *pod);
  HandleAttach(ctx, res, *pod);
}

}  // namespace kmock::server
