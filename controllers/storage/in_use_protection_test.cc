// The pvc-protection and pv-protection rules: which pods keep a claim
// (scheduled ones naming it, whatever their phase; ephemeral volumes'
// claims only while the pod controls them and is not shut down), which
// pod changes are worth a look, and when a volume is in use.
#include "controllers/storage/in_use_protection.h"

#include <gtest/gtest.h>

namespace kmock::controllers::storage {
namespace {

json Pod(const std::string& node, json volumes,
         const std::string& phase = "Running") {
  json pod = {
      {"metadata", {{"name", "web"}, {"namespace", "ns"}, {"uid", "pod-uid"}}},
      {"spec", {{"volumes", std::move(volumes)}}},
      {"status", {{"phase", phase}}}};
  if (!node.empty()) pod["spec"]["nodeName"] = node;
  return pod;
}

json ClaimVolume(const std::string& claim) {
  return {{"name", "data"}, {"persistentVolumeClaim", {{"claimName", claim}}}};
}

json EphemeralVolume(const std::string& name) {
  return {{"name", name},
          {"ephemeral", {{"volumeClaimTemplate", json::object()}}}};
}

json Claim(const std::string& name, const std::string& ns = "ns") {
  return {{"metadata", {{"name", name}, {"namespace", ns}}}};
}

TEST(InUseProtection, Finalizers) {
  json obj = {
      {"metadata", {{"finalizers", {"a", "kubernetes.io/pvc-protection"}}}}};
  EXPECT_TRUE(HasFinalizer(obj, "kubernetes.io/pvc-protection"));
  EXPECT_FALSE(NeedsFinalizer(obj, "kubernetes.io/pvc-protection"));
  EXPECT_FALSE(IsDeletionCandidate(obj, "kubernetes.io/pvc-protection"));
  EXPECT_TRUE(NeedsFinalizer(obj, "kubernetes.io/pv-protection"));
  obj["metadata"]["deletionTimestamp"] = "2027-01-15T08:00:00Z";
  EXPECT_TRUE(IsDeletionCandidate(obj, "kubernetes.io/pvc-protection"));
  // Nothing is added to an object on its way out.
  EXPECT_FALSE(NeedsFinalizer(obj, "kubernetes.io/pv-protection"));

  RemoveFinalizer(obj, "kubernetes.io/pvc-protection");
  EXPECT_EQ(obj["metadata"]["finalizers"], json({"a"}));
  AddFinalizer(obj, "b");
  AddFinalizer(obj, "b");
  EXPECT_EQ(obj["metadata"]["finalizers"], json({"a", "b"}));
  json bare = json::object();
  AddFinalizer(bare, "c");
  EXPECT_EQ(bare["metadata"]["finalizers"], json({"c"}));
}

TEST(InUseProtection, PodClaimNames) {
  EXPECT_EQ(PodClaimNames(
                Pod("", {ClaimVolume("data"),
                         EphemeralVolume("scratch"),
                         {{"name", "cfg"}, {"configMap", {{"name", "x"}}}}})),
            (std::vector<std::string>{"data", "web-scratch"}));
  EXPECT_TRUE(PodClaimNames(json::object()).empty());
}

TEST(InUseProtection, ScheduledPodsNamingTheClaimUseIt) {
  EXPECT_TRUE(
      PodUsesClaim(Pod("node-1", {ClaimVolume("data")}), Claim("data")));
  // Not scheduled: the kubelet never starts it.
  EXPECT_FALSE(PodUsesClaim(Pod("", {ClaimVolume("data")}), Claim("data")));
  // Finished pods still hold the claim until they are deleted.
  EXPECT_TRUE(PodUsesClaim(Pod("node-1", {ClaimVolume("data")}, "Succeeded"),
                           Claim("data")));
  EXPECT_TRUE(PodUsesClaim(Pod("node-1", {ClaimVolume("data")}, "Failed"),
                           Claim("data")));
  EXPECT_FALSE(
      PodUsesClaim(Pod("node-1", {ClaimVolume("other")}), Claim("data")));
  EXPECT_FALSE(PodUsesClaim(Pod("node-1", {ClaimVolume("data")}),
                            Claim("data", "elsewhere")));
}

TEST(InUseProtection, EphemeralClaimsNeedTheirPod) {
  json pod = Pod("node-1", {EphemeralVolume("scratch")});
  json claim = Claim("web-scratch");
  // A claim of that name the pod does not control is not its volume.
  EXPECT_FALSE(PodUsesClaim(pod, claim));
  claim["metadata"]["ownerReferences"] = {{{"apiVersion", "v1"},
                                           {"kind", "Pod"},
                                           {"name", "web"},
                                           {"uid", "pod-uid"},
                                           {"controller", true}}};
  EXPECT_TRUE(PodUsesClaim(pod, claim));
  // A pod shut down (deleted with no grace left) lets it go.
  pod["metadata"]["deletionTimestamp"] = "2027-01-15T08:00:00Z";
  pod["metadata"]["deletionGracePeriodSeconds"] = 30;
  EXPECT_TRUE(PodUsesClaim(pod, claim));
  pod["metadata"]["deletionGracePeriodSeconds"] = 0;
  EXPECT_FALSE(PodUsesClaim(pod, claim));
  claim["metadata"]["ownerReferences"][0]["uid"] = "another-pod";
  pod["metadata"].erase("deletionTimestamp");
  EXPECT_FALSE(PodUsesClaim(pod, claim));
}

TEST(InUseProtection, PodChangesWorthALook) {
  EXPECT_TRUE(PodMayReleaseClaims(Pod("", {})));
  EXPECT_FALSE(PodMayReleaseClaims(Pod("node-1", {})));
  EXPECT_TRUE(PodMayReleaseClaims(Pod("node-1", {}, "Succeeded")));
  EXPECT_TRUE(PodMayReleaseClaims(Pod("node-1", {}, "Failed")));
  json deleting = Pod("node-1", {});
  deleting["metadata"]["deletionTimestamp"] = "2027-01-15T08:00:00Z";
  deleting["status"]["containerStatuses"] = {
      {{"name", "c"}, {"state", {{"running", json::object()}}}}};
  EXPECT_FALSE(PodMayReleaseClaims(deleting));
  deleting["status"]["containerStatuses"][0]["state"] = {
      {"terminated", {{"exitCode", 0}}}};
  EXPECT_TRUE(PodMayReleaseClaims(deleting));
}

TEST(InUseProtection, VolumesInUseAreBound) {
  EXPECT_TRUE(VolumeInUse({{"status", {{"phase", "Bound"}}}}));
  for (const char* phase : {"Available", "Released", "Failed", "Pending"}) {
    EXPECT_FALSE(VolumeInUse({{"status", {{"phase", phase}}}})) << phase;
  }
  EXPECT_FALSE(VolumeInUse(json::object()));
}

}  // namespace
}  // namespace kmock::controllers::storage
