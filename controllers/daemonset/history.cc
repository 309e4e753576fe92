#include "controllers/daemonset/history.h"

#include <algorithm>
#include <optional>

#include "api/kinds/workload_common.h"
#include "common/json_view.h"
#include "controllers/daemonset/node_fit.h"

namespace kmock::controllers::daemonset {

json RevisionData(const json& ds) {
  json tmpl = ObjectAt(ObjectAt(ds, "spec"), "template");
  if (!tmpl.is_object()) tmpl = json::object();
  tmpl["$patch"] = "replace";
  return {{"spec", {{"template", std::move(tmpl)}}}};
}

std::string RevisionHash(const json& ds) {
  const json& collisions = ValueAt(ObjectAt(ds, "status"), "collisionCount");
  std::optional<int32_t> count;
  if (collisions.is_number_integer()) count = collisions.get<int32_t>();
  return api::kinds::PodTemplateHash(ObjectAt(ObjectAt(ds, "spec"), "template"),
                                     count);
}

bool RevisionMatches(const json& ds, const json& revision) {
  return ValueAt(revision, "data") == RevisionData(ds);
}

json NewRevision(const json& ds, int64_t number, const json& owner_ref) {
  const json& meta = ObjectAt(ds, "metadata");
  const std::string hash = RevisionHash(ds);
  json labels =
      ObjectAt(ObjectAt(ObjectAt(ObjectAt(ds, "spec"), "template"), "metadata"),
               "labels");
  if (!labels.is_object()) labels = json::object();
  labels[kRevisionHashLabel] = hash;
  json md = {{"name", StringAt(meta, "name") + "-" + hash},
             {"namespace", StringAt(meta, "namespace")},
             {"labels", std::move(labels)},
             {"ownerReferences", json::array({owner_ref})}};
  const json& annotations = ObjectAt(meta, "annotations");
  if (annotations.is_object() && !annotations.empty()) {
    md["annotations"] = annotations;
  }
  return {{"apiVersion", "apps/v1"},
          {"kind", "ControllerRevision"},
          {"metadata", std::move(md)},
          {"data", RevisionData(ds)},
          {"revision", number}};
}

int64_t RevisionNumber(const json& revision) {
  const json& v = ValueAt(revision, "revision");
  return v.is_number_integer() ? v.get<int64_t>() : 0;
}

std::vector<std::string> HistoryToDelete(
    const json& ds, std::vector<json> old_revisions,
    const std::set<std::string>& live_hashes) {
  const json& limit_v = ValueAt(ObjectAt(ds, "spec"), "revisionHistoryLimit");
  const int64_t limit =
      limit_v.is_number_integer() ? limit_v.get<int64_t>() : 10;
  int64_t to_kill = static_cast<int64_t>(old_revisions.size()) - limit;
  std::vector<std::string> out;
  if (to_kill <= 0) return out;
  std::stable_sort(old_revisions.begin(), old_revisions.end(),
                   [](const json& a, const json& b) {
                     return RevisionNumber(a) < RevisionNumber(b);
                   });
  for (const json& r : old_revisions) {
    if (to_kill <= 0) break;
    const json& md = ObjectAt(r, "metadata");
    if (live_hashes.count(
            StringAt(ObjectAt(md, "labels"), kRevisionHashLabel))) {
      continue;
    }
    out.push_back(StringAt(md, "name"));
    --to_kill;
  }
  return out;
}

}  // namespace kmock::controllers::daemonset
