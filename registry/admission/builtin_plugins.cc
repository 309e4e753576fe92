#include "registry/admission/admission_plugin.h"
#include "registry/admission/default_storage_class.h"

namespace kmock::registry {

std::vector<std::shared_ptr<const AdmissionPlugin>> BuiltinAdmissionPlugins() {
  return {std::make_shared<DefaultStorageClassAdmission>()};
}

}  // namespace kmock::registry
