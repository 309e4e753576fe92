// A lifecycle stage, KWOK style: a selector over a view of the pod (the pod
// object plus the kubelet's record of it), a delay, and the action that
// moves the pod on. The kubelet repeatedly applies the first stage whose
// selector matches, once its delay has passed, until none matches.
//
// The view is {"pod": <the Pod>, "runtime": ToJson(PodRuntime),
// "container": <the runtime entry of the container whose turn it is>} and a
// requirement's path is dotted into it ("pod.metadata.deletionTimestamp",
// "container.step"). Operators: Exists, DoesNotExist, In, NotIn (values are
// compared as strings; true/false/numbers in their JSON spelling).
//
// Thread safety: plain values and pure functions.
#ifndef KMOCK_CONTROLLERS_LIFECYCLE_STAGE_H_
#define KMOCK_CONTROLLERS_LIFECYCLE_STAGE_H_

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/rng.h"
#include "common/status.h"
#include "controllers/lifecycle/pacing.h"
#include "controllers/lifecycle/runtime.h"

namespace kmock::controllers::lifecycle {

enum class Action {
  kCreateSandbox,     // IP, start time, PodReadyToStartContainers
  kPullImage,         // Pulling (or "already present" and done)
  kImagePulled,       // Pulled
  kCreateContainer,   // Created
  kStartContainer,    // Started, running
  kCompleteInit,      // an init container exits 0 (Completed)
  kPullBackOff,       // a failed pull waits: ImagePullBackOff
  kRetryPull,         // the pull back-off is over: pull again
  kRestartContainer,  // an ended container restarts, or waits:
                      // CrashLoopBackOff
  kMarkReady,         // containers ready; pod Ready
  kKill,              // Killing; containers terminated
  kDelete,            // the kubelet deletes the object (grace period 0)
};

const char* ActionName(Action a);
bool ParseAction(const std::string& name, Action* out);

struct Requirement {
  std::string path;
  std::string op;  // Exists, DoesNotExist, In, NotIn
  std::vector<std::string> values;
};

struct Stage {
  std::string name;
  std::vector<Requirement> selector;
  std::chrono::milliseconds delay{0};
  double jitter = 0;  // fraction of delay
  Action action = Action::kCreateSandbox;
  // When set, the delay is this path's value (milliseconds) in the view
  // when the stage is chosen (a back-off the kubelet computed).
  std::string delay_from;
};

// The view the selectors read. The pod and the runtime record are referred
// to, not copied (a kubelet builds a view per step of every pod): the
// fields the default stages read come straight from the record, and
// ToJson(*rt) is made only for a path they do not cover.
struct View {
  const nlohmann::json* pod = nullptr;  // outlives the view
  const PodRuntime* rt = nullptr;       // outlives the view; may be null
  // ToJson(*rt) once a path needs it, or set by hand when rt is null.
  mutable nlohmann::json runtime;
  mutable bool runtime_made = false;
  mutable nlohmann::json scratch;  // a value read from the record
  int container = -1;  // runtime.containers index whose turn it is, or -1
};

// REQUIRES: pod and rt outlive the view; rt is not changed while it is used.
View BuildView(const nlohmann::json& pod, const PodRuntime& rt);

bool Matches(const Requirement& r, const View& view);
// The first stage whose every requirement matches, or null.
const Stage* MatchStage(const std::vector<Stage>& stages, const View& view);

// delay +- jitter*delay, drawn from rng (null: no jitter). Never negative.
std::chrono::milliseconds StageDelay(const Stage& s, Rng* rng);
// The delay of a stage chosen on this view: delay_from's value, else
// StageDelay.
std::chrono::milliseconds StageDelay(const Stage& s, const View& view,
                                     Rng* rng);

// How long the kubelet waits before it looks at a container again after
// it ended or its pull failed (its pod worker's next sync).
constexpr std::chrono::milliseconds kResyncDelay{1000};

// The stages of a pod's life on our kubelets, timed by pacing.
std::vector<Stage> DefaultStages(const StagePacing& pacing);

// Stages from JSON: [{"name", "selector": [{"path","op","values"}],
// "delayMs", "delayFrom", "jitter", "action"}]. Errors name the offending
// entry.
Result<std::vector<Stage>> ParseStages(const nlohmann::json& j);

}  // namespace kmock::controllers::lifecycle

#endif  // KMOCK_CONTROLLERS_LIFECYCLE_STAGE_H_
