// What a simulated server says on a connection to one of its ports
// (`kubectl port-forward`, and probes): the protocols of sim/images.yaml.
//   nginx, httpd      HTTP/1.1 serving the document root from the
//                     container's files (a ConfigMap mounted over it
//                     shows), 404 otherwise; each request is an access
//                     line in the container's log, as each server logs it
//   http-files        python -m http.server: files and directory listings
//   agnhost-netexec   agnhost netexec: /hostname, /echo?msg=, /clientip,
//                     /healthz
//   agnhost-hostname  agnhost serve-hostname: the pod's name per request
//   redis             PING, ECHO, SET, GET, DEL, INCR (RESP), one keyspace
//                     per connection
// Any other port accepts a connection and answers nothing.
//
// Thread safety: a Connection is used by one thread at a time (its
// container serialises them).
#ifndef KMOCK_SIM_SERVERS_H_
#define KMOCK_SIM_SERVERS_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "sim/filesystem.h"
#include "sim/process.h"

namespace kmock::sim {

struct ServerInfo {
  std::string protocol;  // Process::protocol(port)
  int port = 0;
  std::string version;  // the image's version
  std::string hostname;
  const Filesystem* fs = nullptr;  // the container's files
  std::string peer;                // the client's address
};

class Connection {
 public:
  virtual ~Connection() = default;
  // Bytes from the client at `now`; returns the server's answer, and what
  // the server logs goes to `log`.
  virtual std::string Receive(std::string_view data, TimePoint now,
                              std::vector<Output>* log) = 0;
  // The server has closed its side (after an answer to
  // "Connection: close").
  virtual bool closed() const = 0;
};

std::unique_ptr<Connection> Accept(const ServerInfo& info);

}  // namespace kmock::sim

#endif  // KMOCK_SIM_SERVERS_H_
