#include "server/api_server.h"

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <thread>

#include "api/schema.h"
#include "server/errors.h"
#include "server/openapi.h"
#include "server/response.h"
#include "server/router.h"
#include "server/stream_tracker.h"
#include "server/tls.h"

namespace kmock::server {
namespace {

// Idle keep-alive connections are kept for this many requests.
constexpr size_t kKeepAliveMaxCount = 100000;

// SO_REUSEADDR only: the library's default also sets SO_REUSEPORT, which
// lets a second server bind the same port silently.
void ListenSocketOptions(socket_t sock) {
  int yes = 1;
  setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
}

}  // namespace

class ApiServer::Impl {
 public:
  Impl(ServerOptions options, registry::Registry* registry, const Clock* clock,
       Rng* rng)
      : options_(std::move(options)),
        catalog_(options_.catalog != nullptr ? options_.catalog
                                             : &api::Catalog::Get()),
        authn_(options_.tokens),
        openapi_(catalog_, &api::Schema::Get(), options_.kubernetes_version) {
    RouterConfig config;
    config.catalog = catalog_;
    config.registry = registry;
    config.clock = clock;
    config.rng = rng;
    config.streams = &streams_;
    config.openapi = &openapi_;
    config.authn = &authn_;
    config.ready = &ready_;
    config.max_request_body_bytes = options_.max_request_body_bytes;
    config.kubernetes_version = options_.kubernetes_version;
    config.min_request_timeout = options_.min_request_timeout;
    router_ = std::make_unique<Router>(std::move(config));
  }

  Status Start() {
    if (server_)
      return Status(StatusCode::kInternal, "the server was already started");
    Status tls_status;
    server_ = std::make_unique<httplib::SSLServer>([&](SSL_CTX& ctx) {
      tls_status =
          ConfigureTls(&ctx, options_.server_cert_pem, options_.server_key_pem,
                       options_.client_ca_pem);
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
    thread_ = std::thread([this] { server_->listen_after_bind(); });
    for (int i = 0; i < 500 && !server_->is_running(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
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
    if (server_) server_->stop();
    if (thread_.joinable()) thread_.join();
  }

  int port() const { return port_; }
  bool ready() const { return ready_.load(); }

 private:
  void Configure(httplib::Server& s) {
    size_t threads = static_cast<size_t>(std::max(1, options_.threads));
    s.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    s.set_socket_options(ListenSocketOptions);
    s.set_tcp_nodelay(true);
    s.set_keep_alive_max_count(kKeepAliveMaxCount);
    s.set_payload_max_length(options_.max_request_body_bytes + 1);

    Router* router = router_.get();
    auto plain = [router](const httplib::Request& req, httplib::Response& res) {
      router->Serve(req, res, nullptr);
    };
    auto with_body = [router](const httplib::Request& req,
                              httplib::Response& res,
                              const httplib::ContentReader& reader) {
      router->Serve(req, res, &reader);
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
        [max_body](const httplib::Request&, httplib::Response& res) {
          if (!res.body.empty()) return;
          Status st = res.status == 413 ? RequestEntityTooLargeError(max_body)
                      : res.status == 404
                          ? NotFoundPathError()
                          : BadRequestError("the request could not be read");
          int code = res.status;
          WriteError(res, st);
          res.status = code;
        });
    if (options_.verbose) {
      s.set_logger(
          [](const httplib::Request& req, const httplib::Response& res) {
            std::string line = req.method + " " + req.target + " " +
                               std::to_string(res.status) + " " +
                               req.get_header_value("User-Agent") + "\n";
            std::cerr << line;
          });
    }
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
  Authenticator authn_;
  OpenApiDocs openapi_;
  StreamTracker streams_;
  std::atomic<bool> ready_{false};
  std::unique_ptr<Router> router_;
  std::unique_ptr<httplib::SSLServer> server_;
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

}  // namespace kmock::server
