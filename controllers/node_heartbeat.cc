#include "controllers/node_heartbeat.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "common/run_concurrently.h"
#include "common/thread_name.h"

namespace kmock::controllers {

using nlohmann::json;

namespace {

constexpr char kLeaseNamespace[] = "kube-node-lease";

registry::WriteOptions KubeletWrite(const std::string& node) {
  registry::WriteOptions wo;
  wo.typed_in_process = true;
  wo.user.name = "system:node:" + node;
  wo.user.groups = {"system:nodes", "system:authenticated"};
  wo.field_manager = "kubelet";
  return wo;
}

// A kubelet retries a failed lease renewal or status update after 200 ms,
// doubling up to 7 s, not at its next poll: a store that refuses writes
// gets a few retries per node, not a stream of them.
TimePoint::duration RetryDelay(int failures) {
  auto delay = std::chrono::milliseconds(200 << std::min(failures - 1, 6));
  return std::min<TimePoint::duration>(delay, std::chrono::seconds(7));
}

}  // namespace

NodeHeartbeats::NodeHeartbeats(registry::Registry* registry, const Clock* clock,
                               CoreResources res,
                               std::vector<std::string> nodes,
                               HeartbeatOptions options)
    : registry_(registry),
      clock_(clock),
      res_(res),
      nodes_(std::move(nodes)),
      options_(options) {}

NodeHeartbeats::~NodeHeartbeats() { Stop(); }

void NodeHeartbeats::Start() {
  if (thread_.joinable()) return;
  stop_ = false;
  thread_ = std::thread([this] {
    NameThisThread("node-heartbeat");
    int failures = 0;
    while (!stop_) {
      Status st = Beat();
      if (!st.ok() && failures++ < 3) {
        std::fprintf(stderr, "node heartbeat: %s\n", st.ToString().c_str());
      }
      std::this_thread::sleep_for(options_.poll);
    }
  });
}

void NodeHeartbeats::Stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

Status NodeHeartbeats::Beat() {
  TimePoint now = clock_->Now();
  const bool first_beat = next_lease_.size() != nodes_.size();
  next_lease_.resize(nodes_.size());
  next_status_.resize(nodes_.size());
  lease_failures_.resize(nodes_.size());
  status_failures_.resize(nodes_.size());
  const size_t n = nodes_.size();
  const auto period =
      std::chrono::duration_cast<TimePoint::duration>(options_.lease_renew);

  // What is due now: lease renewals, then status reports (node indices).
  std::vector<size_t> leases, statuses;
  for (size_t i = 0; i < n; ++i) {
    if (now >= next_lease_[i]) leases.push_back(i);
    if (next_status_[i] == TimePoint{}) {
      // Bootstrap has just written the status.
      next_status_[i] = now + options_.status_report;
    } else if (now >= next_status_[i]) {
      statuses.push_back(i);
    }
  }
  // Independent kubelets write at the same time, and the store commits
  // concurrent writes together: written one after another, 5,000 nodes'
  // renewals were one fsync each (most of an idle server's CPU).
  std::vector<Status> results(leases.size() + statuses.size());
  RunConcurrently(results.size(), options_.concurrent_writes, [&](size_t k) {
    results[k] = k < leases.size()
                     ? RenewLease(nodes_[leases[k]])
                     : ReportStatus(nodes_[statuses[k - leases.size()]]);
  });

  Status first = Status::Ok();
  for (size_t k = 0; k < leases.size(); ++k) {
    const size_t i = leases[k];
    if (!results[k].ok()) {
      if (first.ok()) first = results[k];
      next_lease_[i] = now + RetryDelay(++lease_failures_[i]);
      continue;
    }
    lease_failures_[i] = 0;
    // Real kubelets start at different moments, so their renewals are
    // spread over the period; all at once would be a burst of one write
    // per node every 10 s. After the first beat, node i renews (i+1)/n of
    // a period later, then on that phase for good: a late beat skips the
    // times it missed but keeps the phase (taking a period from the beat
    // itself would bunch the nodes a slow beat renewed together, and they
    // would stay bunched).
    TimePoint next = first_beat ? now + period * static_cast<int64_t>(i + 1) /
                                            static_cast<int64_t>(n)
                                : next_lease_[i] + period;
    if (next <= now) next += ((now - next) / period + 1) * period;
    next_lease_[i] = next;
  }
  for (size_t k = 0; k < statuses.size(); ++k) {
    const Status& st = results[leases.size() + k];
    const size_t i = statuses[k];
    if (st.ok()) {
      status_failures_[i] = 0;
      next_status_[i] = now + options_.status_report;
    } else {
      if (first.ok()) first = st;
      next_status_[i] = now + RetryDelay(++status_failures_[i]);
    }
  }
  return first;
}

Status NodeHeartbeats::RenewLease(const std::string& node) {
  std::string renew = FormatRfc3339Micro(clock_->Now());
  auto updated = registry_->GuaranteedUpdateShared(
      *res_.leases, kLeaseNamespace, node, "",
      [&](json& lease) -> Status {
        lease["spec"]["holderIdentity"] = node;
        lease["spec"]["leaseDurationSeconds"] = options_.lease_duration.count();
        lease["spec"]["renewTime"] = renew;
        return Status::Ok();
      },
      KubeletWrite(node));
  if (updated.ok()) return Status::Ok();
  if (updated.status().code() != StatusCode::kNotFound) return updated.status();
  auto n = registry_->Get(*res_.nodes, "", node);
  if (!n.ok()) return n.status();
  json lease = {
      {"apiVersion", "coordination.k8s.io/v1"},
      {"kind", "Lease"},
      {"metadata",
       {{"name", node},
        {"namespace", kLeaseNamespace},
        {"ownerReferences",
         json::array({{{"apiVersion", "v1"},
                       {"kind", "Node"},
                       {"name", node},
                       {"uid", (*n)["metadata"].value("uid", "")}}})}}},
      {"spec",
       {{"holderIdentity", node},
        {"leaseDurationSeconds", options_.lease_duration.count()},
        {"renewTime", renew}}}};
  auto created = registry_->Create(*res_.leases, kLeaseNamespace, lease,
                                   KubeletWrite(node));
  if (!created.ok() && created.status().code() != StatusCode::kAlreadyExists) {
    return created.status();
  }
  return Status::Ok();
}

Status NodeHeartbeats::ReportStatus(const std::string& node) {
  std::string now = FormatRfc3339(clock_->Now());
  auto r = registry_->GuaranteedUpdateShared(
      *res_.nodes, "", node, "status",
      [&](json& obj) -> Status {
        json& conds = obj["status"]["conditions"];
        if (!conds.is_array()) return Status::Ok();
        for (auto& c : conds) c["lastHeartbeatTime"] = now;
        return Status::Ok();
      },
      KubeletWrite(node));
  return r.ok() ? Status::Ok() : r.status();
}

}  // namespace kmock::controllers
