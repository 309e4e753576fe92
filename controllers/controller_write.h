// How kube-controller-manager's controllers write: typed in-process writes
// as the service account kube-system/<account> (its groups included), with
// the field manager "kube-controller-manager" unless another component's
// (the cloud-controller-manager's) is named.
//
// Thread safety: a pure function.
#ifndef KMOCK_CONTROLLERS_CONTROLLER_WRITE_H_
#define KMOCK_CONTROLLERS_CONTROLLER_WRITE_H_

#include <string>

#include "registry/registry.h"

namespace kmock::controllers {

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

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_CONTROLLER_WRITE_H_
