// An UpgradedConn that plays back a client's bytes and keeps what the
// server writes: for the stream protocols' tests and fuzz targets. Reads
// hand out at most `chunk` bytes at a time (so frames arrive split) and
// report the end once the script is used up; writes fail past `max_out`
// bytes, as a client that stops reading would make them.
//
// Thread safety: none; one session uses it.
#ifndef KMOCK_SERVER_STREAM_SCRIPTED_CONN_H_
#define KMOCK_SERVER_STREAM_SCRIPTED_CONN_H_

#include <algorithm>
#include <string>
#include <string_view>

#include "server/stream/upgraded_conn.h"

namespace kmock::server::stream {

class ScriptedConn : public UpgradedConn {
 public:
  explicit ScriptedConn(std::string in, size_t chunk = 1 << 20,
                        size_t max_out = 1 << 24)
      : in_(std::move(in)), chunk_(chunk), max_out_(max_out) {}

  int Read(char* buf, size_t n, std::chrono::milliseconds) override {
    if (at_ >= in_.size()) return -1;
    size_t k = std::min({n, chunk_, in_.size() - at_});
    std::copy(in_.begin() + static_cast<std::ptrdiff_t>(at_),
              in_.begin() + static_cast<std::ptrdiff_t>(at_ + k), buf);
    at_ += k;
    return static_cast<int>(k);
  }
  bool Write(std::string_view bytes) override {
    if (out_.size() + bytes.size() > max_out_) return false;
    out_.append(bytes);
    return true;
  }
  // Everything the server wrote.
  const std::string& written() const { return out_; }

 private:
  std::string in_;
  size_t at_ = 0;
  size_t chunk_, max_out_;
  std::string out_;
};

}  // namespace kmock::server::stream

#endif  // KMOCK_SERVER_STREAM_SCRIPTED_CONN_H_
