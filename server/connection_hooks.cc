#include "server/connection_hooks.h"

#include <sys/socket.h>

#include "server/connection_marks.h"
#include "server/connection_pool.h"

namespace kmock::server {
namespace {

// The TLS connection this thread serves: a connection is served on one
// thread from its handshake to its end.
thread_local const SSL* current_connection = nullptr;

// Kept on each tracked SSL object; its free callback forgets the socket.
struct TrackedSocket {
  ConnectionWatchdog* watchdog;
  int fd;
};

void FreeTrackedSocket(void* parent, void* ptr, CRYPTO_EX_DATA* /*ad*/,
                       int /*idx*/, long /*argl*/, void* /*argp*/) {
  if (current_connection == parent) current_connection = nullptr;
  auto* tracked = static_cast<TrackedSocket*>(ptr);
  if (tracked == nullptr) return;
  ClearConnectionMarks(tracked->fd);
  tracked->watchdog->Forget(tracked->fd);
  delete tracked;
}

int SslIndex() {
  static const int index =
      SSL_get_ex_new_index(0, nullptr, nullptr, nullptr, FreeTrackedSocket);
  return index;
}

int CtxIndex() {
  static const int index =
      SSL_CTX_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
  return index;
}

void OnInfo(const SSL* ssl, int where, int /*ret*/) {
  if ((where & SSL_CB_HANDSHAKE_START) == 0) return;
  SSL* s = const_cast<SSL*>(ssl);
  if (SSL_get_ex_data(s, SslIndex()) != nullptr) return;  // renegotiation
  current_connection = ssl;
  int fd = SSL_get_fd(s);
  if (fd < 0) return;
  if (ConnectionPool::CurrentTaskRefused()) {
    // The handshake then reads end-of-file at once and fails.
    shutdown(fd, SHUT_RDWR);
    return;
  }
  const auto* config = static_cast<const ConnectionHookConfig*>(
      SSL_CTX_get_ex_data(SSL_get_SSL_CTX(s), CtxIndex()));
  if (config == nullptr || config->watchdog == nullptr) return;
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(config->write_timeout.count() / 1000);
  tv.tv_usec =
      static_cast<suseconds_t>((config->write_timeout.count() % 1000) * 1000);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  auto* tracked = new TrackedSocket{config->watchdog, fd};
  if (SSL_set_ex_data(s, SslIndex(), tracked) != 1) {
    delete tracked;
    return;
  }
  config->watchdog->Track(
      fd,
      std::chrono::steady_clock::now() + config->handshake_and_header_timeout,
      config->write_timeout);
}

}  // namespace

const SSL* ThisThreadsConnection() { return current_connection; }

Status InstallConnectionHooks(SSL_CTX* ctx,
                              const ConnectionHookConfig* config) {
  if (SslIndex() < 0 || CtxIndex() < 0)
    return Status(StatusCode::kInternal,
                  "cannot reserve TLS connection data slots");
  if (SSL_CTX_set_ex_data(ctx, CtxIndex(),
                          const_cast<ConnectionHookConfig*>(config)) != 1)
    return Status(StatusCode::kInternal,
                  "cannot attach the connection limits to the TLS context");
  SSL_CTX_set_info_callback(ctx, OnInfo);
  return Status::Ok();
}

}  // namespace kmock::server
