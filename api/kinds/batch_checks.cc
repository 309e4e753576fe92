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
  const json* templ = Find(spec, {"template"});
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

}  // namespace

void DefaultJob(json& obj) {
  if (obj.contains("spec")) DefaultJobTemplate(obj["spec"]);
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
