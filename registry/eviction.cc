#include "registry/eviction.h"

#include "common/json_view.h"
#include "registry/api_errors.h"
#include "registry/selectors.h"

namespace kmock::registry {

namespace {

// kube-apiserver gives up on a budget that keeps changing after this many
// tries, as its eviction handler does.
constexpr int kTries = 5;
// More unconfirmed evictions than this and the budget refuses more.
constexpr size_t kMaxDisruptedPods = 2000;
constexpr char kCannotEvict[] =
    "Cannot evict pod as it would violate the pod's disruption budget.";

bool PodReady(const json& pod) {
  for (const json& c : ArrayAt(ObjectAt(pod, "status"), "conditions")) {
    if (StringAt(c, "type") == "Ready") return StringAt(c, "status") == "True";
  }
  return false;
}

// Evicting it disrupts nothing more than is disrupted already.
bool CanIgnoreBudgets(const json& pod) {
  const std::string& phase = StringAt(ObjectAt(pod, "status"), "phase");
  return phase == "Succeeded" || phase == "Failed" || phase == "Pending" ||
         ObjectAt(pod, "metadata").contains("deletionTimestamp");
}

Status TooManyRequests(const std::string& cause, int retry_after) {
  StatusDetails d;
  d.causes.push_back({"DisruptionBudget", cause, ""});
  d.retry_after_seconds = retry_after;
  return Status(StatusCode::kTooManyRequests, kCannotEvict, std::move(d));
}

Status StillProcessing(const std::string& budget) {
  return TooManyRequests("The disruption budget " + budget +
                             " is still being processed by the server.",
                         10);
}

int64_t IntOf(const json& obj, const char* key) {
  const json& v = ValueAt(obj, key);
  return v.is_number_integer() ? v.get<int64_t>() : 0;
}

// The budgets of the pod's namespace whose selector picks it (an empty
// selector picks every pod, a missing one none).
Result<std::vector<json>> BudgetsOf(Registry& registry,
                                    const api::ResourceInfo& budgets,
                                    std::string_view ns, const json& pod) {
  KMOCK_ASSIGN_OR_RETURN(json list, registry.List(budgets, ns, {}));
  std::vector<json> out;
  const json& labels = ObjectAt(ObjectAt(pod, "metadata"), "labels");
  for (json& pdb : list["items"]) {
    Result<LabelSelector> selector =
        LabelSelector::FromJson(ValueAt(ObjectAt(pdb, "spec"), "selector"));
    if (selector.ok() && selector->Matches(labels)) {
      out.push_back(std::move(pdb));
    }
  }
  return out;
}

// Spends one of the budget's disruptions on the pod, or says why not.
Status CheckAndDecrement(Registry& registry, const api::ResourceInfo& budgets,
                         json pdb, const std::string& pod_name, bool dry_run) {
  const json& meta = ObjectAt(pdb, "metadata");
  const std::string& name = StringAt(meta, "name");
  json& status = pdb["status"];
  if (!status.is_object()) status = json::object();
  if (IntOf(status, "observedGeneration") < IntOf(meta, "generation")) {
    return StillProcessing(name);
  }
  const int64_t allowed = IntOf(status, "disruptionsAllowed");
  if (allowed < 0) {
    return Forbidden(budgets, name, "pdb disruptions allowed is negative");
  }
  if (ObjectAt(status, "disruptedPods").size() > kMaxDisruptedPods) {
    return Forbidden(budgets, name,
                     "DisruptedPods map too big - too many evictions not "
                     "confirmed by PDB controller");
  }
  if (allowed == 0) {
    return TooManyRequests("The disruption budget " + name + " needs " +
                               std::to_string(IntOf(status, "desiredHealthy")) +
                               " healthy pods and has " +
                               std::to_string(IntOf(status, "currentHealthy")) +
                               " currently",
                           0);
  }
  if (dry_run) return Status::Ok();
  const std::string now = FormatRfc3339(registry.clock().Now());
  status["disruptionsAllowed"] = allowed - 1;
  if (allowed == 1) {
    for (json& c : status["conditions"]) {
      if (StringAt(c, "type") != "DisruptionAllowed") continue;
      if (StringAt(c, "status") != "False") c["lastTransitionTime"] = now;
      c["status"] = "False";
      c["reason"] = "InsufficientPods";
      c["message"] = "";
    }
  }
  status["disruptedPods"][pod_name] = now;
  WriteOptions wo;
  wo.typed_in_process = true;
  wo.field_manager = "kube-apiserver";
  auto written = registry.Update(budgets, StringAt(meta, "namespace"), name,
                                 "status", std::move(pdb), wo);
  return written.ok() ? Status::Ok() : written.status();
}

// The pod gets the DisruptionTarget condition, then is deleted (the
// condition is skipped for a dry run and for a pod that has it).
Result<json> MarkAndDelete(Registry& registry, const api::ResourceInfo& pods,
                           std::string_view ns, std::string_view name,
                           const DeleteOptions& opts) {
  if (!opts.dry_run) {
    WriteOptions wo;
    wo.typed_in_process = true;
    wo.field_manager = "kube-apiserver";
    const std::string now = FormatRfc3339(registry.clock().Now());
    auto marked = registry.GuaranteedUpdate(
        pods, ns, name, "status",
        [&now](json& pod) {
          json& conditions = pod["status"]["conditions"];
          if (!conditions.is_array()) conditions = json::array();
          for (const json& c : conditions) {
            if (StringAt(c, "type") == "DisruptionTarget" &&
                StringAt(c, "status") == "True") {
              return Status::Ok();
            }
          }
          conditions.push_back({{"type", "DisruptionTarget"},
                                {"status", "True"},
                                {"lastProbeTime", nullptr},
                                {"lastTransitionTime", now},
                                {"reason", "EvictionByEvictionAPI"},
                                {"message", "Eviction API: evicting"}});
          return Status::Ok();
        },
        wo);
    if (!marked.ok()) return marked.status();
  }
  KMOCK_RETURN_IF_ERROR(registry.Delete(pods, ns, name, opts).status());
  return json{{"kind", "Status"},
              {"apiVersion", "v1"},
              {"metadata", json::object()},
              {"status", "Success"},
              {"code", 201}};
}

}  // namespace

Result<json> EvictPod(Registry& registry, std::string_view ns,
                      std::string_view pod_name, const json& eviction,
                      DeleteOptions opts) {
  const api::Catalog& catalog = registry.catalog();
  const api::ResourceInfo* pods = catalog.Find("", "v1", "pods");
  if (pods == nullptr) return Internal("pods are not served");
  if (!eviction.is_object()) return BadRequest("not a Eviction object");
  if (StringAt(ObjectAt(eviction, "metadata"), "name") != pod_name) {
    return BadRequest("name in URL does not match name in Eviction object");
  }
  const api::ResourceInfo* budgets =
      catalog.Find("policy", "v1", "poddisruptionbudgets");
  for (int attempt = 0;; ++attempt) {
    KMOCK_ASSIGN_OR_RETURN(json pod, registry.Get(*pods, ns, pod_name));
    if (CanIgnoreBudgets(pod) || budgets == nullptr) {
      return MarkAndDelete(registry, *pods, ns, pod_name, opts);
    }
    KMOCK_ASSIGN_OR_RETURN(std::vector<json> matching,
                           BudgetsOf(registry, *budgets, ns, pod));
    if (matching.size() > 1) {
      return Internal(
          "This pod has more than one PodDisruptionBudget, which the "
          "eviction subresource does not support.");
    }
    // The pod must still be the one the budget was checked for.
    opts.precondition_uid = StringAt(ObjectAt(pod, "metadata"), "uid");
    if (matching.empty()) {
      return MarkAndDelete(registry, *pods, ns, pod_name, opts);
    }
    const json& pdb = matching[0];
    const json& spec = ObjectAt(pdb, "spec");
    const json& status = ObjectAt(pdb, "status");
    if (!PodReady(pod)) {
      // An unready pod is no healthy pod lost: it goes when the policy
      // says so or the budget is met without it.
      if (StringAt(spec, "unhealthyPodEvictionPolicy") == "AlwaysAllow") {
        return MarkAndDelete(registry, *pods, ns, pod_name, opts);
      }
      if (IntOf(status, "observedGeneration") <
          IntOf(ObjectAt(pdb, "metadata"), "generation")) {
        return StillProcessing(StringAt(ObjectAt(pdb, "metadata"), "name"));
      }
      const int64_t desired = IntOf(status, "desiredHealthy");
      if (desired > 0 && IntOf(status, "currentHealthy") >= desired) {
        return MarkAndDelete(registry, *pods, ns, pod_name, opts);
      }
    }
    Status spent = CheckAndDecrement(registry, *budgets, pdb,
                                     std::string(pod_name), opts.dry_run);
    if (spent.ok()) return MarkAndDelete(registry, *pods, ns, pod_name, opts);
    if (spent.code() != StatusCode::kConflict || attempt + 1 >= kTries) {
      return spent;
    }
  }
}

}  // namespace kmock::registry
