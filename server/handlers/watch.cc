// Watch streaming: a chunked response of {"type":...,"object":...} lines,
// one per event, flushed per event.
//
// The stream is sent as "application/json;stream=watch", a type the HTTP
// library does not compress (a gzip stream would hold events back until it
// ends). It ends at timeoutSeconds, or else at a jittered
// min_request_timeout * (1 + r) with r in [0, 1) so that clients do not all
// reconnect together; when the client leaves (the socket is polled while
// waiting); when the server stops; or after an error, which is sent first
// as an ERROR event carrying the Status. Stream timeouts are network
// timeouts and run on the steady clock, not on the injected Clock.
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>

#include "server/errors.h"
#include "server/handlers/context.h"
#include "server/handlers/options.h"
#include "server/handlers/render.h"
#include "server/handlers/stream_util.h"
#include "server/response.h"

namespace kmock::server {
namespace {

using nlohmann::json;
using SteadyTime = std::chrono::steady_clock::time_point;

constexpr std::chrono::milliseconds kPollInterval{250};
constexpr char kWatchContentType[] = "application/json;stream=watch";

class WatchStream {
 public:
  WatchStream(std::unique_ptr<registry::ObjectWatcher> watcher,
              StreamTracker* tracker, const api::ResourceInfo* resource,
              const Clock* clock, std::optional<TableOptions> table, int fd,
              SteadyTime deadline)
      : watcher_(std::move(watcher)),
        tracker_(tracker),
        resource_(resource),
        clock_(clock),
        table_(std::move(table)),
        fd_(fd),
        deadline_(deadline) {}

  registry::ObjectWatcher* watcher() { return watcher_.get(); }

  // One round of the provider loop: waits up to kPollInterval for events
  // and writes them. Returns false only when a write failed.
  bool Pump(httplib::DataSink& sink) {
    SteadyTime now = std::chrono::steady_clock::now();
    if (tracker_->stopped() || now >= deadline_ || ClientGone(fd_) ||
        !sink.is_writable()) {
      sink.done();
      return true;
    }
    auto wait = std::min<std::chrono::milliseconds>(
        kPollInterval,
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - now) +
            std::chrono::milliseconds(1));
    std::vector<registry::WatchEvent> events;
    Status st = watcher_->Next(wait, &events);
    for (const registry::WatchEvent& e : events) {
      if (!WriteEvent(sink, e)) return false;
    }
    if (!st.ok()) {
      if (!tracker_->stopped()) WriteEventTo(sink, "ERROR", StatusJson(st));
      sink.done();
    }
    return true;
  }

  // Writes one event line, {"type":...,"object":...} and a newline, in
  // kube-apiserver's field order.
  static bool WriteEventTo(httplib::DataSink& sink, const std::string& type,
                           const std::string& object_json) {
    std::string line;
    line.reserve(object_json.size() + type.size() + 24);
    line.append("{\"type\":\"").append(type).append("\",\"object\":");
    line.append(object_json).append("}\n");
    return sink.write(line.data(), line.size());
  }
  static bool WriteEventTo(httplib::DataSink& sink, const std::string& type,
                           const json& object) {
    return WriteEventTo(sink, type, registry::EncodeServedJson(object));
  }

  // Ends the watch and forgets it; safe to call more than once.
  void Release() {
    if (released_.exchange(true)) return;
    tracker_->Remove(watcher_.get());
    watcher_->Stop();
  }

 private:
  bool WriteEvent(httplib::DataSink& sink, const registry::WatchEvent& e) {
    const std::string& type = e.type;
    bool convert =
        table_ && (type == "ADDED" || type == "MODIFIED" || type == "DELETED");
    // The object's bytes are shared by every watcher of this revision.
    if (!convert) return WriteEventTo(sink, type, e.served->JsonBytes());
    return WriteEventTo(
        sink, type,
        ObjectToTable(*resource_, e.object(), clock_->Now(), *table_));
  }

  std::unique_ptr<registry::ObjectWatcher> watcher_;
  StreamTracker* tracker_;
  const api::ResourceInfo* resource_;
  const Clock* clock_;
  std::optional<TableOptions> table_;
  int fd_;
  SteadyTime deadline_;
  std::atomic<bool> released_{false};
};

// Watch start errors that kube-apiserver reports inside a 200 stream (a
// too-old resourceVersion) rather than as the HTTP status.
bool IsInStreamError(const Status& st) {
  return st.code() == StatusCode::kExpired || st.code() == StatusCode::kGone ||
         st.code() == StatusCode::kCompacted;
}

}  // namespace

void HandleWatch(const RequestContext& ctx, httplib::Response& res) {
  Result<registry::WatchOptions> opts = WatchOptionsFrom(*ctx.req, *ctx.info);
  if (!opts.ok()) return WriteError(res, opts.status());
  Result<std::optional<int64_t>> timeout = TimeoutSecondsFrom(*ctx.req);
  if (!timeout.ok()) return WriteError(res, timeout.status());
  std::optional<TableOptions> table;
  if (ctx.output.table) {
    Result<TableOptions> t = TableOptionsFor(ctx);
    if (!t.ok()) return WriteError(res, t.status());
    table = *t;
  }

  Result<std::unique_ptr<registry::ObjectWatcher>> watcher =
      ctx.registry->Watch(*ctx.resource, ctx.info->ns, *opts);
  if (!watcher.ok()) {
    if (!IsInStreamError(watcher.status()))
      return WriteError(res, watcher.status());
    json error = StatusJson(watcher.status());
    res.status = 200;
    res.set_chunked_content_provider(
        kWatchContentType, [error](size_t, httplib::DataSink& sink) {
          WatchStream::WriteEventTo(sink, "ERROR", error);
          sink.done();
          return true;
        });
    return;
  }

  std::chrono::milliseconds length;
  if (timeout->has_value() && **timeout > 0) {
    length = std::chrono::seconds(**timeout);
  } else {
    // min_request_timeout * (1 + r), r uniform in [0, 1).
    constexpr uint64_t kSteps = 1000000;
    auto base = std::chrono::duration_cast<std::chrono::milliseconds>(
        ctx.min_request_timeout);
    length = base + base * static_cast<int64_t>(ctx.rng->Uniform(kSteps)) /
                        static_cast<int64_t>(kSteps);
  }
  auto stream = std::make_shared<WatchStream>(
      std::move(watcher).value(), ctx.streams, ctx.resource, ctx.clock, table,
      SocketOf(*ctx.req), std::chrono::steady_clock::now() + length);
  if (!ctx.streams->Add(stream->watcher())) {
    stream->Release();
    return WriteError(res, Status(StatusCode::kServiceUnavailable,
                                  "the server is shutting down"));
  }
  res.status = 200;
  res.set_header("Cache-Control", "no-cache, private");
  res.set_chunked_content_provider(
      kWatchContentType,
      [stream](size_t, httplib::DataSink& sink) { return stream->Pump(sink); },
      [stream](bool) { stream->Release(); });
}

}  // namespace kmock::server
