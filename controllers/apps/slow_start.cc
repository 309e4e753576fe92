#include "controllers/apps/slow_start.h"

#include <algorithm>
#include <string>

namespace kmock::controllers::apps {

SlowStartResult SlowStart(int64_t count,
                          const std::function<Status(int64_t i)>& attempt) {
  SlowStartResult out;
  for (int64_t batch = std::min<int64_t>(count, 1); batch > 0;
       batch = std::min<int64_t>(2 * batch, count - out.attempted)) {
    for (int64_t i = out.attempted; i < out.attempted + batch; ++i) {
      Status st = attempt(i);
      if (!st.ok() && out.first_error.ok()) out.first_error = st;
    }
    out.attempted += batch;
    if (!out.first_error.ok()) break;
  }
  return out;
}

bool IsNamespaceTerminating(const Status& st) {
  return st.code() == StatusCode::kForbidden &&
         st.message().find("because it is being terminated") !=
             std::string::npos;
}

}  // namespace kmock::controllers::apps
