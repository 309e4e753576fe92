// core/v1 LimitRange defaulting, which depends on other fields: for a
// Container item, a default limit missing where a max is given is the max,
// a default request missing where a default limit is given is that limit,
// and else the min.
//
// Thread safety: pure functions.
#ifndef KMOCK_API_KINDS_LIMIT_RANGE_H_
#define KMOCK_API_KINDS_LIMIT_RANGE_H_

#include <nlohmann/json.hpp>

namespace kmock::api::kinds {

void DefaultLimitRange(nlohmann::json& obj);

}  // namespace kmock::api::kinds

#endif  // KMOCK_API_KINDS_LIMIT_RANGE_H_
