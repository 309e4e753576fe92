// core/v1 Pod: Table columns and cells (as kube-apiserver's pod printer),
// field selectors, defaulting (scheme defaults plus what the create-time
// admission plugins ServiceAccount and DefaultTolerationSeconds add; the
// Priority plugin, which reads PriorityClasses, is the registry's),
// validation and the main and status strategies.
//
// Thread safety: pure functions and stateless strategies; safe from any
// thread.
#ifndef KMOCK_API_KINDS_POD_H_
#define KMOCK_API_KINDS_POD_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/field_errors.h"
#include "api/resource.h"
#include "common/clock.h"

namespace kmock::api::kinds {

// The computed cells, one per column (named cells "pod...").
json PodReadyCell(const json& pod, TimePoint now);
json PodStatusCell(const json& pod, TimePoint now);
json PodRestartsCell(const json& pod, TimePoint now);
json PodIpCell(const json& pod, TimePoint now);
json PodReadinessGatesCell(const json& pod, TimePoint now);
// The STATUS column alone ("Running", "Init:0/1", "CrashLoopBackOff", ...).
std::string PodStatusReason(const json& pod);
std::vector<SelectableField> PodSelectableFields();

// Scheme defaults of a Pod (idempotent): restartPolicy, dnsPolicy,
// schedulerName, terminationGracePeriodSeconds, securityContext,
// enableServiceLinks, per-container and per-volume defaults.
void DefaultPod(json& pod);

// The JSON names of a volume's sources (hostPath, emptyDir, ...), read from
// the schema's VolumeSource type so they never drift from it.
const std::vector<std::string>& VolumeSourceNames();
// Create-time admission: serviceAccountName "default", the
// kube-api-access-<suffix> projected token volume and its mounts (unless
// automountServiceAccountToken is false), the not-ready/unreachable
// tolerations. `suffix` is 5 characters from
// Rng::NameSuffix.
void AdmitPod(json& pod, const std::string& suffix);
// A 5-character name suffix derived from the pod's uid (or name), used when
// the strategy runs AdmitPod itself: the uid comes from the seeded Rng, so
// the suffix is random yet reproducible.
std::string TokenVolumeSuffix(const json& pod);
// "Guaranteed", "Burstable" or "BestEffort".
std::string PodQosClass(const json& pod);

void ValidatePod(const json& pod, FieldErrors* errs);
void ValidatePodUpdate(const json& pod, const json& old, FieldErrors* errs);

const Strategy* PodStrategy();
const Strategy* PodStatusStrategy();

}  // namespace kmock::api::kinds

#endif  // KMOCK_API_KINDS_POD_H_
