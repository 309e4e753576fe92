#include "controllers/scheduler.h"

#include <algorithm>

#include "common/json_view.h"
#include "controllers/scheduling/select_node.h"

namespace kmock::controllers {

namespace {

constexpr char kSchedulerName[] = "default-scheduler";

std::string NodeNameOf(const json& pod) {
  return ObjectAt(pod, "spec").value("nodeName", "");
}

bool IsTerminal(const json& pod) {
  std::string phase = ObjectAt(pod, "status").value("phase", "");
  return phase == "Succeeded" || phase == "Failed";
}

}  // namespace

std::vector<std::string> PodNodeIndex(const json& pod) {
  std::string n = NodeNameOf(pod);
  if (n.empty()) return {};
  return {n};
}

Scheduler::Scheduler(registry::Registry* registry, const Clock* clock, Rng* rng,
                     CoreResources res, Informer* pods, Informer* nodes,
                     SchedulerOptions options)
    : registry_(registry),
      clock_(clock),
      rng_(rng),
      res_(res),
      pods_(pods),
      nodes_(nodes),
      options_(std::move(options)),
      recorder_(
          registry, clock,
          EventSource{kSchedulerName, "",
                      std::string(kSchedulerName) + "-" + options_.host, true}),
      queue_(clock) {
  pods_->AddHandlers(EventHandlers{
      .on_add =
          [this](const json& pod) {
            if (Wants(pod)) queue_.Add(KeyOf(pod));
          },
      .on_update =
          [this](const json& old_pod, const json& pod) {
            std::string key = KeyOf(pod);
            if (Wants(pod)) queue_.Add(key);
            if (!NodeNameOf(pod).empty()) {
              std::lock_guard<std::mutex> l(mu_);
              assumed_.erase(key);
            }
            // Room freed on a node: a pod ended or left.
            if (!NodeNameOf(old_pod).empty() && IsTerminal(pod) &&
                !IsTerminal(old_pod)) {
              RequeueUnschedulable();
            }
          },
      .on_delete =
          [this](const json& pod) {
            std::string key = KeyOf(pod);
            {
              std::lock_guard<std::mutex> l(mu_);
              assumed_.erase(key);
              unschedulable_.erase(key);
              last_failure_.erase(key);
              demands_.erase(ObjectAt(pod, "metadata").value("uid", ""));
            }
            if (!NodeNameOf(pod).empty()) RequeueUnschedulable();
          },
  });
  nodes_->AddHandlers(EventHandlers{
      .on_add = [this](const json&) { RequeueUnschedulable(); },
      .on_update = [this](const json&, const json&) { RequeueUnschedulable(); },
      .on_delete = nullptr,
  });
}

Scheduler::~Scheduler() { Stop(); }

void Scheduler::Start() {
  if (workers_) return;
  workers_ = std::make_unique<WorkerPool>(
      "scheduler", &queue_, 1,
      [this](const std::string& k) { return Sync(k); });
}

void Scheduler::Stop() {
  if (workers_) workers_->Stop();
}

bool Scheduler::Wants(const json& pod) const {
  const json& spec = ObjectAt(pod, "spec");
  std::string sched = spec.value("schedulerName", "");
  if (!sched.empty() && sched != kSchedulerName) return false;
  if (!spec.value("nodeName", "").empty()) return false;
  if (ObjectAt(pod, "metadata").contains("deletionTimestamp")) {
    return false;
  }
  return !IsTerminal(pod);
}

void Scheduler::RequeueUnschedulable() {
  std::set<std::string> keys;
  {
    std::lock_guard<std::mutex> l(mu_);
    keys = unschedulable_;
  }
  for (const auto& k : keys) queue_.Add(k);
}

Status Scheduler::Sync(const std::string& key) {
  ObjectPtr pod = pods_->Get(key);
  if (!pod || !Wants(*pod)) {
    std::lock_guard<std::mutex> l(mu_);
    unschedulable_.erase(key);
    return Status::Ok();
  }
  std::map<std::string, std::pair<std::string, scheduling::Resources>> assumed;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (assumed_.count(key)) return Status::Ok();  // bound, cache behind
    assumed = assumed_;
  }
  std::vector<scheduling::NodeState> states;
  for (const auto& node : nodes_->List()) {
    scheduling::NodeState st;
    st.node = *node;
    std::string name = ObjectAt(*node, "metadata").value("name", "");
    for (const auto& p : pods_->ByIndex(kPodsByNodeIndex, name)) {
      if (IsTerminal(*p)) continue;
      Demand dmd = DemandOf(*p);
      st.used += dmd.fit;
      st.used_for_scoring += dmd.score;
    }
    for (const auto& [k, a] : assumed) {
      if (a.first != name) continue;
      ObjectPtr ap = pods_->Get(k);
      if (ap && !NodeNameOf(*ap).empty()) continue;  // counted above
      st.used += a.second;
      st.used_for_scoring += a.second;
    }
    states.push_back(std::move(st));
  }
  std::sort(states.begin(), states.end(), [](const auto& a, const auto& b) {
    return a.node["metadata"].value("name", "") <
           b.node["metadata"].value("name", "");
  });
  scheduling::Decision d = scheduling::SelectNode(*pod, states, rng_);
  const json& md = (*pod)["metadata"];
  std::string ns = md.value("namespace", "");
  std::string name = md.value("name", "");
  if (!d.scheduled) return MarkUnschedulable(*pod, d.message);

  json binding = {
      {"apiVersion", "v1"},
      {"kind", "Binding"},
      {"metadata", {{"name", name}, {"namespace", ns}}},
      {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", d.node}}}};
  if (md.contains("uid")) binding["metadata"]["uid"] = md["uid"];
  registry::WriteOptions wo;
  wo.user.name = "system:kube-scheduler";
  wo.field_manager = "kube-scheduler";
  int64_t stamp = recorder_.ReserveStamp();
  auto bound = registry_->Bind(ns, name, binding, wo);
  if (!bound.ok()) {
    // Already bound or gone: nothing left for us to do.
    if (bound.status().code() == StatusCode::kConflict ||
        bound.status().code() == StatusCode::kNotFound) {
      return Status::Ok();
    }
    return bound.status();
  }
  {
    std::lock_guard<std::mutex> l(mu_);
    assumed_[key] = {d.node, scheduling::PodRequestsForScoring(*pod)};
    unschedulable_.erase(key);
    last_failure_.erase(key);
  }
  EventRecord rec{"Normal", "Scheduled",
                  "Successfully assigned " + ns + "/" + name + " to " + d.node,
                  "", "Binding"};
  return recorder_.Record(*pod, rec, stamp);
}

Scheduler::Demand Scheduler::DemandOf(const json& pod) {
  std::string uid = ObjectAt(pod, "metadata").value("uid", "");
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = demands_.find(uid);
    if (it != demands_.end()) return it->second;
  }
  Demand d{scheduling::PodRequests(pod),
           scheduling::PodRequestsForScoring(pod)};
  if (!uid.empty()) {
    std::lock_guard<std::mutex> l(mu_);
    demands_.emplace(uid, d);
  }
  return d;
}

Status Scheduler::MarkUnschedulable(const json& pod,
                                    const std::string& message) {
  std::string key = KeyOf(pod);
  bool new_message;
  {
    std::lock_guard<std::mutex> l(mu_);
    unschedulable_.insert(key);
    new_message = last_failure_[key] != message;
    last_failure_[key] = message;
  }
  const json& md = pod["metadata"];
  std::string now = FormatRfc3339(clock_->Now());
  registry::WriteOptions wo;
  wo.user.name = "system:kube-scheduler";
  wo.field_manager = "kube-scheduler";
  std::string uid = md.value("uid", "");
  auto r = registry_->GuaranteedUpdate(
      *res_.pods, md.value("namespace", ""), md.value("name", ""), "status",
      [&](json& obj) -> Status {
        if (obj["metadata"].value("uid", "") != uid) {
          return Status(StatusCode::kConflict, "pod was replaced");
        }
        json& status = obj["status"];
        if (!status.is_object()) status = json::object();
        json& conds = status["conditions"];
        if (!conds.is_array()) conds = json::array();
        json cond = {{"type", "PodScheduled"},    {"status", "False"},
                     {"reason", "Unschedulable"}, {"message", message},
                     {"lastProbeTime", nullptr},  {"lastTransitionTime", now}};
        for (auto& c : conds) {
          if (c.value("type", "") != "PodScheduled") continue;
          if (c.value("status", "") == "False" &&
              c.contains("lastTransitionTime")) {
            cond["lastTransitionTime"] = c["lastTransitionTime"];
          }
          c = cond;
          return Status::Ok();
        }
        conds.push_back(cond);
        if (!status.contains("phase")) status["phase"] = "Pending";
        return Status::Ok();
      },
      wo);
  if (!r.ok() && r.status().code() != StatusCode::kNotFound &&
      r.status().code() != StatusCode::kConflict) {
    return r.status();
  }
  if (!new_message) return Status::Ok();
  EventRecord rec{"Warning", "FailedScheduling", message, "", "Scheduling"};
  return recorder_.Record(pod, rec);
}

}  // namespace kmock::controllers
