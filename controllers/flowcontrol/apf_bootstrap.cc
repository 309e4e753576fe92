#include "controllers/flowcontrol/apf_bootstrap.h"

#include "common/json_view.h"

namespace kmock::controllers {

using nlohmann::json;

namespace {

constexpr char kApiVersion[] = "flowcontrol.apiserver.k8s.io/v1";

// One priority level. The level named "exempt" is of type Exempt (its
// shares and lendable percent only); a Limited one without queues rejects.
struct Level {
  const char* name;
  bool mandatory;
  int shares;
  int lendable_percent;
  int queues;
  int hand_size;
  int queue_length_limit;
};

// name, mandatory, nominalConcurrencyShares, lendablePercent, queues,
// handSize, queueLengthLimit.
constexpr Level kLevels[] = {
    {"catch-all", true, 5, 0, 0, 0, 0},
    {"exempt", true, 0, 0, 0, 0, 0},
    {"system", false, 30, 33, 64, 6, 50},
    {"node-high", false, 40, 25, 64, 6, 50},
    {"leader-election", false, 10, 0, 16, 4, 50},
    {"workload-high", false, 40, 50, 128, 6, 50},
    {"workload-low", false, 100, 90, 128, 6, 50},
    {"global-default", false, 20, 50, 128, 6, 50},
};

using Strings = std::vector<std::string>;

struct ResourceRule {
  Strings verbs, groups, resources, namespaces;
  bool cluster_scope;
};

struct NonResourceRule {
  Strings verbs, urls;
};

// One flow schema with its single rule. Subjects are "group:<name>",
// "user:<name>" or "sa:<name>" (a service account of kube-system).
struct Schema {
  const char* name;
  bool mandatory;
  const char* level;
  int precedence;
  const char* distinguisher;  // "" for none
  Strings subjects;
  std::vector<ResourceRule> resource_rules;
  std::vector<NonResourceRule> non_resource_rules;
};

const std::vector<Schema>& Schemas() {
  const ResourceRule any = {{"*"}, {"*"}, {"*"}, {"*"}, true};
  const NonResourceRule any_url = {{"*"}, {"*"}};
  const Strings everyone = {"group:system:unauthenticated",
                            "group:system:authenticated"};
  const Strings get_create_update = {"get", "create", "update"};
  const ResourceRule leases = {
      get_create_update, {"coordination.k8s.io"}, {"leases"}, {"*"}, false};
  static const auto* schemas = new std::vector<Schema>{
      {"exempt",
       true,
       "exempt",
       1,
       "",
       {"group:system:masters"},
       {any},
       {any_url}},
      {"catch-all",
       true,
       "catch-all",
       10000,
       "ByUser",
       everyone,
       {any},
       {any_url}},
      {"system-nodes",
       false,
       "system",
       500,
       "ByUser",
       {"group:system:nodes"},
       {any},
       {any_url}},
      {"system-node-high",
       false,
       "node-high",
       400,
       "ByUser",
       {"group:system:nodes"},
       {{{"*"}, {""}, {"nodes", "nodes/status"}, {"*"}, true},
        {{"*"}, {"coordination.k8s.io"}, {"leases"}, {"*"}, false}},
       {}},
      {"probes",
       false,
       "exempt",
       2,
       "",
       everyone,
       {},
       {{{"get"}, {"/healthz", "/readyz", "/livez"}}}},
      {"system-leader-election",
       false,
       "leader-election",
       100,
       "ByUser",
       {"user:system:kube-controller-manager", "user:system:kube-scheduler",
        "sa:*"},
       {leases},
       {}},
      {"workload-leader-election",
       false,
       "leader-election",
       200,
       "ByUser",
       {"sa:*"},
       {{get_create_update, {""}, {"endpoints", "configmaps"}, {"*"}, false},
        leases},
       {}},
      {"endpoint-controller",
       false,
       "workload-high",
       150,
       "ByUser",
       {"user:system:kube-controller-manager", "sa:endpoint-controller",
        "sa:endpointslicemirroring-controller"},
       {{get_create_update, {""}, {"endpoints"}, {"*"}, false}},
       {}},
      {"kube-controller-manager",
       false,
       "workload-high",
       800,
       "ByNamespace",
       {"user:system:kube-controller-manager"},
       {any},
       {any_url}},
      {"kube-scheduler",
       false,
       "workload-high",
       800,
       "ByNamespace",
       {"user:system:kube-scheduler"},
       {any},
       {any_url}},
      {"kube-system-service-accounts",
       false,
       "workload-high",
       900,
       "ByNamespace",
       {"sa:*"},
       {any},
       {any_url}},
      {"service-accounts",
       false,
       "workload-low",
       9000,
       "ByUser",
       {"group:system:serviceaccounts"},
       {any},
       {any_url}},
      {"global-default",
       false,
       "global-default",
       9900,
       "ByUser",
       everyone,
       {any},
       {any_url}},
  };
  return *schemas;
}

json Metadata(const std::string& name) {
  return {{"name", name},
          {"annotations", {{kApfAutoUpdateAnnotation, "true"}}}};
}

json LevelObject(const Level& l) {
  json spec;
  if (std::string(l.name) == "exempt") {
    spec = {{"type", "Exempt"},
            {"exempt",
             {{"nominalConcurrencyShares", l.shares},
              {"lendablePercent", l.lendable_percent}}}};
  } else {
    json response = {{"type", "Reject"}};
    if (l.queues > 0) {
      response = {{"type", "Queue"},
                  {"queuing",
                   {{"queues", l.queues},
                    {"handSize", l.hand_size},
                    {"queueLengthLimit", l.queue_length_limit}}}};
    }
    spec = {{"type", "Limited"},
            {"limited",
             {{"nominalConcurrencyShares", l.shares},
              {"lendablePercent", l.lendable_percent},
              {"limitResponse", std::move(response)}}}};
  }
  return {{"apiVersion", kApiVersion},
          {"kind", "PriorityLevelConfiguration"},
          {"metadata", Metadata(l.name)},
          {"spec", std::move(spec)}};
}

json Subject(const std::string& s) {
  auto colon = s.find(':');
  const std::string kind = s.substr(0, colon);
  const std::string name = s.substr(colon + 1);
  if (kind == "group") {
    return {{"kind", "Group"}, {"group", {{"name", name}}}};
  }
  if (kind == "user") return {{"kind", "User"}, {"user", {{"name", name}}}};
  return {{"kind", "ServiceAccount"},
          {"serviceAccount", {{"namespace", "kube-system"}, {"name", name}}}};
}

json SchemaObject(const Schema& s) {
  json rule = {{"subjects", json::array()}};
  for (const auto& subject : s.subjects) {
    rule["subjects"].push_back(Subject(subject));
  }
  for (const auto& r : s.resource_rules) {
    json j = {{"verbs", r.verbs},
              {"apiGroups", r.groups},
              {"resources", r.resources},
              {"namespaces", r.namespaces}};
    if (r.cluster_scope) j["clusterScope"] = true;
    rule["resourceRules"].push_back(std::move(j));
  }
  for (const auto& r : s.non_resource_rules) {
    rule["nonResourceRules"].push_back(
        {{"verbs", r.verbs}, {"nonResourceURLs", r.urls}});
  }
  json spec = {{"priorityLevelConfiguration", {{"name", s.level}}},
               {"matchingPrecedence", s.precedence},
               {"rules", json::array({std::move(rule)})}};
  if (*s.distinguisher != '\0') {
    spec["distinguisherMethod"] = {{"type", s.distinguisher}};
  }
  return {{"apiVersion", kApiVersion},
          {"kind", "FlowSchema"},
          {"metadata", Metadata(s.name)},
          {"spec", std::move(spec)}};
}

std::set<std::string> NamesOf(const std::vector<json>& a,
                              const std::vector<json>& b) {
  std::set<std::string> names;
  for (const auto* list : {&a, &b}) {
    for (const json& obj : *list) names.insert(obj["metadata"]["name"]);
  }
  return names;
}

const json* Annotation(const json& obj) {
  const json& annotations = ObjectAt(ObjectAt(obj, "metadata"), "annotations");
  auto it = annotations.find(kApfAutoUpdateAnnotation);
  if (it == annotations.end() || !it->is_string()) return nullptr;
  return &*it;
}

// Whether a suggested object's spec is kept at the bootstrap spec: its
// annotation says so, or without a boolean there, nobody has changed it
// (generation 1).
bool AutoUpdates(const json& live) {
  if (const json* a = Annotation(live)) {
    if (auto b = ParseGoBool(a->get<std::string>())) return *b;
  }
  const json& meta = ObjectAt(live, "metadata");
  auto gen = meta.find("generation");
  return gen != meta.end() && gen->is_number_integer() && *gen == 1;
}

bool SpecEqualish(const json& bootstrap, const json& live) {
  json expected = bootstrap.value("spec", json::object());
  const json& actual = ObjectAt(live, "spec");
  if (StringAt(ObjectAt(bootstrap, "metadata"), "name") == "exempt" &&
      StringAt(bootstrap, "kind") == "PriorityLevelConfiguration") {
    // The exempt level's own shares and lendable percent are the
    // operator's to set.
    auto exempt = actual.find("exempt");
    if (exempt == actual.end() || !exempt->is_object()) return false;
    for (const char* field : {"nominalConcurrencyShares", "lendablePercent"}) {
      auto it = exempt->find(field);
      if (it == exempt->end()) {
        expected["exempt"].erase(field);
      } else {
        expected["exempt"][field] = *it;
      }
    }
  }
  return expected == actual;
}

}  // namespace

std::set<std::string> ApfBootstrapObjects::LevelNames() const {
  return NamesOf(mandatory_levels, suggested_levels);
}

std::set<std::string> ApfBootstrapObjects::SchemaNames() const {
  return NamesOf(mandatory_schemas, suggested_schemas);
}

const ApfBootstrapObjects& ApfBootstrapConfiguration() {
  static const ApfBootstrapObjects* objects = [] {
    auto* o = new ApfBootstrapObjects;
    for (const Level& l : kLevels) {
      (l.mandatory ? o->mandatory_levels : o->suggested_levels)
          .push_back(LevelObject(l));
    }
    for (const Schema& s : Schemas()) {
      (s.mandatory ? o->mandatory_schemas : o->suggested_schemas)
          .push_back(SchemaObject(s));
    }
    return o;
  }();
  return *objects;
}

std::optional<bool> ParseGoBool(const std::string& s) {
  if (s == "1" || s == "t" || s == "T" || s == "TRUE" || s == "true" ||
      s == "True") {
    return true;
  }
  if (s == "0" || s == "f" || s == "F" || s == "FALSE" || s == "false" ||
      s == "False") {
    return false;
  }
  return std::nullopt;
}

std::optional<json> ReviseApfObject(const json& live, const json& bootstrap,
                                    bool mandatory) {
  const bool auto_update = mandatory || AutoUpdates(live);
  bool annotation_right = false;
  if (const json* a = Annotation(live)) {
    auto b = ParseGoBool(a->get<std::string>());
    annotation_right = b && *b == auto_update;
  }
  const bool spec_changed = auto_update && !SpecEqualish(bootstrap, live);
  if (annotation_right && !spec_changed) return std::nullopt;
  json revised = live;
  if (spec_changed) revised["spec"] = bootstrap["spec"];
  if (!annotation_right) {
    revised["metadata"]["annotations"][kApfAutoUpdateAnnotation] =
        auto_update ? "true" : "false";
  }
  return revised;
}

bool IsUnwantedApfObject(const json& live) {
  const json* a = Annotation(live);
  if (a == nullptr) return false;
  auto b = ParseGoBool(a->get<std::string>());
  return b && *b;
}

json DanglingCondition(const std::string& level, bool level_exists,
                       const std::string& now) {
  const std::string quoted = json(level).dump();
  return {
      {"type", "Dangling"},
      {"status", level_exists ? "False" : "True"},
      {"lastTransitionTime", now},
      {"reason", level_exists ? "Found" : "NotFound"},
      {"message",
       "This FlowSchema references the "
       "PriorityLevelConfiguration object named " +
           quoted +
           (level_exists ? " and it exists" : " but there is no such object")}};
}

bool DanglingConditionDiffers(const json& schema, const json& wanted) {
  for (const json& c : ArrayAt(ObjectAt(schema, "status"), "conditions")) {
    if (StringAt(c, "type") != "Dangling") continue;
    return StringAt(c, "status") != StringAt(wanted, "status") ||
           StringAt(c, "reason") != StringAt(wanted, "reason") ||
           StringAt(c, "message") != StringAt(wanted, "message");
  }
  return true;
}

}  // namespace kmock::controllers
