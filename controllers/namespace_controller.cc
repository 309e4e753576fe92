#include "controllers/namespace_controller.h"

#include <algorithm>
#include <cstdio>

#include "common/json_view.h"
#include "controllers/controller_write.h"

namespace kmock::controllers {

namespace {

const char kNamespaceWorkers[] = "namespace controller";
// The queue key of the periodic resync (namespace names cannot hold '#').
constexpr char kResyncKey[] = "#resync";

const json& MetaOf(const json& obj) {
  static const json kEmpty = json::object();
  auto it = obj.find("metadata");
  return (it != obj.end() && it->is_object()) ? *it : kEmpty;
}

std::string UidOf(const json& obj) { return MetaOf(obj).value("uid", ""); }

bool HasSpecFinalizer(const json& ns, const std::string& f) {
  auto spec = ns.find("spec");
  if (spec == ns.end() || !spec->is_object()) return false;
  auto fins = spec->find("finalizers");
  if (fins == spec->end() || !fins->is_array()) return false;
  return std::find(fins->begin(), fins->end(), json(f)) != fins->end();
}

registry::WriteOptions Write() {
  return ControllerWrite("namespace-controller");
}

// "pods." for core resources, "deployments.apps" otherwise: how a real
// server names a resource in the namespace conditions.
std::string ConditionResourceName(const api::ResourceInfo& res) {
  return res.plural + "." + res.group;
}

json Condition(const std::string& type, bool status, const std::string& reason,
               const std::string& message, const json& old_conditions,
               const std::string& now) {
  std::string st = status ? "True" : "False";
  std::string since = now;
  if (old_conditions.is_array()) {
    for (const json& c : old_conditions) {
      if (c.is_object() && c.value("type", "") == type &&
          c.value("status", "") == st) {
        since = c.value("lastTransitionTime", now);
      }
    }
  }
  return {{"type", type},
          {"status", st},
          {"lastTransitionTime", since},
          {"reason", reason},
          {"message", message}};
}

template <typename Fn>
std::string JoinSorted(const std::map<std::string, int64_t>& counts, Fn fmt) {
  std::vector<std::string> parts;
  for (const auto& [what, n] : counts) parts.push_back(fmt(what, n));
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += ", ";
    out += p;
  }
  return out;
}

}  // namespace

json NamespaceDeletionConditions(const NamespaceContentTally& tally,
                                 const json& old, const std::string& now) {
  json out = json::array();
  out.push_back(Condition("NamespaceDeletionDiscoveryFailure", false,
                          "ResourcesDiscovered",
                          "All resources successfully discovered", old, now));
  out.push_back(Condition("NamespaceDeletionGroupVersionParsingFailure", false,
                          "ParsedGroupVersions",
                          "All legacy kube types successfully parsed", old,
                          now));
  if (tally.errors.empty()) {
    out.push_back(Condition(
        "NamespaceDeletionContentFailure", false, "ContentDeleted",
        "All content successfully deleted, may be waiting on finalization", old,
        now));
  } else {
    std::string msg = "Failed to delete all resource types, " +
                      std::to_string(tally.errors.size()) + " remaining: ";
    for (size_t i = 0; i < tally.errors.size(); ++i) {
      if (i > 0) msg += ", ";
      msg += tally.errors[i];
    }
    out.push_back(Condition("NamespaceDeletionContentFailure", true,
                            "ContentDeletionFailed", msg, old, now));
  }
  if (tally.remaining.empty()) {
    out.push_back(Condition("NamespaceContentRemaining", false,
                            "ContentRemoved",
                            "All content successfully removed", old, now));
  } else {
    out.push_back(
        Condition("NamespaceContentRemaining", true, "SomeResourcesRemain",
                  "Some resources are remaining: " +
                      JoinSorted(tally.remaining,
                                 [](const std::string& r, int64_t n) {
                                   return r + " has " + std::to_string(n) +
                                          " resource instances";
                                 }),
                  old, now));
  }
  if (tally.finalizers.empty()) {
    out.push_back(Condition(
        "NamespaceFinalizersRemaining", false, "ContentHasNoFinalizers",
        "All content-preserving finalizers finished", old, now));
  } else {
    out.push_back(
        Condition("NamespaceFinalizersRemaining", true, "SomeFinalizersRemain",
                  "Some content in the namespace has finalizers remaining: " +
                      JoinSorted(tally.finalizers,
                                 [](const std::string& f, int64_t n) {
                                   return f + " in " + std::to_string(n) +
                                          " resource instances";
                                 }),
                  old, now));
  }
  return out;
}

NamespaceController::NamespaceController(registry::Registry* registry,
                                         const Clock* clock, Rng* /*rng*/,
                                         NamespaceControllerOptions options)
    : registry_(registry),
      clock_(clock),
      options_(std::move(options)),
      namespaces_(registry->catalog().Find("", "v1", "namespaces")),
      queue_(clock) {
  if (namespaces_ == nullptr) return;
  informer_ = std::make_unique<Informer>(registry_, namespaces_);
  informer_->AddHandlers(EventHandlers{
      .on_add = [this](const json& ns) { Enqueue(ns); },
      .on_update = [this](const json&, const json& ns) { Enqueue(ns); },
      .on_delete = nullptr,
  });
}

NamespaceController::~NamespaceController() { Stop(); }

void NamespaceController::Start() {
  if (started_ || informer_ == nullptr) return;
  started_ = true;
  informer_->Start();
  queue_.AddAfter(kResyncKey, options_.resync);
  workers_ = std::make_unique<WorkerPool>(
      kNamespaceWorkers, &queue_, options_.workers,
      [this](const std::string& key) { return Sync(key); });
}

void NamespaceController::Stop() {
  if (!started_ || stopped_) return;
  stopped_ = true;
  if (workers_) workers_->Stop();
  if (informer_) informer_->Stop();
}

void NamespaceController::Log(const std::string& msg) const {
  if (options_.verbose) {
    std::fprintf(stderr, "namespace controller: %s\n", msg.c_str());
  }
}

bool NamespaceController::Terminating(const json& ns) const {
  return MetaOf(ns).contains("deletionTimestamp");
}

void NamespaceController::Enqueue(const json& ns) {
  // Like kube-controller-manager, not at once: the grace period lets every
  // writer see the namespace Terminating before its content is listed.
  if (Terminating(ns)) queue_.AddAfter(KeyOf(ns), options_.deletion_grace);
}

Status NamespaceController::Sync(const std::string& name) {
  if (name == kResyncKey) {
    for (const ObjectPtr& ns : informer_->List()) Enqueue(*ns);
    queue_.AddAfter(kResyncKey, options_.resync);
    return Status::Ok();
  }
  if (namespaces_ == nullptr) return Status::Ok();
  auto ns = registry_->Get(*namespaces_, "", name);
  if (!ns.ok()) {
    return ns.status().code() == StatusCode::kNotFound ? Status::Ok()
                                                       : ns.status();
  }
  if (!Terminating(*ns)) return Status::Ok();
  // Finalized already: what is left is for the garbage collector (the
  // namespace's own metadata.finalizers).
  if (!HasSpecFinalizer(*ns, kNamespaceFinalizer)) return Status::Ok();

  NamespaceContentTally tally = DeleteContent(name);
  KMOCK_RETURN_IF_ERROR(UpdateConditions(name, tally));
  if (!tally.remaining.empty() || !tally.errors.empty()) {
    queue_.AddAfter(name, options_.recheck);
    return Status::Ok();
  }
  return Finalize(name, UidOf(*ns));
}

NamespaceContentTally NamespaceController::DeleteContent(
    const std::string& ns) {
  NamespaceContentTally tally;
  registry::DeleteOptions del;
  del.propagation_policy = "Background";
  del.user = Write().user;
  for (const api::ResourceInfo* res : registry_->catalog().resources()) {
    if (!res->namespaced || !res->HasVerb("list") || !res->HasVerb("delete") ||
        res->from_storage) {
      continue;
    }
    const std::string what = ConditionResourceName(*res);
    if (res->HasVerb("deletecollection")) {
      auto r =
          registry_->DeleteCollection(*res, ns, registry::ListOptions{}, del);
      if (!r.ok()) {
        tally.errors.push_back(what + ": " + r.status().message());
      }
    }
    auto list = registry_->List(*res, ns, registry::ListOptions{});
    if (!list.ok()) {
      tally.errors.push_back(what + ": " + list.status().message());
      continue;
    }
    int64_t left = 0;
    for (const json& item : (*list)["items"]) {
      const json& md = MetaOf(item);
      if (!md.contains("deletionTimestamp")) {
        // Not deleted by a collection delete (or none is served): one by
        // one.
        auto d = registry_->Delete(*res, ns, md.value("name", ""), del);
        if (d.ok() && d->deleted) continue;
        if (!d.ok() && d.status().code() == StatusCode::kNotFound) continue;
        if (!d.ok()) {
          tally.errors.push_back(what + ": " + d.status().message());
        }
      }
      ++left;
      auto fins = md.find("finalizers");
      if (fins != md.end() && fins->is_array()) {
        for (const json& f : *fins) {
          if (f.is_string()) ++tally.finalizers[f.get<std::string>()];
        }
      }
    }
    if (left > 0) tally.remaining[what] = left;
  }
  return tally;
}

Status NamespaceController::UpdateConditions(
    const std::string& name, const NamespaceContentTally& tally) {
  const std::string now = FormatRfc3339(clock_->Now());
  auto r = registry_->GuaranteedUpdate(
      *namespaces_, "", name, "status",
      [&](json& ns) -> Status {
        json& status = ns["status"];
        if (!status.is_object()) status = json::object();
        status["phase"] = "Terminating";
        json old = ArrayAt(status, "conditions");
        // Conditions other than the deletion ones are kept, in front.
        json conditions = json::array();
        json fresh = NamespaceDeletionConditions(tally, old, now);
        for (const json& c : old) {
          bool ours = false;
          for (const json& f : fresh) {
            if (c.is_object() && c.value("type", "") == f["type"]) ours = true;
          }
          if (!ours) conditions.push_back(c);
        }
        for (json& f : fresh) conditions.push_back(std::move(f));
        status["conditions"] = std::move(conditions);
        return Status::Ok();
      },
      Write());
  if (!r.ok() && r.status().code() != StatusCode::kNotFound) return r.status();
  return Status::Ok();
}

Status NamespaceController::Finalize(const std::string& name,
                                     const std::string& uid) {
  auto r = registry_->GuaranteedUpdate(
      *namespaces_, "", name, "finalize",
      [&](json& ns) -> Status {
        if (UidOf(ns) != uid) {
          return Status(StatusCode::kNotFound, "namespace was replaced");
        }
        auto spec = ns.find("spec");
        if (spec == ns.end() || !spec->is_object()) return Status::Ok();
        auto it = spec->find("finalizers");
        if (it == spec->end() || !it->is_array()) return Status::Ok();
        json& fins = *it;
        fins.erase(
            std::remove(fins.begin(), fins.end(), json(kNamespaceFinalizer)),
            fins.end());
        return Status::Ok();
      },
      Write());
  if (!r.ok() && r.status().code() != StatusCode::kNotFound) return r.status();
  Log("finalized namespace " + name);
  return Status::Ok();
}

}  // namespace kmock::controllers
