// ReplicationController defaulting and validation.
#include "api/kinds/replication_controller.h"

#include <string>

#include "api/kinds/util.h"
#include "api/kinds/workload_common.h"

namespace kmock::api::kinds {

void DefaultReplicationController(json& rc) {
  json& spec = ObjectAt(rc, "spec");
  const json* labels = Find(spec, {"template", "metadata", "labels"});
  if (labels != nullptr && labels->is_object()) {
    const json* selector = Find(spec, {"selector"});
    if (selector == nullptr || !selector->is_object() || selector->empty()) {
      spec["selector"] = *labels;
    }
    const json* own = Find(rc, {"metadata", "labels"});
    if (own == nullptr || !own->is_object() || own->empty()) {
      ObjectAt(rc, "metadata")["labels"] = *labels;
    }
  }
  if (!spec.contains("replicas") || spec["replicas"].is_null()) {
    spec["replicas"] = 1;
  }
  if (spec.contains("template") && spec["template"].is_object()) {
    DefaultPodTemplate(spec["template"]);
  }
}

void ValidateReplicationController(const json& rc, FieldErrors* errs) {
  json empty = json::object();
  const json* specp = Find(rc, {"spec"});
  const json& spec = specp && specp->is_object() ? *specp : empty;
  ValidateNonNegative(spec, {"minReadySeconds"}, "spec.minReadySeconds", errs);
  const json* selector = Find(spec, {"selector"});
  const bool has_selector =
      selector != nullptr && selector->is_object() && !selector->empty();
  if (!has_selector) errs->Required("spec.selector");
  ValidateNonNegative(spec, {"replicas"}, "spec.replicas", errs);
  const json* templ = Find(spec, {"template"});
  if (templ == nullptr || !templ->is_object()) {
    errs->Required("spec.template");
    return;
  }
  if (has_selector) {
    ValidateLabelSelector({{"matchLabels", *selector}}, "spec.selector", errs);
    const json* labels = Find(*templ, {"metadata", "labels"});
    const json none;
    if (!LabelSelectorMatches({{"matchLabels", *selector}},
                              labels ? *labels : none)) {
      InvalidRendered(errs, "spec.template.metadata.labels",
                      GoStringMap(labels ? *labels : none),
                      "`selector` does not match template `labels`");
    }
  }
  ValidateWorkloadTemplate(*templ, "replicationcontroller", errs);
}

}  // namespace kmock::api::kinds
