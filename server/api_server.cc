#include "server/api_server.h"

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>
#include <thread>

#include "api/schema.h"
#include "common/thread_name.h"
#include "server/connection_hooks.h"
#include "server/connection_marks.h"
#include "server/connection_pool.h"
#include "server/connection_watchdog.h"
#include "server/errors.h"
#include "server/nesting_guard.h"
#include "server/openapi.h"
#include "server/query_params.h"
#include "server/response.h"
#include "server/router.h"
#include "server/stream_tracker.h"
#include "server/tls.h"

namespace kmock::server {
namespace {

using SteadyClock = std::chrono::steady_clock;
using nlohmann::json;

// Idle keep-alive connections are kept for this many requests.
constexpr size_t kKeepAliveMaxCount = 100000;
// Connections waiting to be accepted (the library's own is 5, so a burst of
// clients would see dropped SYNs and one-second retries).
constexpr int kListenBacklog = 4096;
// Idle workers kept ready for the next connection.
constexpr size_t kWarmWorkers = 4;
// A spare worker idle this long exits.
constexpr std::chrono::seconds kWorkerIdleExit{30};
// Precision of the connection deadlines.
constexpr std::chrono::milliseconds kWatchdogTick{250};
// A connection whose answer says it closes is cut this long after the
// answer at the latest (its write side is shut at once).
constexpr std::chrono::milliseconds kCloseAfterAnswer{1000};
// Request bodies may nest this deep (JSON arrays and objects, YAML flow
// collections); deeper gets 400 before anything parses them. Patches have
// the same limit.
constexpr int kMaxBodyNesting = 1000;
// Descriptors kept for the store, logs and the rest of the process.
constexpr rlim_t kReservedDescriptors = 256;

// The TLS server, with its listening socket reachable.
class HttpsServer : public httplib::SSLServer {
 public:
  using httplib::SSLServer::SSLServer;
  socket_t listen_socket() const { return svr_sock_; }
};

// Raises the soft limit on open descriptors to the hard one (as the Go
// runtime does for kube-apiserver) and returns how many connections fit.
size_t ConnectionsThatFit(size_t wanted) {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0) return wanted;
  if (lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
    getrlimit(RLIMIT_NOFILE, &lim);
  }
  if (lim.rlim_cur == RLIM_INFINITY) return wanted;
  rlim_t room = lim.rlim_cur > 2 * kReservedDescriptors
                    ? lim.rlim_cur - kReservedDescriptors
                    : lim.rlim_cur / 2;
  return std::min<size_t>(wanted, room);
}

time_t WholeSecondsAtLeastOne(std::chrono::milliseconds d) {
  return std::max<time_t>(1, (d.count() + 999) / 1000);
}

int SocketOfRequest(const httplib::Request& req) {
  return req.ssl != nullptr ? SSL_get_fd(req.ssl) : -1;
}

bool HasBody(const httplib::Request& req) {
  if (req.has_header("Transfer-Encoding")) return true;
  std::string length = req.get_header_value("Content-Length");
  return !length.empty() && length != "0";
}

// Methods whose body the HTTP library hands to a content reader; it never
// reads the body of any other request.
bool BodyIsRead(const httplib::Request& req) {
  return req.method == "POST" || req.method == "PUT" || req.method == "PATCH" ||
         req.method == "DELETE";
}

// A body the handlers left unread is read and thrown away up to this size
// (as a too-large body is, see router.cc), so that the connection can
// serve the next request and the client reads the answer rather than a
// reset; past it, the connection is closed.
constexpr size_t kMaxDrainedUnreadBody = 64 * 1024 * 1024;

// Reads and throws away a body nothing read, keeping the answer's status
// (the library sets 413 on a body over its payload limit, which it skips
// while reading). False when the body is too large to drain: the
// connection must then close.
bool DrainUnreadBody(const httplib::Request& req,
                     const httplib::ContentReader& reader,
                     httplib::Response* res) {
  if (req.has_header("Content-Length")) {
    unsigned long long declared = std::strtoull(
        req.get_header_value("Content-Length").c_str(), nullptr, 10);
    // The library would wait for every declared byte.
    if (declared > kMaxDrainedUnreadBody) return false;
  }
  int status = res->status;
  size_t drained = 0;
  bool ok = reader([&drained](const char*, size_t n) {
    drained += n;
    return drained <= kMaxDrainedUnreadBody;
  });
  res->status = status;
  return ok || drained <= kMaxDrainedUnreadBody;
}

// A Content-Length that is not a plain decimal number: Go's server answers
// 400 (the library would read "-5" as a huge length and answer 413).
bool MalformedContentLength(const httplib::Request& req) {
  if (!req.has_header("Content-Length")) return false;
  std::string length = req.get_header_value("Content-Length");
  return length.empty() ||
         length.find_first_not_of("0123456789") != std::string::npos;
}

// What the server's handlers see of a request, whatever the library made
// of it: the query parsed as Go parses it (see query_params.h), and no byte
// ranges: kube-apiserver ignores Range on every path, and the library
// would otherwise answer a Range with as many copies of the body as it
// names (bytes=0-,0-,... turned a 3 KB request into a 783 MB response).
void NormalizeRequest(const httplib::Request& req) {
  // The library's own, non-const request object, handed to its hooks as
  // const.
  auto& mutable_req = const_cast<httplib::Request&>(req);
  mutable_req.params = ParseQuery(RawQueryOf(req.target));
  mutable_req.ranges.clear();
  // Before routing (an answer to a bad Range) the library has not set it.
  if (mutable_req.ssl == nullptr) mutable_req.ssl = ThisThreadsConnection();
}

// SO_REUSEADDR only: the library's default also sets SO_REUSEPORT, which
// lets a second server bind the same port silently.
void ListenSocketOptions(socket_t sock) {
  int yes = 1;
  setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
}

}  // namespace

// Null without a signing key. A key that does not load is reported and
// leaves the tokens off.
static std::unique_ptr<ServiceAccountTokens> MakeServiceAccountTokens(
    const ServerOptions& options, registry::Registry* registry,
    const Clock* clock, Rng* rng) {
  if (options.service_account_key_pem.empty()) return nullptr;
  auto signer =
      certs::JwtSigner::FromPrivateKeyPem(options.service_account_key_pem);
  if (!signer.ok()) {
    std::fprintf(stderr, "service account tokens are off: %s\n",
                 signer.status().ToString().c_str());
    return nullptr;
  }
  return std::make_unique<ServiceAccountTokens>(registry, clock, rng,
                                                std::move(signer).value());
}

class ApiServer::Impl {
 public:
  Result<json> IssueServiceAccountToken(const std::string& ns,
                                        const std::string& name,
                                        const json& request) const {
    if (!service_accounts_)
      return Status(StatusCode::kServiceUnavailable, "no service account key");
    return service_accounts_->Issue(ns, name, request);
  }
  Impl(ServerOptions options, registry::Registry* registry, const Clock* clock,
       Rng* rng)
      : options_(std::move(options)),
        catalog_(options_.catalog != nullptr ? options_.catalog
                                             : &registry->catalog()),
        service_accounts_(
            MakeServiceAccountTokens(options_, registry, clock, rng)),
        authn_(options_.tokens, service_accounts_.get()),
        openapi_(catalog_,
                 options_.schema != nullptr ? options_.schema
                                            : &api::Schema::Builtin(),
                 options_.kubernetes_version) {
    RouterConfig config;
    config.catalog = catalog_;
    config.registry = registry;
    config.clock = clock;
    config.rng = rng;
    config.streams = &streams_;
    config.fanout = &fanout_;
    config.openapi = &openapi_;
    config.authn = &authn_;
    config.service_accounts = service_accounts_.get();
    config.containers = options_.containers;
    config.ready = &ready_;
    config.max_request_body_bytes = options_.max_request_body_bytes;
    config.kubernetes_version = options_.kubernetes_version;
    config.min_request_timeout = options_.min_request_timeout;
    config.request_timeout = options_.request_timeout;
    router_ = std::make_unique<Router>(std::move(config));
  }

  Status Start() {
    if (server_)
      return Status(StatusCode::kInternal, "the server was already started");
    size_t wanted = static_cast<size_t>(std::max(
        1, options_.threads > 0 ? options_.threads : options_.max_connections));
    max_connections_ = ConnectionsThatFit(wanted);
    if (max_connections_ < wanted) {
      std::cerr << "kubemock: serving at most " << max_connections_
                << " connections, not " << wanted
                << ": the open-file limit is too low (ulimit -n)\n";
    }
    hook_config_.watchdog = &watchdog_;
    hook_config_.handshake_and_header_timeout = options_.request_header_timeout;
    hook_config_.write_timeout = options_.write_timeout;
    Status tls_status;
    server_ = std::make_unique<HttpsServer>([&](SSL_CTX& ctx) {
      tls_status =
          ConfigureTls(&ctx, options_.server_cert_pem, options_.server_key_pem,
                       options_.client_ca_pem);
      if (tls_status.ok())
        tls_status = InstallConnectionHooks(&ctx, &hook_config_);
      return tls_status.ok();
    });
    if (!tls_status.ok()) return tls_status;
    if (!server_->is_valid()) return InternalError("TLS setup failed");
    Configure(*server_);

    const std::string& host = options_.bind_address;
    if (options_.port == 0) {
      port_ = server_->bind_to_any_port(host);
      if (port_ <= 0) return BindError(0);
    } else {
      if (!server_->bind_to_port(host, options_.port))
        return BindError(options_.port);
      port_ = options_.port;
    }
    listen(server_->listen_socket(), kListenBacklog);
    watchdog_.Start();
    fanout_.Start();
    thread_ = std::thread([this] {
      NameThisThread("https-listen");
      server_->listen_after_bind();
    });
    // The socket already listens (connections wait in its backlog); this
    // only waits for the accept loop, which takes well under a millisecond.
    for (int i = 0; i < 50000 && !server_->is_running(); ++i) {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    if (!server_->is_running()) {
      Stop();
      return InternalError("the server did not start listening");
    }
    ready_.store(true);
    return Status::Ok();
  }

  void Stop() {
    ready_.store(false);
    streams_.StopAll();
    fanout_.Stop();
    if (server_) server_->stop();
    // Wakes workers blocked on idle or slow connections, so that the pool's
    // shutdown does not wait for their timeouts.
    watchdog_.CutAll();
    if (thread_.joinable()) thread_.join();
    watchdog_.Stop();
  }

  int port() const { return port_; }
  bool ready() const { return ready_.load(); }

 private:
  void Configure(httplib::Server& s) {
    ConnectionPoolOptions pool;
    pool.warm_workers = kWarmWorkers;
    pool.max_workers = max_connections_;
    pool.idle_exit = kWorkerIdleExit;
    pool.stack_bytes = options_.thread_stack_bytes;
    // The library owns and deletes the queue when listening ends.
    s.new_task_queue = [pool] { return new ConnectionPool(pool); };
    s.set_socket_options(ListenSocketOptions);
    s.set_tcp_nodelay(true);
    s.set_keep_alive_max_count(kKeepAliveMaxCount);
    s.set_keep_alive_timeout(
        WholeSecondsAtLeastOne(options_.keep_alive_timeout));
    // Per read; the watchdog bounds the total.
    s.set_read_timeout(std::chrono::duration_cast<std::chrono::microseconds>(
        options_.request_header_timeout));
    s.set_write_timeout(std::chrono::duration_cast<std::chrono::microseconds>(
        options_.write_timeout));
    s.set_payload_max_length(options_.max_request_body_bytes + 1);

    // The header is read: a request without a body has no deadline (it may
    // be a watch); one with a body must be done within request_timeout.
    ConnectionWatchdog* watchdog = &watchdog_;
    auto request_timeout = options_.request_timeout;
    s.set_pre_routing_handler(
        [watchdog, request_timeout](const httplib::Request& req,
                                    httplib::Response&) {
          NormalizeRequest(req);
          std::optional<SteadyClock::time_point> deadline;
          if (HasBody(req)) deadline = SteadyClock::now() + request_timeout;
          watchdog->SetDeadline(SocketOfRequest(req), deadline);
          return httplib::Server::HandlerResponse::Unhandled;
        });

    Router* router = router_.get();
    auto plain = [router](const httplib::Request& req, httplib::Response& res) {
      router->Serve(req, res, nullptr);
    };
    auto with_body = [router](const httplib::Request& req,
                              httplib::Response& res,
                              const httplib::ContentReader& reader) {
      NestingGuard guard(kMaxBodyNesting);
      bool read = false;
      httplib::ContentReader guarded(
          [&](httplib::ContentReceiver receive) {
            read = true;
            return reader([&](const char* data, size_t n) {
              return guard.Feed(data, n) && receive(data, n);
            });
          },
          [&](httplib::MultipartContentHeader header,
              httplib::ContentReceiver receive) {
            read = true;
            return reader(std::move(header), std::move(receive));
          });
      router->Serve(req, res, &guarded);
      if (!read) {
        // Answered before the body was needed (404, 401, 405, 415...): the
        // body must not be read as the next request.
        if (!DrainUnreadBody(req, reader, &res))
          res.set_header("Connection", "close");
        return;
      }
      if (!guard.too_deep()) return;
      // The rest of the body was left unread.
      if (res.status != 413) {
        res = httplib::Response();
        WriteError(
            res, BadRequestError("the request body nests deeper than " +
                                 std::to_string(kMaxBodyNesting) + " levels"));
      }
      res.set_header("Connection", "close");
    };
    const std::string all = ".*";
    s.Get(all, plain);
    s.Post(all, plain);
    s.Post(all, with_body);
    s.Put(all, plain);
    s.Put(all, with_body);
    s.Patch(all, plain);
    s.Patch(all, with_body);
    s.Delete(all, plain);
    s.Delete(all, with_body);
    s.Options(all, [](const httplib::Request&, httplib::Response& res) {
      WriteError(res, MethodNotAllowedError());
    });

    s.set_exception_handler([](const httplib::Request&, httplib::Response& res,
                               std::exception_ptr ep) {
      std::string what = "unknown exception";
      try {
        if (ep) std::rethrow_exception(ep);
      } catch (const std::exception& e) {
        what = e.what();
      } catch (...) {
      }
      res.headers.clear();
      WriteError(res, InternalError("Internal error occurred: " + what));
    });
    // Errors the library raises itself (malformed requests, too large
    // bodies) get a Status body too.
    size_t max_body = options_.max_request_body_bytes;
    s.set_error_handler(
        [max_body, router, watchdog](const httplib::Request& req,
                                     httplib::Response& res) {
          if (!res.body.empty() || res.content_provider_) return;
          if (res.status == 416 && !HasBody(req)) {
            // The library refuses a Range it cannot parse before routing;
            // kube-apiserver ignores Range, so serve the request as it is.
            NormalizeRequest(req);
            watchdog->SetDeadline(SocketOfRequest(req), std::nullopt);
            res = httplib::Response();
            return router->Serve(req, res, nullptr);
          }
          if (res.status == 416) res.set_header("Connection", "close");
          if (MalformedContentLength(req)) {
            // Requests without a content reader (GET) with "-5": the
            // library's 413 becomes Go's 400.
            res.status = 400;
            res.set_header("Connection", "close");
          }
          Status st = res.status == 413 ? RequestEntityTooLargeError(max_body)
                      : res.status == 404
                          ? NotFoundPathError()
                          : BadRequestError("the request could not be read");
          int code = res.status;
          WriteError(res, st);
          res.status = code;
        });
    // Runs once a response is written: the connection now waits for its
    // next request, idle and then reading the header.
    auto next_request_within =
        std::chrono::duration_cast<SteadyClock::duration>(
            std::chrono::seconds(
                WholeSecondsAtLeastOne(options_.keep_alive_timeout)) +
            options_.request_header_timeout);
    bool verbose = options_.verbose;
    s.set_logger(
        [watchdog, next_request_within, verbose](const httplib::Request& req,
                                                 const httplib::Response& res) {
          int fd = SocketOfRequest(req);
          bool close = res.get_header_value("Connection") == "close" ||
                       (HasBody(req) && !BodyIsRead(req));
          if (close && fd >= 0) {
            // The library would keep the connection for the next request
            // even when the answer says it closes (or when it left a GET's
            // body unread): send FIN after the answer, and make its wait
            // for the next request fail so that it closes the connection.
            shutdown(fd, SHUT_WR);
            MarkClosing(fd);
            watchdog->SetDeadline(fd, SteadyClock::now() + kCloseAfterAnswer);
          } else {
            watchdog->SetDeadline(fd, SteadyClock::now() + next_request_within);
            // Requests the client sent together with this one may already
            // sit in the TLS layer, where polling the socket cannot see
            // them.
            if (req.ssl != nullptr && SSL_has_pending(req.ssl) == 1)
              MarkPendingTlsInput(fd);
          }
          if (!verbose) return;
          std::string line = req.method + " " + req.target + " " +
                             std::to_string(res.status) + " " +
                             req.get_header_value("User-Agent") + "\n";
          std::cerr << line;
        });
  }

  Status BindError(int port) const {
    std::string addr = options_.bind_address + ":" + std::to_string(port);
    return Status(StatusCode::kInternal,
                  "cannot listen on " + addr + ": " + BindFailureReason(port));
  }

  // Why binding failed, found by trying the same bind on a fresh socket.
  std::string BindFailureReason(int port) const {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return std::strerror(errno);
    ListenSocketOptions(fd);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    std::string reason = "the address could not be bound";
    if (inet_pton(AF_INET, options_.bind_address.c_str(), &addr.sin_addr) ==
            1 &&
        bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      reason = std::strerror(errno);
      if (errno == EADDRINUSE)
        reason += " (is another server running on this port?)";
    }
    close(fd);
    return reason;
  }

  ServerOptions options_;
  const api::Catalog* catalog_;
  std::unique_ptr<ServiceAccountTokens> service_accounts_;
  Authenticator authn_;
  OpenApiDocs openapi_;
  StreamTracker streams_;
  // Two writers: this machine's class has two cores, and one stalls on
  // nothing (slow clients are handed back to their own threads).
  WatchFanout fanout_{2};
  std::atomic<bool> ready_{false};
  std::unique_ptr<Router> router_;
  ConnectionWatchdog watchdog_{kWatchdogTick};
  ConnectionHookConfig hook_config_;
  size_t max_connections_ = 0;
  std::unique_ptr<HttpsServer> server_;
  std::thread thread_;
  int port_ = 0;
};

ApiServer::ApiServer(ServerOptions options, registry::Registry* registry,
                     const Clock* clock, Rng* rng)
    : impl_(std::make_unique<Impl>(std::move(options), registry, clock, rng)) {}

ApiServer::~ApiServer() { Stop(); }

Status ApiServer::Start() { return impl_->Start(); }
int ApiServer::port() const { return impl_->port(); }
void ApiServer::Stop() { impl_->Stop(); }
bool ApiServer::ready() const { return impl_->ready(); }
Result<json> ApiServer::IssueServiceAccountToken(const std::string& ns,
                                                 const std::string& name,
                                                 const json& request) const {
  return impl_->IssueServiceAccountToken(ns, name, request);
}

}  // namespace kmock::server
