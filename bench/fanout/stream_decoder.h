// Decoding what a Kubernetes API server streams back, without a JSON parser:
// the HTTP/1.1 chunked transfer coding of a watch response, its
// newline-delimited events, and the few fields the fan-out benchmark reads
// from an event or a list (type, resourceVersion, continue token, item count).
// kube-apiserver's JSON puts an event's "type" last and an object's
// metadata.resourceVersion before anything else that carries that name, so
// plain searches find them; objects with escaped JSON in annotations do not
// confuse them (the escaped quotes do not match).
// ChunkedLineReader is a plain value: use one per stream, from one thread.
#ifndef KMOCK_BENCH_FANOUT_STREAM_DECODER_H_
#define KMOCK_BENCH_FANOUT_STREAM_DECODER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace kmock::bench {

// Feeds the raw bytes of a chunked body in pieces of any size and calls
// on_line once per complete line of the decoded body (without the '\n').
class ChunkedLineReader {
 public:
  using LineFn = std::function<void(std::string_view line)>;

  explicit ChunkedLineReader(LineFn on_line) : on_line_(std::move(on_line)) {}

  // Returns false once the framing is malformed (the stream is then useless).
  bool Feed(std::string_view bytes);

  // True after the terminating zero-size chunk.
  bool finished() const { return state_ == State::kFinished; }
  const std::string& error() const { return error_; }

 private:
  enum class State { kSize, kSizeExtension, kData, kDataEnd, kFinished, kBad };

  bool Fail(const std::string& why);
  void TakeData(std::string_view data);

  LineFn on_line_;
  State state_ = State::kSize;
  uint64_t size_ = 0;  // of the chunk being read
  bool size_digits_ = false;
  uint64_t remaining_ = 0;  // bytes of the chunk still to come
  int end_seen_ = 0;        // of the "\r\n" after a chunk's data
  std::string line_;        // the incomplete line so far
  std::string error_;
};

// What the benchmark needs from one watch event.
struct WatchEventInfo {
  std::string_view type;  // ADDED, MODIFIED, DELETED, BOOKMARK, ERROR; empty
                          // if the line has no top-level type
  int64_t resource_version = -1;  // the object's; -1 if absent
};
WatchEventInfo ParseWatchEvent(std::string_view line);

// The first metadata.resourceVersion in a JSON object (the object's own for a
// single object); -1 if absent.
int64_t FirstResourceVersion(std::string_view json);

// A list's own resourceVersion: the last one in the document (the list's
// metadata follows its items); -1 if absent.
int64_t ListResourceVersion(std::string_view list_json);

// A list's continue token, or "" when it is the last page.
std::string ListContinueToken(std::string_view list_json);

// The number of items in a list: every item carries one resourceVersion and
// the list one more.
int64_t ListItemCount(std::string_view list_json);

// Counts a list's items as its body arrives in pieces of any size, without
// holding it: what ListItemCount says of the whole body.
class StreamingItemCounter {
 public:
  void Feed(std::string_view bytes);
  int64_t items() const { return seen_ > 0 ? seen_ - 1 : 0; }

 private:
  int64_t seen_ = 0;   // resourceVersion fields so far
  std::string carry_;  // the last bytes, for a field split between pieces
};

}  // namespace kmock::bench

#endif  // KMOCK_BENCH_FANOUT_STREAM_DECODER_H_
