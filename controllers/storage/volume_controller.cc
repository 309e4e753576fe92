#include "controllers/storage/volume_controller.h"

#include "common/json_view.h"
#include "controllers/controller_write.h"
#include "controllers/storage/volume_binding.h"

namespace kmock::controllers {

using nlohmann::json;
using namespace storage;  // NOLINT: the binding vocabulary of this file

namespace {

EventRecord Event(std::string type, std::string reason, std::string message) {
  return EventRecord{std::move(type), std::move(reason), std::move(message), "",
                     ""};
}

// The persistentvolume-controller's event while a provisioner works.
EventRecord WaitingForProvisioner(const std::string& provisioner) {
  return Event("Normal", "ExternalProvisioning",
               "Waiting for a volume to be created either by the external "
               "provisioner '" +
                   provisioner +
                   "' or manually by the system administrator. If volume "
                   "creation is delayed, please verify that the provisioner "
                   "is running and correctly registered.");
}

constexpr char kClaimPrefix[] = "claim/";
constexpr char kVolumePrefix[] = "volume/";

const std::string& NameOf(const json& obj) {
  return StringAt(ObjectAt(obj, "metadata"), "name");
}

std::string ClaimKeyOfVolume(const json& volume) {
  const json& ref = ObjectAt(ObjectAt(volume, "spec"), "claimRef");
  if (ref.empty()) return "";
  return StringAt(ref, "namespace") + "/" + StringAt(ref, "name");
}

registry::WriteOptions Write() {
  return ControllerWrite("persistent-volume-binder");
}

}  // namespace

VolumeController::VolumeController(registry::Registry* registry,
                                   const Clock* clock, Rng* rng,
                                   const CoreResources& res, Informer* claims,
                                   Informer* volumes, Informer* nodes,
                                   VolumeControllerOptions options)
    : registry_(registry),
      rng_(rng),
      res_(res),
      claims_(claims),
      volumes_(volumes),
      nodes_(nodes),
      options_(std::move(options)),
      queue_(clock),
      loop_("persistentvolume-controller", &queue_, 1,
            [this](const std::string& key) { return Sync(key); }) {
  classes_ = std::make_unique<Informer>(registry_, res_.storageclasses);
  auto queue_claim = [this](const json& claim) {
    queue_.Add(kClaimPrefix + KeyOf(claim));
  };
  claims_->AddHandlers(
      {queue_claim,
       [queue_claim](const json&, const json& claim) { queue_claim(claim); },
       [this](const json& claim) {
         const std::string volume =
             StringAt(ObjectAt(claim, "spec"), "volumeName");
         if (!volume.empty()) queue_.Add(kVolumePrefix + volume);
       }});
  auto queue_volume = [this](const json& volume) {
    queue_.Add(kVolumePrefix + NameOf(volume));
    const std::string claim = ClaimKeyOfVolume(volume);
    if (!claim.empty()) queue_.Add(kClaimPrefix + claim);
  };
  volumes_->AddHandlers({queue_volume,
                         [queue_volume](const json&, const json& volume) {
                           queue_volume(volume);
                         },
                         queue_volume});
  // A class that appears may let waiting claims provision.
  classes_->AddHandlers(
      {[this](const json&) {
         for (const ObjectPtr& c : claims_->List()) {
           if (StringAt(ObjectAt(*c, "spec"), "volumeName").empty())
             queue_.Add(kClaimPrefix + KeyOf(*c));
         }
       },
       nullptr, nullptr});
  EventSource binder;
  binder.component = "persistentvolume-controller";
  binder.host = options_.host;
  events_ = std::make_unique<EventRecorder>(registry_, clock, binder,
                                            options_.event_sink);
  EventSource provisioner;
  provisioner.component =
      std::string(kEbsCsiDriver) + "_ebs-csi-controller-" + rng_->Hex(10);
  provisioner.host = options_.host;
  provisioner_events_ = std::make_unique<EventRecorder>(
      registry_, clock, provisioner, options_.event_sink);
}

VolumeController::~VolumeController() { Stop(); }

void VolumeController::Start() { loop_.Start({classes_.get()}); }

void VolumeController::Stop() { loop_.Stop(); }

Status VolumeController::Sync(const std::string& key) {
  KMOCK_RETURN_IF_ERROR(
      WaitForInformers({claims_, nodes_, volumes_, classes_.get()}));
  if (key.rfind(kClaimPrefix, 0) == 0)
    return SyncClaim(key.substr(sizeof(kClaimPrefix) - 1));
  if (key.rfind(kVolumePrefix, 0) == 0)
    return SyncVolume(key.substr(sizeof(kVolumePrefix) - 1));
  return Status::Ok();
}

Status VolumeController::SyncClaim(const std::string& key) {
  ObjectPtr cached = claims_->Get(key);
  if (cached == nullptr) return Status::Ok();
  const json& claim = *cached;
  if (ObjectAt(claim, "metadata").contains("deletionTimestamp"))
    return Status::Ok();
  const std::string phase = StringAt(ObjectAt(claim, "status"), "phase");
  const std::string volume_name =
      StringAt(ObjectAt(claim, "spec"), "volumeName");
  if (!volume_name.empty()) {
    ObjectPtr volume = volumes_->Get(volume_name);
    if (volume == nullptr) {
      if (phase != "Bound") return Status::Ok();  // waits for the volume
      if (!registry_->Get(*res_.persistentvolumes, "", volume_name).ok()) {
        KMOCK_RETURN_IF_ERROR(WriteStatus(*res_.persistentvolumeclaims, claim,
                                          {{"phase", "Lost"}}));
        return events_->Record(
            claim, Event("Warning", "ClaimLost",
                         "Bound claim has lost its PersistentVolume. "
                         "Data on the volume is lost!"));
      }
      return Status::Ok();
    }
    if (!VolumeFits(*volume, claim) && ClaimKeyOfVolume(*volume) != key)
      return Status::Ok();  // promised elsewhere: the user's to sort out
    return Bind(*volume, claim);
  }

  std::vector<ObjectPtr> volumes = volumes_->List();
  if (ObjectPtr best = BestVolume(volumes, claim)) return Bind(*best, claim);

  const std::string class_name = ClaimClass(claim);
  if (class_name.empty()) {
    return events_->Record(
        claim, Event("Normal", "FailedBinding",
                     "no persistent volumes available for this claim and no "
                     "storage class is set"));
  }
  ObjectPtr storage_class = classes_->Get(class_name);
  if (storage_class == nullptr) {
    return events_->Record(claim, Event("Warning", "ProvisioningFailed",
                                        "storageclass.storage.k8s.io \"" +
                                            class_name + "\" not found"));
  }
  const std::string mode = StringAt(*storage_class, "volumeBindingMode");
  const json& annotations =
      ObjectAt(ObjectAt(claim, "metadata"), "annotations");
  if (mode == "WaitForFirstConsumer" &&
      !annotations.contains(kSelectedNodeAnnotation)) {
    return events_->Record(claim,
                           Event("Normal", "WaitForFirstConsumer",
                                 "waiting for first consumer to be created "
                                 "before binding"));
  }
  const std::string driver = SimulatedDriver(*storage_class);
  const std::string provisioner = StringAt(*storage_class, "provisioner");
  if (driver.empty()) {
    return events_->Record(claim, WaitingForProvisioner(provisioner));
  }
  return Provision(claim, *storage_class, driver);
}

Status VolumeController::Provision(const json& claim, const json& storage_class,
                                   const std::string& driver) {
  const json& meta = ObjectAt(claim, "metadata");
  const std::string ns = StringAt(meta, "namespace");
  const std::string name = StringAt(meta, "name");
  if (!ObjectAt(meta, "annotations").contains(kStorageProvisionerAnnotation)) {
    // The claim says who provisions it first, as upstream's controller
    // does; the update brings the claim back here.
    json annotated = claim;
    annotated["metadata"]["annotations"][kStorageProvisionerAnnotation] =
        driver;
    annotated["metadata"]["annotations"][kBetaStorageProvisionerAnnotation] =
        driver;
    auto written = registry_->Update(*res_.persistentvolumeclaims, ns, name, "",
                                     std::move(annotated), Write());
    if (!written.ok()) return IgnoreRoutineWriteErrors(written.status());
    return events_->Record(claim, WaitingForProvisioner(driver));
  }
  KMOCK_RETURN_IF_ERROR(provisioner_events_->Record(
      claim, Event("Normal", "Provisioning",
                   "External provisioner is provisioning volume for claim \"" +
                       ns + "/" + name + "\"")));
  json volume = ProvisionedVolume(claim, storage_class, driver, ZoneFor(claim),
                                  "vol-" + rng_->Hex(17));
  const std::string volume_name = NameOf(volume);
  auto created =
      registry_->Create(*res_.persistentvolumes, "", std::move(volume),
                        ControllerWrite("ebs-csi-controller-sa"));
  if (!created.ok()) return IgnoreRoutineWriteErrors(created.status());
  return provisioner_events_->Record(
      claim, Event("Normal", "ProvisioningSucceeded",
                   "Successfully provisioned volume " + volume_name));
}

std::string VolumeController::ZoneFor(const json& claim) {
  const std::string node_name =
      StringAt(ObjectAt(ObjectAt(claim, "metadata"), "annotations"),
               kSelectedNodeAnnotation);
  std::vector<ObjectPtr> nodes;
  if (!node_name.empty()) {
    if (ObjectPtr node = nodes_->Get(node_name)) nodes.push_back(node);
  }
  if (nodes.empty()) nodes = nodes_->List();
  if (nodes.empty()) return "";
  const json& node =
      *nodes[nodes.size() == 1 ? 0 : rng_->Next() % nodes.size()];
  return StringAt(ObjectAt(ObjectAt(node, "metadata"), "labels"),
                  "topology.kubernetes.io/zone");
}

Status VolumeController::Bind(const json& volume, const json& claim) {
  const std::string claim_key = KeyOf(claim);
  const json& vmeta = ObjectAt(volume, "metadata");
  const std::string volume_name = StringAt(vmeta, "name");
  // The volume first: its claimRef is the promise the claim then keeps.
  const json& ref = ObjectAt(ObjectAt(volume, "spec"), "claimRef");
  json bound_volume = volume;
  if (ref.empty() ||
      StringAt(ref, "uid") != StringAt(ObjectAt(claim, "metadata"), "uid")) {
    auto written = registry_->Update(*res_.persistentvolumes, "", volume_name,
                                     "", BindVolume(volume, claim), Write());
    if (!written.ok()) return IgnoreRoutineWriteErrors(written.status());
    bound_volume = written->object;
  }
  if (StringAt(ObjectAt(bound_volume, "status"), "phase") != "Bound") {
    KMOCK_RETURN_IF_ERROR(WriteStatus(*res_.persistentvolumes, bound_volume,
                                      {{"phase", "Bound"}}));
  }
  json bound_claim = claim;
  const json& annotations =
      ObjectAt(ObjectAt(claim, "metadata"), "annotations");
  if (StringAt(ObjectAt(claim, "spec"), "volumeName") != volume_name ||
      !annotations.contains(kBindCompletedAnnotation)) {
    std::string ns, name;
    SplitKey(claim_key, &ns, &name);
    auto written = registry_->Update(*res_.persistentvolumeclaims, ns, name, "",
                                     BindClaim(claim, bound_volume), Write());
    if (!written.ok()) return IgnoreRoutineWriteErrors(written.status());
    bound_claim = written->object;
  }
  json status = BoundClaimStatus(bound_volume);
  const json& current = ObjectAt(bound_claim, "status");
  if (StringAt(current, "phase") == "Bound" &&
      ValueAt(current, "capacity") == status["capacity"]) {
    return Status::Ok();
  }
  return WriteStatus(*res_.persistentvolumeclaims, bound_claim,
                     std::move(status));
}

Status VolumeController::SyncVolume(const std::string& name) {
  ObjectPtr cached = volumes_->Get(name);
  if (cached == nullptr) return Status::Ok();
  const json& volume = *cached;
  const std::string phase = StringAt(ObjectAt(volume, "status"), "phase");
  const std::string claim_key = ClaimKeyOfVolume(volume);
  if (claim_key.empty()) {
    if (phase == "Available" || phase == "Failed") return Status::Ok();
    return WriteStatus(*res_.persistentvolumes, volume,
                       {{"phase", "Available"}});
  }
  const std::string uid =
      StringAt(ObjectAt(ObjectAt(volume, "spec"), "claimRef"), "uid");
  ObjectPtr claim = claims_->Get(claim_key);
  if (claim != nullptr &&
      (uid.empty() || uid == StringAt(ObjectAt(*claim, "metadata"), "uid"))) {
    return Status::Ok();  // the claim's sync binds both sides
  }
  // The cache may be behind a claim made just now: ask the store.
  std::string ns, claim_name;
  SplitKey(claim_key, &ns, &claim_name);
  auto live = registry_->Get(*res_.persistentvolumeclaims, ns, claim_name);
  if (live.ok() &&
      (uid.empty() || uid == StringAt(ObjectAt(*live, "metadata"), "uid"))) {
    return Status::Ok();
  }
  if (phase != "Released" && phase != "Failed") {
    KMOCK_RETURN_IF_ERROR(
        WriteStatus(*res_.persistentvolumes, volume, {{"phase", "Released"}}));
  }
  const bool ours =
      !SimulatedDriver(
           {{"provisioner",
             StringAt(ObjectAt(ObjectAt(volume, "metadata"), "annotations"),
                      kProvisionedByAnnotation)}})
           .empty();
  if (StringAt(ObjectAt(volume, "spec"), "persistentVolumeReclaimPolicy") ==
          "Delete" &&
      ours) {
    auto deleted = registry_->Delete(*res_.persistentvolumes, "", name, {});
    if (!deleted.ok()) return IgnoreRoutineWriteErrors(deleted.status());
  }
  return Status::Ok();
}

Status VolumeController::WriteStatus(const api::ResourceInfo& res,
                                     const json& obj, json status) {
  const json& meta = ObjectAt(obj, "metadata");
  json updated = obj;
  updated["status"] = std::move(status);
  auto written = registry_->Update(res, StringAt(meta, "namespace"),
                                   StringAt(meta, "name"), "status",
                                   std::move(updated), Write());
  return written.ok() ? Status::Ok()
                      : IgnoreRoutineWriteErrors(written.status());
}

}  // namespace kmock::controllers
