// What the Job controller knows about its pods (pure): the pod it makes for
// a Job (the template, the job-tracking finalizer, the Job as controller;
// for Indexed Jobs the completion index as annotation, label, hostname
// "<job>-<index>" and the JOB_COMPLETION_INDEX variable), how a pod of a
// Job ended, which condition ends a Job, and completed index sets in the
// "1,3-5" form of status.completedIndexes.
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_CONTROLLERS_JOB_JOB_PODS_H_
#define KMOCK_CONTROLLERS_JOB_JOB_PODS_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

#include "common/clock.h"

namespace kmock::controllers::job {

using nlohmann::json;

inline constexpr char kTrackingFinalizer[] = "batch.kubernetes.io/job-tracking";
inline constexpr char kCompletionIndex[] =
    "batch.kubernetes.io/job-completion-index";

bool IsIndexed(const json& job);
// The pod for the Job; `index` for an Indexed Job.
json NewJobPod(const json& job, std::optional<int64_t> index,
               const json& owner_ref);
// The pod's completion index (nullopt: none or not a number).
std::optional<int64_t> CompletionIndex(const json& pod);

bool HasTrackingFinalizer(const json& pod);
bool IsSucceeded(const json& pod);
// Failed, or (unless the Job replaces failed pods only) being deleted
// before it succeeded: a pod that never gets the chance to fail.
bool IsFailed(const json& pod, const json& job);
// Not finished and not being deleted.
bool IsActive(const json& pod);
// Being deleted and not finished.
bool IsTerminating(const json& pod);

// The condition of this type with status True, if any.
const json* TrueCondition(const json& job, const std::string& type);
// Complete or Failed is True.
bool IsFinished(const json& job);
// Sets (or adds) a condition; false when it already was so.
bool SetCondition(json* status, const std::string& type,
                  const std::string& condition_status,
                  const std::string& reason, const std::string& message,
                  TimePoint now);

// "1,3-5" <-> {1,3,4,5}; malformed parts are skipped.
std::set<int64_t> ParseIndexes(const std::string& s);
std::string FormatIndexes(const std::set<int64_t>& indexes);

}  // namespace kmock::controllers::job

#endif  // KMOCK_CONTROLLERS_JOB_JOB_PODS_H_
