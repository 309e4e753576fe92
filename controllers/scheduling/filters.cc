#include "controllers/scheduling/filters.h"

#include <cstdlib>

#include "common/json_view.h"

namespace kmock::controllers::scheduling {

namespace {

constexpr char kNotReadyTaint[] = "node.kubernetes.io/not-ready";
constexpr char kUnschedulableTaint[] = "node.kubernetes.io/unschedulable";

std::string Str(const json& obj, const char* field) {
  auto it = obj.find(field);
  return (it != obj.end() && it->is_string()) ? it->get<std::string>() : "";
}

bool ParseInt(const std::string& s, long long* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  *out = std::strtoll(s.c_str(), &end, 10);
  return end != nullptr && *end == '\0';
}

bool HardEffect(const std::string& effect) {
  return effect == "NoSchedule" || effect == "NoExecute";
}

bool ToleratesAny(const json& tolerations, const json& taint) {
  if (!tolerations.is_array()) return false;
  for (const auto& t : tolerations) {
    if (Tolerates(t, taint)) return true;
  }
  return false;
}

bool MatchesTerm(const json& term, const json& node) {
  const json& exprs = ArrayAt(term, "matchExpressions");
  const json& fields = ArrayAt(term, "matchFields");
  if (exprs.empty() && fields.empty()) return false;
  const json& labels = ObjectAt(ObjectAt(node, "metadata"), "labels");
  for (const auto& r : exprs) {
    if (!MatchesRequirement(r, labels)) return false;
  }
  json field_map = json::object();
  field_map["metadata.name"] = ObjectAt(node, "metadata").value("name", "");
  for (const auto& r : fields) {
    if (!MatchesRequirement(r, field_map)) return false;
  }
  return true;
}

}  // namespace

bool Tolerates(const json& toleration, const json& taint) {
  std::string t_effect = Str(toleration, "effect");
  if (!t_effect.empty() && t_effect != Str(taint, "effect")) return false;
  std::string t_key = Str(toleration, "key");
  std::string op = Str(toleration, "operator");
  if (op.empty()) op = "Equal";
  if (t_key.empty()) return op == "Exists";
  if (t_key != Str(taint, "key")) return false;
  if (op == "Exists") return true;
  if (op == "Equal") return Str(toleration, "value") == Str(taint, "value");
  return false;
}

bool NodeIsReady(const json& node) {
  const json& conds = ArrayAt(ObjectAt(node, "status"), "conditions");
  for (const auto& c : conds) {
    if (Str(c, "type") == "Ready") return Str(c, "status") == "True";
  }
  return false;
}

std::vector<json> EffectiveTaints(const json& node) {
  std::vector<json> out;
  const json& taints = ArrayAt(ObjectAt(node, "spec"), "taints");
  bool has_not_ready = false;
  for (const auto& t : taints) {
    out.push_back(t);
    if (Str(t, "key") == kNotReadyTaint) has_not_ready = true;
  }
  if (!NodeIsReady(node) && !has_not_ready) {
    out.push_back({{"key", kNotReadyTaint}, {"effect", "NoSchedule"}});
  }
  return out;
}

bool MatchesRequirement(const json& requirement, const json& labels) {
  std::string key = Str(requirement, "key");
  std::string op = Str(requirement, "operator");
  const json& values = ArrayAt(requirement, "values");
  bool has = labels.is_object() && labels.contains(key);
  std::string value =
      has && labels[key].is_string() ? labels[key].get<std::string>() : "";
  auto in_values = [&] {
    for (const auto& v : values) {
      if (v.is_string() && v.get<std::string>() == value) return true;
    }
    return false;
  };
  if (op == "In") return has && in_values();
  if (op == "NotIn") return !has || !in_values();
  if (op == "Exists") return has;
  if (op == "DoesNotExist") return !has;
  if (op == "Gt" || op == "Lt") {
    if (!has || values.size() != 1 || !values[0].is_string()) return false;
    long long label_n, want_n;
    if (!ParseInt(value, &label_n) ||
        !ParseInt(values[0].get<std::string>(), &want_n)) {
      return false;
    }
    return op == "Gt" ? label_n > want_n : label_n < want_n;
  }
  return false;
}

bool MatchesNodeAffinity(const json& pod, const json& node) {
  const json& spec = ObjectAt(pod, "spec");
  const json& labels = ObjectAt(ObjectAt(node, "metadata"), "labels");
  const json& selector = ObjectAt(spec, "nodeSelector");
  if (selector.is_object()) {
    for (const auto& [k, v] : selector.items()) {
      if (!labels.contains(k) || labels[k] != v) return false;
    }
  }
  const json& affinity = ObjectAt(spec, "affinity");
  const json& na = ObjectAt(affinity, "nodeAffinity");
  auto req = na.find("requiredDuringSchedulingIgnoredDuringExecution");
  if (req == na.end() || !req->is_object()) return true;
  const json& terms = ArrayAt(*req, "nodeSelectorTerms");
  for (const auto& term : terms) {
    if (MatchesTerm(term, node)) return true;
  }
  return false;
}

std::optional<FilterFailure> CheckUnschedulable(const json& pod,
                                                const json& node) {
  return CheckUnschedulable(
      ArrayAt(ObjectAt(pod, "spec"), "tolerations"),
      ObjectAt(node, "spec").value("unschedulable", false));
}

std::optional<FilterFailure> CheckUnschedulable(const json& tolerations,
                                                bool unschedulable) {
  if (!unschedulable) return std::nullopt;
  json taint = {{"key", kUnschedulableTaint}, {"effect", "NoSchedule"}};
  if (ToleratesAny(tolerations, taint)) return std::nullopt;
  return FilterFailure{{"node(s) were unschedulable"}, false};
}

std::optional<FilterFailure> CheckTaints(const json& pod, const json& node) {
  return CheckTaints(ArrayAt(ObjectAt(pod, "spec"), "tolerations"),
                     EffectiveTaints(node));
}

std::optional<FilterFailure> CheckTaints(const json& tolerations,
                                         const std::vector<json>& taints) {
  for (const auto& taint : taints) {
    if (!HardEffect(Str(taint, "effect"))) continue;
    if (ToleratesAny(tolerations, taint)) continue;
    return FilterFailure{{"node(s) had untolerated taint {" +
                          Str(taint, "key") + ": " + Str(taint, "value") + "}"},
                         false};
  }
  return std::nullopt;
}

std::optional<FilterFailure> CheckAffinity(const json& pod, const json& node) {
  if (MatchesNodeAffinity(pod, node)) return std::nullopt;
  return FilterFailure{{"node(s) didn't match Pod's node affinity/selector"},
                       false};
}

std::optional<FilterFailure> CheckResources(const Resources& request,
                                            const Resources& allocatable,
                                            const Resources& used) {
  FilterFailure f;
  f.resolvable = true;
  if (used.pods + 1 > allocatable.pods) f.reasons.push_back("Too many pods");
  if (request.milli_cpu > 0 &&
      request.milli_cpu > allocatable.milli_cpu - used.milli_cpu) {
    f.reasons.push_back("Insufficient cpu");
  }
  if (request.memory > 0 && request.memory > allocatable.memory - used.memory) {
    f.reasons.push_back("Insufficient memory");
  }
  if (f.reasons.empty()) return std::nullopt;
  return f;
}

std::optional<FilterFailure> RunFilters(const PodInfo& pod,
                                        const NodeInfo& node,
                                        const Resources& used) {
  if (auto f = CheckUnschedulable(*pod.tolerations, node.unschedulable)) {
    return f;
  }
  if (auto f = CheckTaints(*pod.tolerations, node.taints)) return f;
  if (pod.selects_nodes) {
    if (auto f = CheckAffinity(*pod.pod, *node.node)) return f;
  }
  return CheckResources(pod.request, node.allocatable, used);
}

}  // namespace kmock::controllers::scheduling
