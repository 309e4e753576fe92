#include "fanout/watch_fleet.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <latch>
#include <memory>
#include <mutex>

#include "fanout/stream_decoder.h"

namespace kmock::bench {

struct WatchFleet::Stream {
  int fd = -1;
  SSL* ssl = nullptr;
  bool open = false;
  int64_t read_ns = 0;  // when the bytes being decoded were read
  std::unique_ptr<ChunkedLineReader> body;

  ~Stream() {
    if (ssl != nullptr) SSL_free(ssl);
    if (fd >= 0) close(fd);
  }
};

struct WatchFleet::Reader {
  std::thread thread;
  int epoll_fd = -1;
  int first = 0;  // streams [first, first + count) of the fleet
  int count = 0;
  std::vector<std::unique_ptr<Stream>> streams;
  std::vector<Arrival> arrivals;
  std::string error;
};

namespace {

std::string SslError(const char* what) {
  char buf[256];
  unsigned long e = ERR_get_error();
  ERR_error_string_n(e, buf, sizeof buf);
  return std::string(what) + ": " + (e ? buf : "connection closed");
}

}  // namespace

WatchFleet::WatchFleet() = default;

WatchFleet::~WatchFleet() {
  Stop();
  if (ctx_ != nullptr) SSL_CTX_free(ctx_);
}

std::string WatchFleet::OpenStream(SSL_CTX* ctx, Stream* s) {
  s->fd = socket(AF_INET, SOCK_STREAM, 0);
  if (s->fd < 0) return "socket: " + std::string(strerror(errno));
  int one = 1;
  setsockopt(s->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(options_.endpoint.port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(s->fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    return "connect: " + std::string(strerror(errno));
  }
  s->ssl = SSL_new(ctx);
  SSL_set_fd(s->ssl, s->fd);
  SSL_set_tlsext_host_name(s->ssl, "127.0.0.1");
  if (SSL_connect(s->ssl) != 1) return SslError("TLS handshake");
  std::string req = "GET " + options_.path +
                    " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    "Accept: application/json\r\n"
                    "User-Agent: kubemock-bench-fanout\r\n\r\n";
  if (SSL_write(s->ssl, req.data(), static_cast<int>(req.size())) <= 0) {
    return SslError("sending the watch request");
  }
  std::string head;
  size_t end;
  char buf[16384];
  while ((end = head.find("\r\n\r\n")) == std::string::npos) {
    int n = SSL_read(s->ssl, buf, sizeof buf);
    if (n <= 0) return SslError("reading the watch response headers");
    head.append(buf, n);
    if (head.size() > 65536) return "response headers too long";
  }
  if (head.compare(0, 12, "HTTP/1.1 200") != 0) {
    return "watch answered: " + head.substr(0, head.find("\r\n")) + " " +
           head.substr(end + 4, 300);
  }
  if (head.find("chunked") == std::string::npos) {
    return "watch response is not chunked";
  }
  int flags = fcntl(s->fd, F_GETFL);
  fcntl(s->fd, F_SETFL, flags | O_NONBLOCK);
  s->open = true;
  s->read_ns = NowNs();
  return head.substr(end + 4);  // the body's first bytes, decoded later
}

std::string WatchFleet::Open(const FleetOptions& options) {
  options_ = options;
  ctx_ = SSL_CTX_new(TLS_client_method());
  const ApiEndpoint& e = options.endpoint;
  if (SSL_CTX_load_verify_locations(ctx_, e.ca_file.c_str(), nullptr) != 1 ||
      SSL_CTX_use_certificate_chain_file(ctx_, e.cert_file.c_str()) != 1 ||
      SSL_CTX_use_PrivateKey_file(ctx_, e.key_file.c_str(), SSL_FILETYPE_PEM) !=
          1) {
    return SslError("loading the CA or the client certificate");
  }
  SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER, nullptr);
  int threads = std::max(1, std::min(options.threads, options.watchers));
  std::latch opened(threads);
  int64_t t0 = NowNs();
  for (int i = 0; i < threads; ++i) {
    readers_.push_back(std::make_unique<Reader>());
    Reader* r = readers_.back().get();
    r->first = options.watchers * i / threads;
    r->count = options.watchers * (i + 1) / threads - r->first;
  }
  for (auto& owned : readers_) {
    Reader* r = owned.get();
    r->thread = std::thread([this, r, &opened] {
      r->epoll_fd = epoll_create1(0);
      for (int i = 0; i < r->count && r->error.empty() && !stop_; ++i) {
        auto s = std::make_unique<Stream>();
        Stream* sp = s.get();
        s->body = std::make_unique<ChunkedLineReader>(
            [this, r, sp](std::string_view line) {
              WatchEventInfo ev = ParseWatchEvent(line);
              if (ev.type == "ERROR") {
                error_events_.fetch_add(1, std::memory_order_relaxed);
              } else if (ev.type == "ADDED" || ev.type == "MODIFIED" ||
                         ev.type == "DELETED") {
                r->arrivals.push_back({ev.resource_version, sp->read_ns});
                events_.fetch_add(1, std::memory_order_relaxed);
              }
            });
        std::string rest = OpenStream(ctx_, sp);
        if (!s->open) {
          r->error = rest;
          break;
        }
        if (!s->body->Feed(rest)) r->error = s->body->error();
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.ptr = sp;
        epoll_ctl(r->epoll_fd, EPOLL_CTL_ADD, s->fd, &ev);
        r->streams.push_back(std::move(s));
      }
      opened.count_down();
      if (r->error.empty()) ReadLoop(r);
    });
  }
  opened.wait();
  open_seconds_ = (NowNs() - t0) / 1e9;
  for (auto& r : readers_) {
    if (!r->error.empty()) return r->error;
  }
  return "";
}

void WatchFleet::ReadReady(Reader* r, Stream* s, char* buf, size_t size) {
  (void)r;
  for (;;) {
    int n = SSL_read(s->ssl, buf, static_cast<int>(size));
    if (n > 0) {
      s->read_ns = NowNs();
      if (!s->body->Feed(std::string_view(buf, n))) {
        s->open = false;
      }
      continue;
    }
    int err = SSL_get_error(s->ssl, n);
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) return;
    s->open = false;
    break;
  }
  epoll_ctl(r->epoll_fd, EPOLL_CTL_DEL, s->fd, nullptr);
  ended_.fetch_add(1);
}

void WatchFleet::ReadLoop(Reader* r) {
  std::vector<epoll_event> ready(256);
  std::vector<char> buf(1 << 16);
  r->arrivals.reserve(1 << 16);
  while (!stop_.load(std::memory_order_relaxed)) {
    int n = epoll_wait(r->epoll_fd, ready.data(),
                       static_cast<int>(ready.size()), 50);
    for (int i = 0; i < n; ++i) {
      auto* s = static_cast<Stream*>(ready[i].data.ptr);
      if (s->open) ReadReady(r, s, buf.data(), buf.size());
    }
  }
}

void WatchFleet::WaitQuiet(int64_t target, int quiet_ms, int timeout_ms) const {
  int64_t start = NowNs();
  int64_t last_change = start;
  int64_t last = events_.load();
  while (last < target) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    int64_t now = NowNs();
    int64_t cur = events_.load();
    if (cur != last) {
      last = cur;
      last_change = now;
    }
    if (now - last_change > int64_t{quiet_ms} * 1000000 ||
        now - start > int64_t{timeout_ms} * 1000000) {
      return;
    }
  }
}

void WatchFleet::Stop() {
  stop_ = true;
  for (auto& r : readers_) {
    if (r->thread.joinable()) r->thread.join();
    if (r->epoll_fd >= 0) close(r->epoll_fd);
    r->epoll_fd = -1;
    r->streams.clear();
  }
}

std::vector<Arrival> WatchFleet::TakeArrivals() {
  std::vector<Arrival> all;
  for (auto& r : readers_) {
    all.insert(all.end(), r->arrivals.begin(), r->arrivals.end());
    r->arrivals.clear();
  }
  return all;
}

}  // namespace kmock::bench
