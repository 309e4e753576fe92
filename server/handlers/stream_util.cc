#include "server/handlers/stream_util.h"

#include <poll.h>

namespace kmock::server {

int SocketOf(const httplib::Request& req) {
  if (req.ssl == nullptr) return -1;
  return SSL_get_fd(req.ssl);
}

bool ClientGone(int fd) {
  if (fd < 0) return false;
  pollfd p{fd, POLLRDHUP, 0};
  if (poll(&p, 1, 0) <= 0) return false;
  return (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0;
}

void DisableCompression(const httplib::Request& req) {
  // The library decides on the request's Accept-Encoding after the
  // handler returns; the request object is the library's own, not const.
  auto& headers = const_cast<httplib::Headers&>(req.headers);
  headers.erase("Accept-Encoding");
}

}  // namespace kmock::server
