#include "server/handlers/streamed_body.h"

#include <cstdio>

#include "server/response.h"

namespace kmock::server {
namespace {

// How much of a streamed body goes into one HTTP chunk when the HTTP
// library frames it: with its size line and CRLFs a chunk is 32 KiB, two
// full TLS records, and the copies the library makes of it (and the
// compressor's output) stay in cache and reuse the same memory.
constexpr size_t kHttpChunkPayload = 32 * 1024 - 8;  // "7ff8\r\n" ... "\r\n"

// Room kept before a piece for its chunk's size line when the body frames
// its own chunks: up to 16 hex digits and CRLF.
constexpr size_t kSizeLineRoom = 18;

// The HTTP library compresses a chunked body for a client that accepts
// gzip (or br); it then has to frame it. For other clients the body frames
// its chunks itself and hands the library whole chunks to send, without
// the library's copies (an eighth of a full LIST's server CPU).
bool LibraryWouldCompress(const httplib::Request& req) {
  const std::string encodings = req.get_header_value("Accept-Encoding");
  return encodings.find("gzip") != std::string::npos ||
         encodings.find("br") != std::string::npos;
}

struct Stream {
  std::unique_ptr<BodySource> source;
  bool self_framed = false;
  // The next piece; when self-framed, after kSizeLineRoom bytes kept for
  // the size line.
  std::string pending;
  bool done = false;

  size_t Start() const { return self_framed ? kSizeLineRoom : 0; }

  // Reads the next piece into pending; false on a read error.
  bool Fill() {
    pending.resize(Start());
    // A piece too small to matter (a chunk of keys that all missed a
    // selector) is followed by more before it is sent.
    while (!done && pending.size() - Start() < kPieceBytes / 4) {
      Result<bool> more = source->Next(&pending);
      if (!more.ok()) return false;
      done = !*more;
    }
    // A piece far larger than planned (objects much larger than the ones
    // before) is not kept around at its peak size.
    if (pending.capacity() > 4 * kPieceBytes &&
        pending.size() < pending.capacity() / 4)
      pending.shrink_to_fit();
    return true;
  }

  bool Pump(httplib::DataSink& sink) {
    if (self_framed ? !WriteFramed(sink) : !WriteSlices(sink)) return false;
    if (done) {
      sink.done();
      return true;
    }
    return Fill();
  }

  bool WriteSlices(httplib::DataSink& sink) {
    for (size_t sent = 0; sent < pending.size();) {
      size_t n = std::min(kHttpChunkPayload, pending.size() - sent);
      if (!sink.write(pending.data() + sent, n)) return false;
      sent += n;
    }
    return true;
  }

  // pending as one chunk (its size line written into the room before it),
  // and after the last one the terminating zero-size chunk.
  bool WriteFramed(httplib::DataSink& sink) {
    size_t start = kSizeLineRoom;
    const size_t payload = pending.size() - kSizeLineRoom;
    if (payload > 0) {
      char line[kSizeLineRoom + 1];
      int n = snprintf(line, sizeof line, "%zx\r\n", payload);
      start -= static_cast<size_t>(n);
      pending.replace(start, static_cast<size_t>(n), line,
                      static_cast<size_t>(n));
      pending += "\r\n";
    }
    if (done) pending += "0\r\n\r\n";
    return sink.write(pending.data() + start, pending.size() - start);
  }
};

}  // namespace

void SendBody(const httplib::Request& req, httplib::Response& res,
              const std::string& content_type,
              std::unique_ptr<BodySource> source) {
  auto stream = std::make_shared<Stream>();
  stream->self_framed = !LibraryWouldCompress(req);
  std::string first(stream->Start(), ' ');
  bool more = true;
  while (more && first.size() - stream->Start() < kWholeBodyBytes) {
    Result<bool> next = source->Next(&first);
    if (!next.ok()) return WriteError(res, next.status());
    more = *next;
  }
  res.status = 200;
  if (!more) {
    first.erase(0, stream->Start());
    SetBody(res, std::move(first), content_type);
    return;
  }
  stream->pending = std::move(first);
  stream->source = std::move(source);
  auto pump = [stream](size_t, httplib::DataSink& sink) {
    return stream->Pump(sink);
  };
  if (stream->self_framed) {
    // Sent as a body of unknown length, which the library writes as it is:
    // the chunked framing is ours.
    res.set_header("Transfer-Encoding", "chunked");
    res.set_content_provider(content_type, pump);
  } else {
    res.set_chunked_content_provider(content_type, pump);
  }
}

}  // namespace kmock::server
