#include "controllers/daemonset/node_fit.h"

#include "api/kinds/daemonset.h"
#include "common/json_view.h"
#include "controllers/scheduling/filters.h"

namespace kmock::controllers::daemonset {

namespace {

json Toleration(const char* key, const char* effect) {
  return {{"key", key}, {"operator", "Exists"}, {"effect", effect}};
}

bool SameToleration(const json& a, const json& b) {
  for (const char* f : {"key", "operator", "value", "effect"}) {
    if (StringAt(a, f) != StringAt(b, f)) return false;
  }
  return true;
}

void AddOrUpdate(json* tolerations, const json& t) {
  for (json& existing : *tolerations) {
    if (SameToleration(existing, t)) {
      existing = t;
      return;
    }
  }
  tolerations->push_back(t);
}

// The first of `taints` with one of the effects that no toleration
// tolerates, or null.
const json* UntoleratedTaint(const json& taints, const json& tolerations,
                             bool no_schedule_too) {
  for (const json& taint : taints) {
    const std::string& effect = StringAt(taint, "effect");
    if (effect != "NoExecute" && (!no_schedule_too || effect != "NoSchedule")) {
      continue;
    }
    bool tolerated = false;
    for (const json& t : tolerations) {
      if (scheduling::Tolerates(t, taint)) {
        tolerated = true;
        break;
      }
    }
    if (!tolerated) return &taint;
  }
  return nullptr;
}

}  // namespace

void AddDaemonTolerations(json* pod_spec) {
  json& tolerations = (*pod_spec)["tolerations"];
  if (!tolerations.is_array()) tolerations = json::array();
  AddOrUpdate(&tolerations,
              Toleration("node.kubernetes.io/not-ready", "NoExecute"));
  AddOrUpdate(&tolerations,
              Toleration("node.kubernetes.io/unreachable", "NoExecute"));
  AddOrUpdate(&tolerations,
              Toleration("node.kubernetes.io/disk-pressure", "NoSchedule"));
  AddOrUpdate(&tolerations,
              Toleration("node.kubernetes.io/memory-pressure", "NoSchedule"));
  AddOrUpdate(&tolerations,
              Toleration("node.kubernetes.io/pid-pressure", "NoSchedule"));
  AddOrUpdate(&tolerations,
              Toleration("node.kubernetes.io/unschedulable", "NoSchedule"));
  if (pod_spec->value("hostNetwork", false)) {
    AddOrUpdate(
        &tolerations,
        Toleration("node.kubernetes.io/network-unavailable", "NoSchedule"));
  }
}

json DaemonPodForFit(const json& ds) {
  const json& tmpl = ObjectAt(ObjectAt(ds, "spec"), "template");
  json pod = {{"spec", ObjectAt(tmpl, "spec")}};
  if (!pod["spec"].is_object()) pod["spec"] = json::object();
  AddDaemonTolerations(&pod["spec"]);
  return pod;
}

NodeFit FitOnNode(const json& daemon_pod, const json& node) {
  const std::string& node_name = StringAt(ObjectAt(node, "metadata"), "name");
  const std::string& wanted = StringAt(daemon_pod["spec"], "nodeName");
  if (!wanted.empty() && wanted != node_name) return {};
  if (!scheduling::MatchesNodeAffinity(daemon_pod, node)) return {};
  const json& taints = ArrayAt(ObjectAt(node, "spec"), "taints");
  const json& tolerations = daemon_pod["spec"]["tolerations"];
  if (UntoleratedTaint(taints, tolerations, true) != nullptr) {
    return {false, UntoleratedTaint(taints, tolerations, false) == nullptr};
  }
  return {true, true};
}

NodeFit ShouldRunOnNode(const json& ds, const json& node) {
  return FitOnNode(DaemonPodForFit(ds), node);
}

json NewDaemonPod(const json& ds, const std::string& node,
                  const std::string& revision_hash, const json& owner_ref) {
  const json& meta = ObjectAt(ds, "metadata");
  const json& tmpl = ObjectAt(ObjectAt(ds, "spec"), "template");
  const json& tmeta = ObjectAt(tmpl, "metadata");
  json md = {{"generateName", StringAt(meta, "name") + "-"},
             {"namespace", StringAt(meta, "namespace")},
             {"ownerReferences", json::array({owner_ref})}};
  for (const char* f : {"labels", "annotations", "finalizers"}) {
    if (tmeta.contains(f) && !tmeta[f].is_null() && !tmeta[f].empty()) {
      md[f] = tmeta[f];
    }
  }
  json& labels = md["labels"];
  if (!labels.is_object()) labels = json::object();
  labels[kRevisionHashLabel] = revision_hash;
  const std::string& generation =
      StringAt(ObjectAt(meta, "annotations"),
               api::kinds::kDaemonSetTemplateGenerationAnnotation);
  if (!generation.empty()) labels[kTemplateGenerationLabel] = generation;
  json spec = ObjectAt(tmpl, "spec");
  if (!spec.is_object()) spec = json::object();
  AddDaemonTolerations(&spec);
  json& affinity = spec["affinity"];
  if (!affinity.is_object()) affinity = json::object();
  json& node_affinity = affinity["nodeAffinity"];
  if (!node_affinity.is_object()) node_affinity = json::object();
  node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {
      {"nodeSelectorTerms",
       json::array({{{"matchFields",
                      json::array({{{"key", "metadata.name"},
                                    {"operator", "In"},
                                    {"values", json::array({node})}}})}}})}};
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", std::move(md)},
          {"spec", std::move(spec)}};
}

std::string TargetNode(const json& pod) {
  const json& spec = ObjectAt(pod, "spec");
  const std::string& bound = StringAt(spec, "nodeName");
  if (!bound.empty()) return bound;
  const json& req =
      ObjectAt(ObjectAt(ObjectAt(spec, "affinity"), "nodeAffinity"),
               "requiredDuringSchedulingIgnoredDuringExecution");
  for (const json& term : ArrayAt(req, "nodeSelectorTerms")) {
    for (const json& r : ArrayAt(term, "matchFields")) {
      const json& values = ArrayAt(r, "values");
      if (StringAt(r, "key") == "metadata.name" &&
          StringAt(r, "operator") == "In" && values.size() == 1 &&
          values[0].is_string()) {
        return values[0].get<std::string>();
      }
    }
  }
  return "";
}

}  // namespace kmock::controllers::daemonset
