// GET pods/<name>/log: a container's log, what its simulated program
// printed (sim/container.h), read from the kubelet that runs it. kubectl
// logs behaves as against a real cluster: the container is chosen the same
// way, the same errors come back (no such container, several to choose
// from, not started yet, no node, no previous instance, bad options), the
// PodLogOptions (timestamps, tailLines, sinceSeconds, sinceTime,
// limitBytes, previous) shape the answer, and with follow=true the stream
// stays open until the container ends (or the pod is deleted), the client
// leaves or the server stops.
#include <chrono>
#include <memory>

#include "common/json_view.h"
#include "server/errors.h"
#include "server/handlers/context.h"
#include "server/handlers/pod_container.h"
#include "server/handlers/stream_util.h"
#include "server/response.h"

namespace kmock::server {
namespace {

using nlohmann::json;

// The status of the named container, or null.
const json* ContainerStatusOf(const json& pod, const std::string& container) {
  auto status = pod.find("status");
  if (status == pod.end() || !status->is_object()) return nullptr;
  for (const char* list : {"containerStatuses", "initContainerStatuses",
                           "ephemeralContainerStatuses"}) {
    auto it = status->find(list);
    if (it == status->end() || !it->is_array()) continue;
    for (const auto& cs : *it)
      if (cs.value("name", "") == container) return &cs;
  }
  return nullptr;
}

// What the apiserver and then the kubelet answer when there is no log to
// read: no node yet; for previous=true no terminated earlier instance;
// else, unless the container runs or has run, the reason it waits.
Status NoLogToRead(const json& pod, const std::string& container,
                   bool previous) {
  const std::string name = pod["metadata"].value("name", "");
  if (pod["spec"].value("nodeName", "").empty())
    return BadRequestError("pod " + name + " does not have a host assigned");
  const json* cs = ContainerStatusOf(pod, container);
  const std::string where =
      "container \"" + container + "\" in pod \"" + name + "\"";
  static const json kNone = json::object();
  const json& last = cs == nullptr ? kNone : ObjectAt(*cs, "lastState");
  const json& last_terminated = ObjectAt(last, "terminated");
  if (previous) {
    if (StringAt(last_terminated, "containerID").empty())
      return BadRequestError("previous terminated " + where + " not found");
    return Status::Ok();
  }
  auto status = pod.find("status");
  if (status == pod.end() || !status->is_object()) return Status::Ok();
  if (cs == nullptr)
    return BadRequestError(where + " is waiting to start: ContainerCreating");
  const json& state = ObjectAt(*cs, "state");
  if (state.contains("running")) return Status::Ok();
  if (state.contains("terminated")) {
    if (StringAt(ObjectAt(state, "terminated"), "containerID").empty())
      return BadRequestError(where + " is terminated");
    return Status::Ok();
  }
  if (!last_terminated.empty()) {
    if (StringAt(last_terminated, "containerID").empty())
      return BadRequestError(where + " is terminated");
    return Status::Ok();
  }
  if (state.contains("waiting")) {
    std::string reason = StringAt(ObjectAt(state, "waiting"), "reason");
    if (reason == "ErrImagePull")
      return BadRequestError(where +
                             " is waiting to start: image can't be pulled");
    if (reason == "ImagePullBackOff")
      return BadRequestError(
          where + " is waiting to start: trying and failing to pull image");
    return BadRequestError(where + " is waiting to start: " + reason);
  }
  return BadRequestError(where + " is waiting to start - no logs yet");
}

bool IsTrue(const httplib::Request& req, const char* param) {
  return IsTrueParam(req.get_param_value(param));
}

// The PodLogOptions that shape what is read.
struct LogOptions {
  bool timestamps = false;
  std::optional<int64_t> tail_lines;
  std::optional<int64_t> limit_bytes;
  std::optional<TimePoint> since;
};

bool ParseInt(const std::string& s, int64_t* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || end == nullptr || *end != '\0') return false;
  *out = v;
  return true;
}

Status InvalidLogOption(const std::string& pod, const std::string& field,
                        const std::string& value, const std::string& detail) {
  StatusDetails details;
  details.name = pod;
  details.kind = "PodLogOptions";
  details.causes.push_back(
      {"FieldValueInvalid", "Invalid value: " + value + ": " + detail, field});
  return Status(StatusCode::kInvalid,
                "PodLogOptions \"" + pod + "\" is invalid: " + field +
                    ": Invalid value: " + value + ": " + detail,
                std::move(details));
}

// The options of the request, or the error kube-apiserver answers.
Result<LogOptions> ReadLogOptions(const httplib::Request& req,
                                  const std::string& pod, TimePoint now) {
  LogOptions o;
  o.timestamps = IsTrue(req, "timestamps");
  auto number = [&](const char* name, std::optional<int64_t>* out) -> Status {
    if (!req.has_param(name)) return Status::Ok();
    int64_t v = 0;
    std::string raw = req.get_param_value(name);
    if (!ParseInt(raw, &v))
      return BadRequestError("strconv.ParseInt: parsing \"" + raw +
                             "\": invalid syntax");
    *out = v;
    return Status::Ok();
  };
  std::optional<int64_t> since_seconds;
  KMOCK_RETURN_IF_ERROR(number("tailLines", &o.tail_lines));
  KMOCK_RETURN_IF_ERROR(number("limitBytes", &o.limit_bytes));
  KMOCK_RETURN_IF_ERROR(number("sinceSeconds", &since_seconds));
  if (req.has_param("sinceTime")) {
    std::string raw = req.get_param_value("sinceTime");
    TimePoint t;
    if (!ParseRfc3339(raw, &t))
      return BadRequestError("parsing time \"" + raw +
                             "\" as \"2006-01-02T15:04:05Z07:00\": cannot "
                             "parse \"" +
                             raw + "\" as \"2006\"");
    if (since_seconds)
      return InvalidLogOption(pod, "sinceSeconds",
                              std::to_string(*since_seconds),
                              "at most one of `sinceTime` or `sinceSeconds` "
                              "may be specified");
    o.since = t;
  }
  if (o.tail_lines && *o.tail_lines < 0)
    return InvalidLogOption(pod, "tailLines", std::to_string(*o.tail_lines),
                            "must be greater than or equal to 0");
  if (o.limit_bytes && *o.limit_bytes < 1)
    return InvalidLogOption(pod, "limitBytes", std::to_string(*o.limit_bytes),
                            "must be greater than 0");
  if (since_seconds) {
    if (*since_seconds < 1)
      return InvalidLogOption(pod, "sinceSeconds",
                              std::to_string(*since_seconds),
                              "must be greater than 0");
    o.since = now - std::chrono::seconds(*since_seconds);
  }
  return o;
}

std::string Render(const sim::LogLine& line, bool timestamps) {
  if (!timestamps) return line.text;
  return FormatRfc3339Nano(line.at) + " " + line.text;
}

// What a read of the log returns now, and the line number after it.
std::string ReadLog(const sim::Container& c, const LogOptions& o,
                    uint64_t* next) {
  sim::ContainerLog log = c.Log();
  size_t from = 0;
  if (o.since) {
    while (from < log.lines.size() && log.lines[from].at < *o.since) ++from;
  }
  if (o.tail_lines) {
    size_t n = static_cast<size_t>(*o.tail_lines);
    if (log.lines.size() - from > n) from = log.lines.size() - n;
  }
  std::string out;
  for (size_t i = from; i < log.lines.size(); ++i)
    out += Render(log.lines[i], o.timestamps);
  if (o.limit_bytes && out.size() > static_cast<size_t>(*o.limit_bytes))
    out.resize(static_cast<size_t>(*o.limit_bytes));
  *next = log.first + log.lines.size();
  return out;
}

// A follow stream: the log as it grows, until the container ends, the
// pod is deleted or goes away, the client leaves or the server stops.
class FollowStream {
 public:
  FollowStream(std::unique_ptr<registry::ObjectWatcher> watcher,
               StreamTracker* tracker, int fd,
               std::shared_ptr<sim::Container> container, LogOptions options,
               uint64_t next, int64_t written)
      : watcher_(std::move(watcher)),
        tracker_(tracker),
        fd_(fd),
        container_(std::move(container)),
        options_(options),
        next_(next),
        written_(written) {}

  registry::ObjectWatcher* watcher() { return watcher_.get(); }

  // Writes the log's new lines; false when the client cannot take them.
  bool Flush(httplib::DataSink& sink) {
    if (!container_) return true;
    sim::ContainerLog log = container_->Log(next_);
    std::string out;
    for (const auto& line : log.lines) out += Render(line, options_.timestamps);
    next_ = log.first + log.lines.size();
    if (options_.limit_bytes) {
      if (out.size() > static_cast<size_t>(*options_.limit_bytes - written_))
        out.resize(static_cast<size_t>(*options_.limit_bytes - written_));
    }
    written_ += static_cast<int64_t>(out.size());
    return out.empty() || sink.write(out.data(), out.size());
  }

  bool Pump(httplib::DataSink& sink) {
    if (tracker_->stopped() || ClientGone(fd_) || !sink.is_writable() ||
        !Flush(sink) ||
        (options_.limit_bytes && written_ >= *options_.limit_bytes)) {
      sink.done();
      return true;
    }
    if (container_ && container_->state() != sim::Process::State::kRunning &&
        container_->state() != sim::Process::State::kSleeping &&
        container_->state() != sim::Process::State::kBlocked) {
      sink.done();  // the container ended: so does its log
      return true;
    }
    std::vector<registry::WatchEvent> events;
    Status st = watcher_->Next(std::chrono::milliseconds(250), &events);
    for (const auto& e : events) {
      bool stopping = e.type == "DELETED" ||
                      (e.object().contains("metadata") &&
                       e.object()["metadata"].contains("deletionTimestamp"));
      if (stopping) {
        Flush(sink);
        sink.done();
        return true;
      }
    }
    if (!st.ok()) sink.done();
    return true;
  }

  void Release() {
    if (released_) return;
    released_ = true;
    tracker_->Remove(watcher_.get());
    watcher_->Stop();
  }

 private:
  std::unique_ptr<registry::ObjectWatcher> watcher_;
  StreamTracker* tracker_;
  int fd_;
  std::shared_ptr<sim::Container> container_;
  LogOptions options_;
  uint64_t next_ = 0;
  int64_t written_ = 0;
  bool released_ = false;
};

}  // namespace

void HandleLog(const RequestContext& ctx, httplib::Response& res) {
  Result<json> pod =
      ctx.registry->Get(*ctx.resource, ctx.info->ns, ctx.info->name);
  if (!pod.ok()) return WriteError(res, pod.status());
  Result<LogOptions> options =
      ReadLogOptions(*ctx.req, ctx.info->name, ctx.clock->Now());
  if (!options.ok()) return WriteError(res, options.status());
  Result<std::string> container =
      PickContainer(*pod, ctx.req->get_param_value("container"));
  if (!container.ok()) return WriteError(res, container.status());
  const bool previous = IsTrue(*ctx.req, "previous");
  if (Status st = NoLogToRead(*pod, *container, previous); !st.ok())
    return WriteError(res, st);

  std::shared_ptr<sim::Container> instance;
  if (ctx.containers != nullptr) {
    instance = ctx.containers->Find(ctx.info->ns, ctx.info->name,
                                    (*pod)["metadata"].value("uid", ""),
                                    *container, previous);
  }
  uint64_t next = 0;
  std::string text = instance ? ReadLog(*instance, *options, &next) : "";
  // A previous instance has ended: its log is read whole, never followed.
  if (previous || !IsTrue(*ctx.req, "follow")) {
    res.status = 200;
    res.set_content(text, "text/plain");
    return;
  }
  registry::WatchOptions wo;
  wo.field_selector = "metadata.name=" + ctx.info->name;
  wo.resource_version = (*pod)["metadata"].value("resourceVersion", "");
  auto watcher = ctx.registry->Watch(*ctx.resource, ctx.info->ns, wo);
  if (!watcher.ok()) return WriteError(res, watcher.status());
  auto stream = std::make_shared<FollowStream>(
      std::move(watcher).value(), ctx.streams, SocketOf(*ctx.req), instance,
      *options, next, static_cast<int64_t>(text.size()));
  if (!ctx.streams->Add(stream->watcher())) {
    stream->Release();
    return WriteError(res, Status(StatusCode::kServiceUnavailable,
                                  "the server is shutting down"));
  }
  res.status = 200;
  DisableCompression(*ctx.req);
  auto first = std::make_shared<std::string>(std::move(text));
  res.set_chunked_content_provider(
      "text/plain",
      [stream, first](size_t, httplib::DataSink& sink) {
        if (!first->empty()) {
          std::string head = std::move(*first);
          first->clear();
          if (!sink.write(head.data(), head.size())) {
            sink.done();
            return true;
          }
        }
        return stream->Pump(sink);
      },
      [stream](bool) { stream->Release(); });
}

}  // namespace kmock::server
