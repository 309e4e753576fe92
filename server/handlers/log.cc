// GET pods/<name>/log: a container's log. The fake containers print
// nothing, so a log is empty; what matters is that kubectl logs behaves as
// against a real cluster: the container is chosen the same way, the same
// errors come back (no such container, several to choose from, not started
// yet, no node), and with follow=true the stream stays open until the
// container stops (the pod is deleted), the client leaves or the server stops.
#include <chrono>
#include <memory>

#include "common/json_view.h"
#include "server/errors.h"
#include "server/handlers/context.h"
#include "server/handlers/stream_util.h"
#include "server/response.h"

namespace kmock::server {
namespace {

using nlohmann::json;

std::vector<std::string> ContainerNames(const json& pod, const char* list) {
  std::vector<std::string> names;
  auto spec = pod.find("spec");
  if (spec == pod.end() || !spec->is_object()) return names;
  auto it = spec->find(list);
  if (it == spec->end() || !it->is_array()) return names;
  for (const auto& c : *it) names.push_back(c.value("name", ""));
  return names;
}

std::string Bracketed(const std::vector<std::string>& names) {
  std::string out = "[";
  for (size_t i = 0; i < names.size(); ++i) out += (i ? " " : "") + names[i];
  return out + "]";
}

// The container to read, as kube-apiserver picks it, or the 400 it answers.
Result<std::string> PickContainer(const json& pod, const std::string& asked) {
  const std::string name = pod["metadata"].value("name", "");
  std::vector<std::string> main = ContainerNames(pod, "containers");
  std::vector<std::string> init = ContainerNames(pod, "initContainers");
  std::vector<std::string> eph = ContainerNames(pod, "ephemeralContainers");
  std::string container = asked;
  if (container.empty()) {
    std::string annotated;
    if (auto a = pod["metadata"].find("annotations");
        a != pod["metadata"].end() && a->is_object())
      annotated = a->value("kubectl.kubernetes.io/default-container", "");
    if (!annotated.empty()) {
      container = annotated;
    } else if (main.size() == 1) {
      container = main[0];
    } else {
      std::string msg = "a container name must be specified for pod " + name +
                        ", choose one of: " + Bracketed(main);
      if (!init.empty())
        msg += " or one of the init containers: " + Bracketed(init);
      if (!eph.empty())
        msg += " or one of the ephemeral containers: " + Bracketed(eph);
      return BadRequestError(msg);
    }
  }
  for (const auto* list : {&main, &init, &eph})
    for (const auto& c : *list)
      if (c == container) return container;
  return BadRequestError("container " + container + " is not valid for pod " +
                         name);
}

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
// read: no node yet; for previous=true (checked first by the kubelet) no
// terminated earlier instance; else a container that has not started.
Status NoLogToRead(const json& pod, const std::string& container,
                   bool previous) {
  const std::string name = pod["metadata"].value("name", "");
  if (pod["spec"].value("nodeName", "").empty())
    return BadRequestError("pod " + name + " does not have a host assigned");
  const json* cs = ContainerStatusOf(pod, container);
  if (previous) {
    const json* last = cs == nullptr ? nullptr : &ObjectAt(*cs, "lastState");
    if (last == nullptr ||
        StringAt(ObjectAt(*last, "terminated"), "containerID").empty())
      return BadRequestError("previous terminated container \"" + container +
                             "\" in pod \"" + name + "\" not found");
    return Status::Ok();
  }
  auto status = pod.find("status");
  if (status == pod.end() || !status->is_object()) return Status::Ok();
  std::string waiting = "ContainerCreating";
  if (cs != nullptr) {
    auto state = cs->find("state");
    if (state != cs->end() && state->is_object()) {
      auto w = state->find("waiting");
      if (w == state->end() || !w->is_object()) return Status::Ok();
      waiting = w->value("reason", waiting);
    }
  }
  return BadRequestError("container \"" + container + "\" in pod \"" + name +
                         "\" is waiting to start: " + waiting);
}

bool IsTrue(const httplib::Request& req, const char* param) {
  std::string v = req.get_param_value(param);
  return v == "true" || v == "1";
}

// A follow stream: open until the pod is deleted or goes away.
class FollowStream {
 public:
  FollowStream(std::unique_ptr<registry::ObjectWatcher> watcher,
               StreamTracker* tracker, int fd)
      : watcher_(std::move(watcher)), tracker_(tracker), fd_(fd) {}

  registry::ObjectWatcher* watcher() { return watcher_.get(); }

  bool Pump(httplib::DataSink& sink) {
    if (tracker_->stopped() || ClientGone(fd_) || !sink.is_writable()) {
      sink.done();
      return true;
    }
    std::vector<registry::WatchEvent> events;
    Status st = watcher_->Next(std::chrono::milliseconds(250), &events);
    for (const auto& e : events) {
      bool stopping = e.type == "DELETED" ||
                      (e.object().contains("metadata") &&
                       e.object()["metadata"].contains("deletionTimestamp"));
      if (stopping) {
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
  bool released_ = false;
};

}  // namespace

void HandleLog(const RequestContext& ctx, httplib::Response& res) {
  Result<json> pod =
      ctx.registry->Get(*ctx.resource, ctx.info->ns, ctx.info->name);
  if (!pod.ok()) return WriteError(res, pod.status());
  Result<std::string> container =
      PickContainer(*pod, ctx.req->get_param_value("container"));
  if (!container.ok()) return WriteError(res, container.status());
  const bool previous = IsTrue(*ctx.req, "previous");
  if (Status st = NoLogToRead(*pod, *container, previous); !st.ok())
    return WriteError(res, st);

  // A previous instance has ended: its log is read whole, never followed.
  if (previous || !IsTrue(*ctx.req, "follow")) {
    res.status = 200;
    res.set_content("", "text/plain");
    return;
  }
  registry::WatchOptions wo;
  wo.field_selector = "metadata.name=" + ctx.info->name;
  wo.resource_version = (*pod)["metadata"].value("resourceVersion", "");
  auto watcher = ctx.registry->Watch(*ctx.resource, ctx.info->ns, wo);
  if (!watcher.ok()) return WriteError(res, watcher.status());
  auto stream = std::make_shared<FollowStream>(std::move(watcher).value(),
                                               ctx.streams, SocketOf(*ctx.req));
  if (!ctx.streams->Add(stream->watcher())) {
    stream->Release();
    return WriteError(res, Status(StatusCode::kServiceUnavailable,
                                  "the server is shutting down"));
  }
  res.status = 200;
  // The containers print nothing, so compression (text/plain is compressed
  // for clients that accept gzip) holds nothing back.
  res.set_chunked_content_provider(
      "text/plain",
      [stream](size_t, httplib::DataSink& sink) { return stream->Pump(sink); },
      [stream](bool) { stream->Release(); });
}

}  // namespace kmock::server
