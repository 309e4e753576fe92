// What kube-apiserver defaults and checks of Jobs and CronJobs, with its
// messages: the pod template defaulted as a pod's spec except its
// restartPolicy, which a Job's pods must set to OnFailure or Never
// ("Required value: valid values: ..." when unset, "Unsupported value"
// otherwise); the template's pod spec checked as a pod's (paths under
// spec.template.spec); counts and deadlines not negative; a CronJob's
// schedule present and of five fields (or an @-descriptor).
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_API_KINDS_BATCH_CHECKS_H_
#define KMOCK_API_KINDS_BATCH_CHECKS_H_

#include <nlohmann/json.hpp>

#include "api/field_errors.h"

namespace kmock::api::kinds {

// batch/v1 defaults: completions and parallelism 1 when both are unset
// (parallelism 1 when only it is), backoffLimit 6, completionMode
// NonIndexed, suspend false, podReplacementPolicy TerminatingOrFailed
// (Failed with a podFailurePolicy), the Job's labels from its template's
// when it has none.
void DefaultJob(nlohmann::json& obj);
// On create, unless spec.manualSelector: the template gets the labels
// job-name, batch.kubernetes.io/job-name, controller-uid and
// batch.kubernetes.io/controller-uid, the selector matches the last.
void GenerateJobSelector(nlohmann::json& obj);
void ValidateJob(const nlohmann::json& obj, FieldErrors* errs);
// An update: as on create, and completions (but for an Indexed Job's,
// changed together with parallelism), selector, completionMode,
// podFailurePolicy, backoffLimitPerIndex, successPolicy and the template
// immutable (a suspended Job that never started may change its pods'
// labels, annotations, nodeSelector, node affinity, tolerations and
// scheduling gates).
void ValidateJobUpdate(const nlohmann::json& obj, const nlohmann::json& old,
                       FieldErrors* errs);
// batch/v1 defaults: concurrencyPolicy Allow, suspend false, history
// limits 3 successful and 1 failed, the job template's pod defaults.
void DefaultCronJob(nlohmann::json& obj);
void ValidateCronJob(const nlohmann::json& obj, FieldErrors* errs);

}  // namespace kmock::api::kinds

#endif  // KMOCK_API_KINDS_BATCH_CHECKS_H_
