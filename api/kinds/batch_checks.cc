#include "api/kinds/batch_checks.h"

#include <sstream>
#include <string>
#include <vector>

#include "api/kinds/pod.h"
#include "api/kinds/util.h"
#include "api/kinds/workload_common.h"

namespace kmock::api::kinds {

namespace {

using nlohmann::json;

// The template's pod defaults, leaving restartPolicy as the user gave it.
void DefaultJobTemplate(json& job_spec) {
  if (!job_spec.is_object()) return;
  auto templ = job_spec.find("template");
  if (templ == job_spec.end() || !templ->is_object()) return;
  const bool had_policy = Find(*templ, {"spec", "restartPolicy"}) != nullptr;
  DefaultPodTemplate(*templ);
  if (!had_policy && templ->contains("spec")) {
    (*templ)["spec"].erase("restartPolicy");
  }
}

// `spec` is a JobSpec at `path` ("spec." or "spec.jobTemplate.spec.").
void ValidateJobSpec(const json& spec, const std::string& path,
                     FieldErrors* errs) {
  for (const char* field :
       {"parallelism", "completions", "activeDeadlineSeconds", "backoffLimit",
        "ttlSecondsAfterFinished"}) {
    ValidateNonNegative(spec, {field}, path + field, errs);
  }
  const std::string mode = Str(spec, {"completionMode"});
  const json* completions = Find(spec, {"completions"});
  if (!mode.empty() && mode != "NonIndexed" && mode != "Indexed") {
    errs->NotSupported(path + "completionMode", mode,
                       {"NonIndexed", "Indexed"});
  }
  if (mode == "Indexed") {
    if (completions == nullptr || completions->is_null()) {
      errs->Required(path + "completions", "when completion mode is Indexed");
    }
    const json* parallelism = Find(spec, {"parallelism"});
    if (parallelism != nullptr && parallelism->is_number_integer() &&
        parallelism->get<int64_t>() > 100000) {
      errs->Invalid(path + "parallelism", *parallelism,
                    "must be less than or equal to 100000 when completion "
                    "mode is Indexed");
    }
  }
  if (const json* per_index = Find(spec, {"backoffLimitPerIndex"});
      per_index != nullptr && !per_index->is_null()) {
    ValidateNonNegative(spec, {"backoffLimitPerIndex"},
                        path + "backoffLimitPerIndex", errs);
    if (mode != "Indexed") {
      errs->Forbidden(path + "backoffLimitPerIndex",
                      "requires indexed completion mode");
    }
  }
  if (const json* success = Find(spec, {"successPolicy"});
      success != nullptr && !success->is_null() && mode != "Indexed") {
    errs->Forbidden(path + "successPolicy", "requires indexed completion mode");
  }
  const json* templ = Find(spec, {"template"});
  if (path == "spec.") {
    // A Job's own selector (a CronJob's template has none yet).
    const json* selector = Find(spec, {"selector"});
    if (selector == nullptr || !selector->is_object()) {
      errs->Required("spec.selector");
    } else if (ValidateLabelSelector(*selector, "spec.selector", errs)) {
      const json* labels =
          templ ? Find(*templ, {"metadata", "labels"}) : nullptr;
      const json none;
      if (!LabelSelectorMatches(*selector, labels ? *labels : none)) {
        InvalidRendered(errs, "spec.template.metadata.labels",
                        GoStringMap(labels ? *labels : none),
                        "`selector` does not match template `labels`");
      }
    }
  }
  json pod = {{"spec", templ && templ->contains("spec") ? (*templ)["spec"]
                                                        : json::object()}};
  std::string policy = Str(pod, {"spec", "restartPolicy"});
  // The pod check would accept Always, and a missing policy is ours to
  // report: check the policy here and the rest as a pod's.
  pod["spec"]["restartPolicy"] = "Never";
  FieldErrors pod_errs;
  ValidatePod(pod, &pod_errs);
  AppendUnder(pod_errs, path + "template.", errs);
  const std::string policy_path = path + "template.spec.restartPolicy";
  if (policy.empty()) {
    errs->Required(policy_path, "valid values: \"OnFailure\", \"Never\"");
  } else if (policy != "OnFailure" && policy != "Never") {
    errs->NotSupported(policy_path, policy, {"OnFailure", "Never"});
  }
}

// A cron schedule: an @-descriptor or five whitespace-separated fields,
// refused in the words of the cron parser kube-apiserver uses (fields
// printed as a Go slice).
void ValidateSchedule(const json& spec, FieldErrors* errs) {
  const std::string schedule = Str(spec, {"schedule"});
  if (schedule.empty()) {
    errs->Required("spec.schedule");
    return;
  }
  if (schedule[0] == '@') {
    static const char* kDescriptors[] = {"@yearly", "@annually", "@monthly",
                                         "@weekly", "@daily",    "@midnight",
                                         "@hourly"};
    for (const char* d : kDescriptors) {
      if (schedule == d) return;
    }
    if (schedule.rfind("@every ", 0) == 0) return;
    errs->Invalid("spec.schedule", schedule,
                  "unrecognized descriptor: " + schedule);
    return;
  }
  std::istringstream in(schedule);
  std::vector<std::string> fields;
  for (std::string f; in >> f;) fields.push_back(f);
  if (fields.size() != 5) {
    std::string listed;
    for (const std::string& f : fields)
      listed += (listed.empty() ? "" : " ") + f;
    errs->Invalid("spec.schedule", schedule,
                  "expected exactly 5 fields, found " +
                      std::to_string(fields.size()) + ": [" + listed + "]");
  }
}

json TemplateOf(const json& job) {
  const json* t = Find(job, {"spec", "template"});
  return t != nullptr && t->is_object() ? *t : json::object();
}

}  // namespace

void DefaultJob(json& obj) {
  json& spec = ObjectAt(obj, "spec");
  auto unset = [&spec](const char* f) {
    return !spec.contains(f) || spec[f].is_null();
  };
  if (unset("completions") && unset("parallelism")) {
    spec["completions"] = 1;
    spec["parallelism"] = 1;
  }
  if (unset("parallelism")) spec["parallelism"] = 1;
  if (unset("backoffLimit")) {
    spec["backoffLimit"] = unset("backoffLimitPerIndex") ? 6 : 2147483647;
  }
  if (unset("completionMode")) spec["completionMode"] = "NonIndexed";
  if (unset("suspend")) spec["suspend"] = false;
  if (unset("podReplacementPolicy")) {
    spec["podReplacementPolicy"] =
        unset("podFailurePolicy") ? "TerminatingOrFailed" : "Failed";
  }
  json* rules = spec.contains("podFailurePolicy") &&
                        spec["podFailurePolicy"].is_object() &&
                        spec["podFailurePolicy"].contains("rules")
                    ? &spec["podFailurePolicy"]["rules"]
                    : nullptr;
  if (rules != nullptr && rules->is_array()) {
    for (json& rule : *rules) {
      if (!rule.is_object() || !rule.contains("onPodConditions") ||
          !rule["onPodConditions"].is_array()) {
        continue;
      }
      for (json& pattern : rule["onPodConditions"]) {
        if (pattern.is_object() && Str(pattern, {"status"}).empty()) {
          pattern["status"] = "True";
        }
      }
    }
  }
  DefaultJobTemplate(spec);
  // The template's labels become the Job's when it has none.
  const json* labels = Find(spec, {"template", "metadata", "labels"});
  json& md = ObjectAt(obj, "metadata");
  if (labels != nullptr && labels->is_object() && !labels->empty() &&
      (!md.contains("labels") || !md["labels"].is_object() ||
       md["labels"].empty())) {
    md["labels"] = *labels;
  }
}

void GenerateJobSelector(json& obj) {
  json& spec = ObjectAt(obj, "spec");
  const json* manual = Find(spec, {"manualSelector"});
  if (manual != nullptr && manual->is_boolean() && manual->get<bool>()) return;
  const std::string name = Str(obj, {"metadata", "name"});
  const std::string uid = Str(obj, {"metadata", "uid"});
  json& labels =
      ObjectAt(ObjectAt(ObjectAt(spec, "template"), "metadata"), "labels");
  for (const char* key : {"job-name", "batch.kubernetes.io/job-name"}) {
    if (!labels.contains(key)) labels[key] = name;
  }
  for (const char* key :
       {"controller-uid", "batch.kubernetes.io/controller-uid"}) {
    if (!labels.contains(key)) labels[key] = uid;
  }
  json& match = ObjectAt(ObjectAt(spec, "selector"), "matchLabels");
  if (!match.contains("batch.kubernetes.io/controller-uid")) {
    match["batch.kubernetes.io/controller-uid"] = uid;
  }
}

void ValidateJobUpdate(const json& obj, const json& old, FieldErrors* errs) {
  ValidateJob(obj, errs);
  auto immutable = [&](const char* field) {
    const json* now = Find(obj, {"spec", field});
    const json* was = Find(old, {"spec", field});
    const json none;
    if ((now ? *now : none) == (was ? *was : none)) return;
    const std::string path = std::string("spec.") + field;
    if (std::string(field) == "selector") {
      InvalidRendered(errs, path, GoLabelSelector(now ? *now : none),
                      "field is immutable");
    } else {
      errs->Invalid(path, now ? *now : none, "field is immutable");
    }
  };
  // Completions change only with parallelism, on an Indexed Job.
  const json* completions = Find(obj, {"spec", "completions"});
  if (Str(obj, {"spec", "completionMode"}) == "Indexed" && completions &&
      Find(old, {"spec", "completions"}) &&
      *completions != *Find(old, {"spec", "completions"})) {
    const json* parallelism = Find(obj, {"spec", "parallelism"});
    if (parallelism == nullptr || *parallelism != *completions) {
      errs->Invalid("spec.completions", *completions,
                    "can only be modified in tandem with spec.parallelism");
    }
  } else {
    immutable("completions");
  }
  immutable("selector");
  immutable("completionMode");
  immutable("podFailurePolicy");
  immutable("backoffLimitPerIndex");
  immutable("successPolicy");
  // A suspended Job that never started may change where its pods run.
  json tmpl = TemplateOf(obj);
  json old_tmpl = TemplateOf(old);
  const json* suspend = Find(obj, {"spec", "suspend"});
  const bool may_move = suspend && suspend->is_boolean() &&
                        suspend->get<bool>() &&
                        Find(old, {"status", "startTime"}) == nullptr;
  if (may_move) {
    for (json* t : {&tmpl, &old_tmpl}) {
      json& md = ObjectAt(*t, "metadata");
      md.erase("labels");
      md.erase("annotations");
      json& ps = ObjectAt(*t, "spec");
      for (const char* f : {"nodeSelector", "tolerations", "schedulingGates"}) {
        ps.erase(f);
      }
      if (ps.contains("affinity") && ps["affinity"].is_object()) {
        ps["affinity"].erase("nodeAffinity");
        if (ps["affinity"].empty()) ps.erase("affinity");
      }
    }
  }
  if (tmpl != old_tmpl) {
    InvalidRendered(errs, "spec.template",
                    "core.PodTemplateSpec{" + TemplateOf(obj).dump() + "}",
                    "field is immutable");
  }
}

void ValidateJob(const json& obj, FieldErrors* errs) {
  const json* spec = Find(obj, {"spec"});
  ValidateJobSpec(spec ? *spec : json::object(), "spec.", errs);
}

void DefaultCronJob(json& obj) {
  json* job_spec = nullptr;
  if (obj.contains("spec") && obj["spec"].contains("jobTemplate") &&
      obj["spec"]["jobTemplate"].contains("spec")) {
    job_spec = &obj["spec"]["jobTemplate"]["spec"];
  }
  if (job_spec != nullptr) DefaultJobTemplate(*job_spec);
  json& spec = ObjectAt(obj, "spec");
  auto set_default = [&spec](const char* f, json v) {
    if (!spec.contains(f) || spec[f].is_null()) spec[f] = std::move(v);
  };
  set_default("concurrencyPolicy", "Allow");
  set_default("suspend", false);
  set_default("successfulJobsHistoryLimit", 3);
  set_default("failedJobsHistoryLimit", 1);
}

void ValidateCronJob(const json& obj, FieldErrors* errs) {
  const json* spec = Find(obj, {"spec"});
  const json& s = spec ? *spec : json::object();
  ValidateSchedule(s, errs);
  ValidateNonNegative(s, {"startingDeadlineSeconds"},
                      "spec.startingDeadlineSeconds", errs);
  ValidateNonNegative(s, {"successfulJobsHistoryLimit"},
                      "spec.successfulJobsHistoryLimit", errs);
  ValidateNonNegative(s, {"failedJobsHistoryLimit"},
                      "spec.failedJobsHistoryLimit", errs);
  const json* job_spec = Find(s, {"jobTemplate", "spec"});
  ValidateJobSpec(job_spec ? *job_spec : json::object(),
                  "spec.jobTemplate.spec.", errs);
}

}  // namespace kmock::api::kinds
