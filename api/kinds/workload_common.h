// What Deployments and ReplicaSets share: label selectors (matching, their
// string form, Go's %v rendering in error messages), the pod template
// (defaulting, validation under spec.template, the CONTAINERS and IMAGES
// cells) and the pod-template-hash the deployment controller puts into
// ReplicaSet names and pod labels.
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_API_KINDS_WORKLOAD_COMMON_H_
#define KMOCK_API_KINDS_WORKLOAD_COMMON_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "api/field_errors.h"

namespace kmock::api::kinds {

using nlohmann::json;

// Whether a metav1.LabelSelector selects `labels` (a string map). A null or
// absent selector selects nothing, an empty one everything. Malformed
// requirements select nothing.
bool LabelSelectorMatches(const json& selector, const json& labels);
// The selector as labels.Selector prints it: requirements sorted by key,
// "k=v", "k in (a,b)", "k notin (a,b)", "k", "!k", joined by ",". "" for
// an empty or absent selector.
std::string LabelSelectorString(const json& selector);

// Go's %#v of values as kube-apiserver puts them into field errors:
// map[string]string{"a":"b"} (nil: map[string]string(nil)).
std::string GoStringMap(const json& map);
// v1.LabelSelector{MatchLabels:..., MatchExpressions:...}.
std::string GoLabelSelector(const json& selector);

// Appends inner's causes to errs with `prefix` before each field
// ("spec.template." + "spec.containers").
void AppendUnder(const FieldErrors& inner, const std::string& prefix,
                 FieldErrors* errs);
// Appends an "Invalid value" cause whose value is already rendered.
void InvalidRendered(FieldErrors* errs, const std::string& field,
                     const std::string& rendered_value,
                     const std::string& detail);

// The pod defaulting of a template's spec (the scheme defaults only: the
// admission-time additions of pods are not applied to templates).
void DefaultPodTemplate(json& pod_template);

// A metav1.LabelSelector at `path` as ValidateLabelSelector checks one:
// matchLabels valid labels, each requirement's operator, key and values.
// True when it is valid.
bool ValidateLabelSelector(const json& selector, const std::string& path,
                           FieldErrors* errs);

// spec.selector and spec.template of a workload as apps validation checks
// them: the selector required, valid and non-empty, the template's labels
// matched by it, the template's labels, annotations and pod spec valid
// (paths under spec.template.spec), restartPolicy Always and no
// activeDeadlineSeconds. `kind` words the empty-selector message
// ("deployment", which ReplicaSets also say, or "daemonset") and picks the
// activeDeadlineSeconds message of that kind.
void ValidateSelectorAndTemplate(const json& spec, FieldErrors* errs,
                                 const std::string& kind = "deployment");
// The template part of that: labels, annotations, the pod spec,
// restartPolicy Always and no activeDeadlineSeconds (worded for `kind`:
// "deployment", "daemonset" or "replicationcontroller").
void ValidateWorkloadTemplate(const json& pod_template, const std::string& kind,
                              FieldErrors* errs);
// spec.selector may not change.
void ValidateSelectorUnchanged(const json& obj, const json& old,
                               FieldErrors* errs);
// "must be greater than or equal to 0" at `field` when the integer at
// `path` is present and negative.
void ValidateNonNegative(const json& obj,
                         std::initializer_list<const char*> path,
                         const std::string& field, FieldErrors* errs);

// Go's %#v of an intstr.IntOrString held in JSON (absent: the zero value),
// as field errors print one.
std::string GoIntOrString(const json* v);
// The percentage of "25%", or nullopt when not a valid percent string.
std::optional<int64_t> Percent(const json* v);
// intstr's IntValue of a value that is not a percentage: the number, or a
// string parsed as a decimal (0 when it is not one).
int64_t IntOrPercentValue(const json* v);
// apps validation's ValidatePositiveIntOrPercent: a percent string, or an
// integer not below 0.
void ValidatePositiveIntOrPercent(const json* v, const std::string& field,
                                  FieldErrors* errs);

// The names and the images of the template's containers, each joined by
// ",": the CONTAINERS and IMAGES cells.
std::string TemplateContainerNames(const json& pod_template);
std::string TemplateContainerImages(const json& pod_template);

// FNV-1a, 32 bits.
uint32_t Fnv32a(std::string_view data, uint32_t hash = 2166136261u);
// Kubernetes' rand.SafeEncodeString: every byte b becomes
// "bcdfghjklmnpqrstvwxz2456789"[b % 27].
std::string SafeEncodeString(std::string_view s);
// The pod-template-hash label value of a PodTemplateSpec, in the shape
// Kubernetes gives it: FNV-32a of the template, then (if set) the collision
// count as 4 little-endian bytes, printed in decimal and safe-encoded
// ("7c5ddbdf54"). Kubernetes hashes Go's spew rendering of its struct; this
// hashes the template's canonical JSON (keys sorted, nulls dropped), so the
// values have the real shape and change whenever the template changes but
// differ from a real cluster's.
std::string PodTemplateHash(const json& pod_template,
                            std::optional<int32_t> collision_count = {});

}  // namespace kmock::api::kinds

#endif  // KMOCK_API_KINDS_WORKLOAD_COMMON_H_
