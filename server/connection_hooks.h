// Ties each TLS connection to the connection limits, from the moment its
// handshake starts until its SSL object is freed (just before the HTTP
// library closes the socket):
// - a connection the pool refused (ConnectionPool::CurrentTaskRefused) is
//   shut down before a byte is read, so it costs no worker;
// - every other socket gets the write timeout as its send timeout, and is
//   tracked by the ConnectionWatchdog with the
//   handshake-and-first-header deadline and the write timeout (a response
//   the peer takes nothing of for that long is cut, however it is split
//   into sends), and forgotten when its SSL object is freed.
//
// Thread safety: InstallConnectionHooks runs once on a fresh SSL_CTX before
// it is shared; the hooks themselves run on the connection's worker thread.
#ifndef KMOCK_SERVER_CONNECTION_HOOKS_H_
#define KMOCK_SERVER_CONNECTION_HOOKS_H_

#include <openssl/ssl.h>

#include <chrono>

#include "common/status.h"
#include "server/connection_watchdog.h"

namespace kmock::server {

struct ConnectionHookConfig {
  ConnectionWatchdog* watchdog = nullptr;
  // Time from the start of the TLS handshake to the end of the first
  // request header.
  std::chrono::milliseconds handshake_and_header_timeout{32000};
  // Set as the socket's send timeout (SO_SNDTIMEO): a blocking send into a
  // full buffer fails after this instead of waiting forever. The watchdog
  // also cuts the connection when the peer acknowledges nothing for this
  // long while bytes wait: a single send can be retried, a stalled
  // response cannot outlive it.
  std::chrono::milliseconds write_timeout{10000};
};

// `config` must outlive ctx.
Status InstallConnectionHooks(SSL_CTX* ctx, const ConnectionHookConfig* config);

// The TLS connection the calling thread serves (each connection is served
// on one thread), or null: for the few places where the HTTP library has
// not put it in the request yet (its answers before routing).
const SSL* ThisThreadsConnection();

}  // namespace kmock::server

#endif  // KMOCK_SERVER_CONNECTION_HOOKS_H_
