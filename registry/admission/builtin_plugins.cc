#include "registry/admission/admission_plugin.h"
#include "registry/admission/default_storage_class.h"
#include "registry/admission/priority.h"

namespace kmock::registry {

std::vector<std::shared_ptr<const AdmissionPlugin>> BuiltinAdmissionPlugins() {
  // kube-apiserver 1.33's order: Priority before DefaultStorageClass.
  return {std::make_shared<PriorityAdmission>(),
          std::make_shared<DefaultStorageClassAdmission>()};
}

}  // namespace kmock::registry
