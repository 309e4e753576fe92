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

void DefaultJob(nlohmann::json& obj);
void ValidateJob(const nlohmann::json& obj, FieldErrors* errs);
void DefaultCronJob(nlohmann::json& obj);
void ValidateCronJob(const nlohmann::json& obj, FieldErrors* errs);

}  // namespace kmock::api::kinds

#endif  // KMOCK_API_KINDS_BATCH_CHECKS_H_
