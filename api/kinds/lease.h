// coordination.k8s.io/v1 Lease: Table columns and cells, validation and the
// strategy.
//
// Thread safety: pure functions and a stateless strategy; safe from any
// thread.
#ifndef KMOCK_API_KINDS_LEASE_H_
#define KMOCK_API_KINDS_LEASE_H_

#include <vector>

#include "api/resource.h"

namespace kmock::api::kinds {

const Strategy* LeaseStrategy();

}  // namespace kmock::api::kinds

#endif  // KMOCK_API_KINDS_LEASE_H_
