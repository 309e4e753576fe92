#include "patch/patch_status.h"

#include <utility>

namespace kmock::patch {

Status UnconvertedError(std::string message) {
  Status s(StatusCode::kInternal, std::move(message));
  s.set_reason(kReasonUnknown);
  return s;
}

Status RejectedError() {
  return Status(StatusCode::kInvalid, kRejectedMessage);
}

}  // namespace kmock::patch
