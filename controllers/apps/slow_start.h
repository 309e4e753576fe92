// client-go's slow-start batching, as the workload controllers create pods:
// calls `attempt` for 1, then 2, 4, ... items until `count` are done or a
// batch had an error, so that a template the API refuses costs one call,
// not hundreds.
//
// Thread safety: a pure function of its arguments; `attempt` runs on the
// calling thread.
#ifndef KMOCK_CONTROLLERS_APPS_SLOW_START_H_
#define KMOCK_CONTROLLERS_APPS_SLOW_START_H_

#include <cstdint>
#include <functional>

#include "common/status.h"

namespace kmock::controllers::apps {

struct SlowStartResult {
  int64_t attempted = 0;
  Status first_error = Status::Ok();
};

// attempt(i) for i = 0, 1, ... in batches; an error Status counts as a
// failure of that item.
SlowStartResult SlowStart(int64_t count,
                          const std::function<Status(int64_t i)>& attempt);

// Whether a create failed only because its namespace is being terminated
// (not worth reporting: the namespace controller is removing everything).
bool IsNamespaceTerminating(const Status& st);

}  // namespace kmock::controllers::apps

#endif  // KMOCK_CONTROLLERS_APPS_SLOW_START_H_
