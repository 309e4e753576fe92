// Which volume a claim binds to, and the provisioned volume's shape.
#include "controllers/storage/volume_binding.h"

#include <gtest/gtest.h>

namespace kmock::controllers::storage {
namespace {

json Claim(const std::string& size, json modes = {"ReadWriteOnce"},
           const std::string& cls = "gp2") {
  return {{"metadata",
           {{"name", "data"}, {"namespace", "default"}, {"uid", "u-1"}}},
          {"spec",
           {{"accessModes", modes},
            {"storageClassName", cls},
            {"resources", {{"requests", {{"storage", size}}}}}}}};
}

ObjectPtr Volume(const std::string& name, const std::string& size,
                 json modes = {"ReadWriteOnce"}, const std::string& cls = "gp2",
                 const std::string& phase = "Available") {
  return std::make_shared<const json>(
      json{{"metadata", {{"name", name}}},
           {"spec",
            {{"accessModes", modes},
             {"storageClassName", cls},
             {"capacity", {{"storage", size}}}}},
           {"status", {{"phase", phase}}}});
}

TEST(VolumeBindingTest, PicksTheSmallestVolumeThatFits) {
  std::vector<ObjectPtr> volumes = {
      Volume("big", "100Gi"),
      Volume("small", "1Gi"),
      Volume("right", "5Gi"),
      Volume("other-class", "5Gi", {"ReadWriteOnce"}, "fast"),
      Volume("rox", "5Gi", {"ReadOnlyMany"}),
      Volume("taken", "5Gi", {"ReadWriteOnce"}, "gp2", "Bound")};
  ObjectPtr best = BestVolume(volumes, Claim("4Gi"));
  ASSERT_NE(best, nullptr);
  EXPECT_EQ((*best)["metadata"]["name"], "right");
  EXPECT_EQ(BestVolume(volumes, Claim("200Gi")), nullptr);
  EXPECT_EQ(BestVolume(volumes, Claim("1Gi", {"ReadWriteMany"})), nullptr);
}

TEST(VolumeBindingTest, AVolumePromisedToTheClaimWins) {
  json promised =
      *Volume("promised", "10Gi", {"ReadWriteOnce"}, "gp2", "Pending");
  promised["spec"]["claimRef"] = {{"namespace", "default"}, {"name", "data"}};
  json elsewhere = promised;
  elsewhere["metadata"]["name"] = "elsewhere";
  elsewhere["spec"]["claimRef"]["name"] = "other";
  std::vector<ObjectPtr> volumes = {Volume("small", "5Gi"),
                                    std::make_shared<const json>(elsewhere),
                                    std::make_shared<const json>(promised)};
  EXPECT_EQ((*BestVolume(volumes, Claim("4Gi")))["metadata"]["name"],
            "promised");
}

TEST(VolumeBindingTest, BindsBothSides) {
  json volume = BindVolume(*Volume("pv", "5Gi"), Claim("4Gi"));
  EXPECT_EQ(volume["spec"]["claimRef"]["uid"], "u-1");
  EXPECT_EQ(volume["metadata"]["annotations"][kBoundByControllerAnnotation],
            "yes");
  json claim = BindClaim(Claim("4Gi"), volume);
  EXPECT_EQ(claim["spec"]["volumeName"], "pv");
  EXPECT_EQ(claim["metadata"]["annotations"][kBindCompletedAnnotation], "yes");
  EXPECT_EQ(BoundClaimStatus(volume),
            (json{{"phase", "Bound"},
                  {"accessModes", {"ReadWriteOnce"}},
                  {"capacity", {{"storage", "5Gi"}}}}));
}

TEST(VolumeBindingTest, ProvisionsInTheZoneAskedFor) {
  json sc = {{"provisioner", "kubernetes.io/aws-ebs"},
             {"reclaimPolicy", "Delete"},
             {"parameters", {{"fsType", "xfs"}}}};
  EXPECT_EQ(SimulatedDriver(sc), kEbsCsiDriver);
  EXPECT_EQ(SimulatedDriver({{"provisioner", "example.com/nfs"}}), "");
  json pv = ProvisionedVolume(Claim("4Gi"), sc, kEbsCsiDriver, "us-east-1b",
                              "vol-0123");
  EXPECT_EQ(pv["metadata"]["name"], "pvc-u-1");
  EXPECT_EQ(pv["spec"]["capacity"]["storage"], "4Gi");
  EXPECT_EQ(pv["spec"]["csi"]["fsType"], "xfs");
  EXPECT_EQ(pv["spec"]["persistentVolumeReclaimPolicy"], "Delete");
  EXPECT_EQ(pv["spec"]["claimRef"]["name"], "data");
  EXPECT_EQ(pv["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"][0]
              ["matchExpressions"][0]["values"],
            json({"us-east-1b"}));
  // The claim it was made for fits it.
  EXPECT_TRUE(VolumeFits(pv, Claim("4Gi")));
}

}  // namespace
}  // namespace kmock::controllers::storage
