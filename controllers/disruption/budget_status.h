// The arithmetic of kube-controller-manager's disruption controller: from
// a PodDisruptionBudget, the pods it selects and (for budgets that need it)
// the scale of their controllers, the budget's status: expected, desired
// and currently healthy pods, the disruptions allowed now, the evictions
// not yet seen through (disruptedPods) and the DisruptionAllowed condition.
//
// Thread safety: pure functions.
#ifndef KMOCK_CONTROLLERS_DISRUPTION_BUDGET_STATUS_H_
#define KMOCK_CONTROLLERS_DISRUPTION_BUDGET_STATUS_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"

namespace kmock::controllers::disruption {

using nlohmann::json;

// How long an eviction keeps its pod out of the healthy count before the
// budget assumes the delete is not coming.
constexpr std::chrono::minutes kDeletionTimeout{2};

// True when the expected count is the scale of the pods' controllers
// (maxUnavailable, or minAvailable as a percentage); false when it is the
// number of pods selected.
bool NeedsControllerScale(const json& spec);

struct BudgetCounts {
  int64_t expected = 0;
  int64_t desired_healthy = 0;
  int64_t current_healthy = 0;
};

// The counts for `pods` (every pod the budget selects, in any phase);
// `controller_scale` is the summed scale of their controllers, used when
// NeedsControllerScale. nullopt for a malformed minAvailable/maxUnavailable.
std::optional<BudgetCounts> CountBudget(const json& pdb,
                                        const std::vector<const json*>& pods,
                                        int64_t controller_scale,
                                        TimePoint now);

// The evictions of status.disruptedPods still pending: pods that exist,
// are not being deleted and were evicted less than kDeletionTimeout ago.
// `next_expiry` gets the earliest time one of them lapses (unchanged when
// none is kept).
json PendingDisruptions(const json& pdb, const std::vector<const json*>& pods,
                        TimePoint now, std::optional<TimePoint>* next_expiry);

// The status the budget should have. `failure` non-empty: the counts could
// not be made (the status then allows nothing and says why).
json BudgetStatus(const json& pdb, const BudgetCounts& counts,
                  json disrupted_pods, TimePoint now,
                  const std::string& failure = "");

}  // namespace kmock::controllers::disruption

#endif  // KMOCK_CONTROLLERS_DISRUPTION_BUDGET_STATUS_H_
