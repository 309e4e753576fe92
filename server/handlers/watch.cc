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
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

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
// Events waiting together are written as one chunk of at most about this
// many bytes.
constexpr size_t kMaxBatchBytes = 256 << 10;
// What a write adds to its bytes in the send buffer (chunk and TLS
// framing), with margin.
constexpr int64_t kFramingBytes = 1024;
constexpr char kWatchContentType[] = "application/json;stream=watch";

class WatchStream : public FanoutTarget,
                    public std::enable_shared_from_this<WatchStream> {
 public:
  WatchStream(std::unique_ptr<registry::ObjectWatcher> watcher,
              StreamTracker* tracker, WatchFanout* fanout,
              const api::ResourceInfo* resource, const Clock* clock,
              std::optional<TableOptions> table, int fd, SteadyTime deadline)
      : watcher_(std::move(watcher)),
        tracker_(tracker),
        fanout_(fanout),
        resource_(resource),
        clock_(clock),
        table_(std::move(table)),
        fd_(fd),
        deadline_(deadline) {
    if (fd_ >= 0) {
      int size = 0;
      socklen_t len = sizeof(size);
      if (getsockopt(fd_, SOL_SOCKET, SO_SNDBUF, &size, &len) == 0)
        send_buffer_ = size;
    }
  }

  registry::ObjectWatcher* watcher() { return watcher_.get(); }

  // From here on the store's news of this watch queues it on the fan-out.
  void JoinFanout() {
    if (fanout_ == nullptr) return;
    std::weak_ptr<FanoutTarget> self = weak_from_this();
    auto queued = queued_;
    WatchFanout* fanout = fanout_;
    watcher_->SetReadyCallback([self, queued, fanout] {
      if (!queued->exchange(true)) fanout->Ready(self);
    });
  }

  // One round of the provider loop, on the connection's thread, which owns
  // the sink except while parked: writes what is waiting (a backlog handed
  // back by a writer, events, a bookmark), then parks up to kPollInterval
  // while fan-out writers may take the sink and write for it, then takes it
  // back and ends the stream if the client has gone. Writes to the client
  // never hold io_mu_, so a writer never waits on a slow client. Returns
  // false only when a write failed.
  bool Pump(httplib::DataSink& sink) {
    SteadyTime now = std::chrono::steady_clock::now();
    if (tracker_->stopped() || now >= deadline_) {
      sink.done();
      return true;
    }
    auto wait = std::min<std::chrono::milliseconds>(
        kPollInterval,
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - now) +
            std::chrono::milliseconds(1));
    for (;;) {
      std::vector<registry::WatchEvent> work;
      std::optional<Status> end;
      {
        std::lock_guard<std::mutex> l(io_mu_);
        work.swap(backlog_);
        pending_ = false;
        handoff_ = false;
        end = ended_;
      }
      if (!end) {
        Status st = watcher_->Next(
            fanout_ != nullptr ? std::chrono::milliseconds(0) : wait, &work);
        if (!st.ok()) end = st;
      }
      // All that is waiting in one write (one chunk, as few TLS records
      // as fit): a client that keeps up reads one batch, not one event
      // per wake-up, and the server makes one write call for it.
      std::string batch;
      for (const registry::WatchEvent& e : work) {
        AppendLineFor(e, &batch);
        if (batch.size() >= kMaxBatchBytes) {
          if (!WriteLine(sink, batch)) return false;
          batch.clear();
        }
      }
      if (!batch.empty() && !WriteLine(sink, batch)) return false;
      if (end) {
        // A watcher that fell behind is closed without an ERROR, as the
        // watch cache closes it: clients watch again from where they were.
        if (!tracker_->stopped() && end->code() != StatusCode::kFellBehind)
          WriteEventTo(sink, "ERROR", StatusJson(*end));
        sink.done();
        return true;
      }
      if (fanout_ == nullptr) {
        if (!work.empty()) return true;
        break;
      }
      std::unique_lock<std::mutex> l(io_mu_);
      if (pending_ || !backlog_.empty()) continue;  // news while writing
      sink_ = &sink;
      wake_.wait_for(l, wait, [this] {
        return failed_ || ended_.has_value() || handoff_ || tracker_->stopped();
      });
      // Take the sink back once no writer is using it.
      owner_waiting_ = true;
      wake_.wait(l, [this] { return !writer_active_; });
      owner_waiting_ = false;
      sink_ = nullptr;
      if (failed_) return false;
      if (ended_ || handoff_ || pending_ || !backlog_.empty()) return true;
      break;
    }
    // Quiet for a while: the only time a departed client could go
    // unnoticed (a write to it fails).
    if (ClientGone(fd_) || !sink.is_writable()) sink.done();
    return true;
  }

  // On a fan-out writer: while the connection's thread is parked, takes
  // the sink and writes the events that fit the socket's send buffer; the
  // rest goes back to that thread, which may block on a slow client without
  // holding up others. When the thread is not parked (writing, or between
  // rounds), it is told there is news and drains before it parks.
  void Deliver() override {
    queued_->store(false);
    for (;;) {
      httplib::DataSink* sink = nullptr;
      {
        std::lock_guard<std::mutex> l(io_mu_);
        if (released_ || failed_ || ended_) return;
        if (sink_ == nullptr || writer_active_ || handoff_ ||
            !backlog_.empty()) {
          pending_ = true;
          return;
        }
        writer_active_ = true;
        sink = sink_;
      }
      std::vector<registry::WatchEvent> events;
      Status st = watcher_->Next(std::chrono::milliseconds(0), &events);
      std::vector<registry::WatchEvent> rest;
      // The events that fit the socket's send buffer, in one write.
      const int64_t room = Room();
      std::string batch;
      for (size_t i = 0; i < events.size(); ++i) {
        const size_t before = batch.size();
        AppendLineFor(events[i], &batch);
        if (static_cast<int64_t>(batch.size()) + kFramingBytes > room) {
          batch.resize(before);
          rest.assign(std::make_move_iterator(events.begin() + i),
                      std::make_move_iterator(events.end()));
          break;
        }
      }
      const bool failed = !batch.empty() && !WriteLine(*sink, batch);
      bool again = false;
      bool notify = false;
      {
        std::lock_guard<std::mutex> l(io_mu_);
        writer_active_ = false;
        if (failed) failed_ = true;
        if (!rest.empty()) {
          backlog_ = std::move(rest);
          handoff_ = true;
        }
        if (!st.ok()) ended_ = st;
        notify = owner_waiting_ || failed_ || handoff_ || ended_.has_value();
        // News that came while this writer wrote: take it too, unless the
        // thread is taking the sink back (it drains pending news itself).
        again = pending_ && !notify;
        if (again) pending_ = false;
      }
      if (notify) wake_.notify_all();
      if (!again) return;
    }
  }

  // Writes one event line, {"type":...,"object":...} and a newline, in
  // kube-apiserver's field order.
  static bool WriteEventTo(httplib::DataSink& sink, const std::string& type,
                           const std::string& object_json) {
    return WriteLine(sink, Line(type, object_json));
  }
  static bool WriteEventTo(httplib::DataSink& sink, const std::string& type,
                           const json& object) {
    return WriteEventTo(sink, type, registry::EncodeServedJson(object));
  }

  // Ends the watch and forgets it; safe to call more than once.
  void Release() {
    {
      std::lock_guard<std::mutex> l(io_mu_);
      if (released_) return;
      released_ = true;
    }
    watcher_->SetReadyCallback(nullptr);
    tracker_->Remove(watcher_.get());
    watcher_->Stop();
  }

 private:
  static void AppendLine(const std::string& type,
                         const std::string& object_json, std::string* out) {
    out->reserve(out->size() + object_json.size() + type.size() + 24);
    out->append("{\"type\":\"").append(type).append("\",\"object\":");
    out->append(object_json).append("}\n");
  }
  static std::string Line(const std::string& type,
                          const std::string& object_json) {
    std::string line;
    AppendLine(type, object_json, &line);
    return line;
  }
  static bool WriteLine(httplib::DataSink& sink, const std::string& line) {
    return sink.write(line.data(), line.size());
  }

  // Appends the event's line to out.
  void AppendLineFor(const registry::WatchEvent& e, std::string* out) const {
    const std::string& type = e.type;
    bool convert =
        table_ && (type == "ADDED" || type == "MODIFIED" || type == "DELETED");
    // The object's bytes are shared by every watcher of this revision.
    if (!convert) return AppendLine(type, e.served->JsonBytes(), out);
    AppendLine(type,
               registry::EncodeServedJson(ObjectToTable(
                   *resource_, e.object(), clock_->Now(), *table_)),
               out);
  }

  // How many bytes the socket's send buffer takes now without blocking.
  int64_t Room() const {
    if (fd_ < 0 || send_buffer_ <= 0) return 0;
    int unsent = 0;
    if (ioctl(fd_, SIOCOUTQ, &unsent) != 0) return 0;
    return static_cast<int64_t>(send_buffer_) - unsent;
  }

  std::unique_ptr<registry::ObjectWatcher> watcher_;
  StreamTracker* tracker_;
  WatchFanout* fanout_;
  const api::ResourceInfo* resource_;
  const Clock* clock_;
  std::optional<TableOptions> table_;
  int fd_;
  SteadyTime deadline_;
  int send_buffer_ = 0;  // SO_SNDBUF at the start (autotuning only grows it)
  std::shared_ptr<std::atomic<bool>> queued_ =
      std::make_shared<std::atomic<bool>>(false);

  // Guards the fields below; never held while writing to the client. The
  // sink and the watcher's Next belong to the connection's thread, or to
  // the one writer with writer_active_ while that thread is parked.
  std::mutex io_mu_;
  std::condition_variable wake_;
  // The connection thread's sink while it is parked in Pump, else null.
  httplib::DataSink* sink_ = nullptr;
  bool writer_active_ = false;  // a writer holds the sink
  bool owner_waiting_ = false;  // the thread waits to take it back
  bool pending_ = false;        // news a writer could not take now
  std::vector<registry::WatchEvent> backlog_;  // handed back by a writer
  bool handoff_ = false;         // a writer left work for the thread
  bool failed_ = false;          // a writer's write failed
  std::optional<Status> ended_;  // the watch ended (seen by a writer)
  bool released_ = false;
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
  if (timeout->has_value() && **timeout != 0) {
    // As kube-apiserver's timer: a negative timeout has passed already, so
    // the watch ends at once.
    length = std::chrono::seconds(std::max<int64_t>(0, **timeout));
  } else {
    // min_request_timeout * (1 + r), r uniform in [0, 1).
    constexpr uint64_t kSteps = 1000000;
    auto base = std::chrono::duration_cast<std::chrono::milliseconds>(
        ctx.min_request_timeout);
    length = base + base * static_cast<int64_t>(ctx.rng->Uniform(kSteps)) /
                        static_cast<int64_t>(kSteps);
  }
  auto stream = std::make_shared<WatchStream>(
      std::move(watcher).value(), ctx.streams, ctx.fanout, ctx.resource,
      ctx.clock, table, SocketOf(*ctx.req),
      std::chrono::steady_clock::now() + length);
  if (!ctx.streams->Add(stream->watcher())) {
    stream->Release();
    return WriteError(res, Status(StatusCode::kServiceUnavailable,
                                  "the server is shutting down"));
  }
  stream->JoinFanout();
  res.status = 200;
  res.set_header("Cache-Control", "no-cache, private");
  res.set_chunked_content_provider(
      kWatchContentType,
      [stream](size_t, httplib::DataSink& sink) { return stream->Pump(sink); },
      [stream](bool) { stream->Release(); });
}

}  // namespace kmock::server
