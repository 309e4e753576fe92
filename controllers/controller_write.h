// How kube-controller-manager's controllers write: typed in-process writes
// as the service account kube-system/<account> (its groups included), with
// the field manager "kube-controller-manager" unless another component's
// (the cloud-controller-manager's) is named; how kube-apiserver's own loops
// write (through its loopback client, as system:apiserver); and which
// write errors such a controller lets pass.
//
// Thread safety: a pure function.
#ifndef KMOCK_CONTROLLERS_CONTROLLER_WRITE_H_
#define KMOCK_CONTROLLERS_CONTROLLER_WRITE_H_

#include <string>

#include "registry/registry.h"

namespace kmock::controllers {

// What a level-triggered controller's write may meet that is not worth a
// retry: the object changed (409), went (404), already exists (409) or its
// namespace is terminating (403) meanwhile; its own informer event brings
// the key back. Ok for those, else the status as it is.
inline Status IgnoreRoutineWriteErrors(const Status& st) {
  const StatusCode code = st.code();
  if (code == StatusCode::kConflict || code == StatusCode::kNotFound ||
      code == StatusCode::kAlreadyExists || code == StatusCode::kForbidden) {
    return Status::Ok();
  }
  return st;
}

inline registry::WriteOptions ControllerWrite(
    const std::string& account,
    const std::string& field_manager = "kube-controller-manager") {
  registry::WriteOptions wo;
  wo.typed_in_process = true;
  wo.user.name = "system:serviceaccount:kube-system:" + account;
  wo.user.groups = {"system:serviceaccounts",
                    "system:serviceaccounts:kube-system",
                    "system:authenticated"};
  wo.field_manager = field_manager;
  return wo;
}

// kube-apiserver's loopback client: user system:apiserver in
// system:masters, under the loop's field manager.
inline registry::WriteOptions ApiServerWrite(const std::string& field_manager) {
  registry::WriteOptions wo;
  wo.typed_in_process = true;
  wo.user.name = "system:apiserver";
  wo.user.groups = {"system:masters", "system:authenticated"};
  wo.field_manager = field_manager;
  return wo;
}

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_CONTROLLER_WRITE_H_
