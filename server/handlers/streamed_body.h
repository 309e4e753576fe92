// A response body written a piece at a time as the client takes it, so a
// large response (a long List, its Table or YAML) holds one piece in the
// server, not the whole body and its copies.
//
// A BodySource makes the pieces: its first Next appends the body's start
// and each later one the next piece, about kPieceBytes, the last one with
// the body's end. A body that ends within kWholeBodyBytes is sent whole,
// with a Content-Length; a longer one is sent chunked: framed here for a
// client that takes no compression (the library writes it without
// copying), framed and gzip-compressed by the HTTP library otherwise, in
// slices of 32 KiB.
//
// A read error before anything is sent becomes the Status answer; after
// that it can only cut the body short, which the client reports as an
// unexpected end of its body.
//
// Thread safety: one per response; the HTTP library calls it on the
// connection's thread.
#ifndef KMOCK_SERVER_HANDLERS_STREAMED_BODY_H_
#define KMOCK_SERVER_HANDLERS_STREAMED_BODY_H_

#include <httplib.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>

#include "common/status.h"

namespace kmock::server {

// What one piece of a streamed body aims at.
inline constexpr size_t kPieceBytes = 256 * 1024;
// Bodies up to about this size are sent whole.
inline constexpr size_t kWholeBodyBytes = 1024 * 1024;

class BodySource {
 public:
  virtual ~BodySource() = default;
  // Appends the next piece to out; returns whether more follow.
  virtual Result<bool> Next(std::string* out) = 0;
};

// How many keys of a list the next piece should read so that it comes
// near kPieceBytes, from the bytes the keys read so far made.
class PieceSizer {
 public:
  explicit PieceSizer(size_t first_keys, size_t max_keys)
      : next_(first_keys), max_(max_keys) {}
  size_t keys() const { return next_; }
  void Record(size_t keys, size_t bytes) {
    keys_ += keys;
    bytes_ += bytes;
    size_t per_key = std::max<size_t>(1, bytes_ / std::max<size_t>(1, keys_));
    next_ = std::clamp<size_t>(kPieceBytes / per_key, 1, max_);
  }

 private:
  size_t next_;
  const size_t max_;
  size_t keys_ = 0;
  size_t bytes_ = 0;
};

// Sets res's body from source (status 200 and content_type), or res to the
// Status answer of a read error that came before anything was sent.
void SendBody(const httplib::Request& req, httplib::Response& res,
              const std::string& content_type,
              std::unique_ptr<BodySource> source);

}  // namespace kmock::server

#endif  // KMOCK_SERVER_HANDLERS_STREAMED_BODY_H_
