#include "controllers/storage/pv_protection_controller.h"

#include <functional>

#include "common/json_view.h"
#include "controllers/controller_write.h"
#include "controllers/storage/in_use_protection.h"
#include "registry/admission/storage_object_in_use_protection.h"

namespace kmock::controllers {

using nlohmann::json;
using registry::kPvProtectionFinalizer;

namespace {

registry::WriteOptions Write() {
  return ControllerWrite("pv-protection-controller");
}

const std::string& UidOf(const json& obj) {
  return StringAt(ObjectAt(obj, "metadata"), "uid");
}

}  // namespace

PvProtectionController::PvProtectionController(registry::Registry* registry,
                                               const Clock* clock,
                                               Informer* volumes)
    : registry_(registry),
      volumes_(volumes),
      queue_(clock),
      loop_("pv-protection", &queue_, 1,
            [this](const std::string& name) { return Sync(name); }) {
  auto queue_volume = [this](const json& volume) {
    if (storage::NeedsFinalizer(volume, kPvProtectionFinalizer) ||
        storage::IsDeletionCandidate(volume, kPvProtectionFinalizer)) {
      queue_.Add(KeyOf(volume));
    }
  };
  volumes_->AddHandlers({queue_volume,
                         [queue_volume](const json&, const json& volume) {
                           queue_volume(volume);
                         },
                         nullptr});
}

PvProtectionController::~PvProtectionController() { Stop(); }

void PvProtectionController::Start() { loop_.Start({}); }

void PvProtectionController::Stop() { loop_.Stop(); }

Status PvProtectionController::Sync(const std::string& name) {
  KMOCK_RETURN_IF_ERROR(WaitForInformers({volumes_}));
  ObjectPtr cached = volumes_->Get(name);
  if (cached == nullptr) return Status::Ok();
  const json& volume = *cached;
  const std::string uid = UidOf(volume);
  std::function<Status(json&)> mutate;
  if (storage::IsDeletionCandidate(volume, kPvProtectionFinalizer)) {
    if (storage::VolumeInUse(volume)) return Status::Ok();
    mutate = [&uid](json& live) -> Status {
      // Decided on the live object: it may have been bound meanwhile.
      if (UidOf(live) != uid || storage::VolumeInUse(live)) {
        return Status(StatusCode::kNotFound, "the volume changed");
      }
      storage::RemoveFinalizer(live, kPvProtectionFinalizer);
      return Status::Ok();
    };
  } else if (storage::NeedsFinalizer(volume, kPvProtectionFinalizer)) {
    // A volume made before the admission plugin added the finalizer.
    mutate = [&uid](json& live) -> Status {
      if (UidOf(live) != uid) {
        return Status(StatusCode::kNotFound, "the volume was replaced");
      }
      if (storage::NeedsFinalizer(live, kPvProtectionFinalizer)) {
        storage::AddFinalizer(live, kPvProtectionFinalizer);
      }
      return Status::Ok();
    };
  } else {
    return Status::Ok();
  }
  auto written = registry_->GuaranteedUpdate(*volumes_->resource(), "", name,
                                             "", mutate, Write());
  return written.ok() ? Status::Ok()
                      : IgnoreRoutineWriteErrors(written.status());
}

}  // namespace kmock::controllers
