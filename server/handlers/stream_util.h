// Helpers shared by the streaming handlers (watch, pods/log with follow):
// the connection's socket and whether the client has gone.
//
// Thread safety: pure functions on a socket; safe from any thread.
#ifndef KMOCK_SERVER_HANDLERS_STREAM_UTIL_H_
#define KMOCK_SERVER_HANDLERS_STREAM_UTIL_H_

#include <httplib.h>

namespace kmock::server {

// The request's TCP socket, or -1 if unknown.
int SocketOf(const httplib::Request& req);

// Whether the peer closed or reset its side of the connection (a client that
// ends a stream gracefully is only noticed this way on a quiet stream).
bool ClientGone(int fd);

// Keeps the HTTP library from compressing this response. It gzips a
// text/plain stream with deflate's default flushing, which holds a
// followed log back until kilobytes have gathered; a stream must reach
// the client line by line, as kube-apiserver's flushed stream does.
void DisableCompression(const httplib::Request& req);

}  // namespace kmock::server

#endif  // KMOCK_SERVER_HANDLERS_STREAM_UTIL_H_
