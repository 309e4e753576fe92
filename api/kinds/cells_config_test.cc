#include <gtest/gtest.h>

#include "api/builtin_catalog.h"
#include "api/kinds/util.h"

namespace kmock::api::kinds {
namespace {

using Row = std::vector<json>;

TimePoint At(const std::string& ts) {
  TimePoint t;
  EXPECT_TRUE(ParseRfc3339(ts, &t));
  return t;
}

const TimePoint kNow = At("2024-05-01T00:01:00Z");

json Meta(const std::string& name) {
  return {{"name", name}, {"creationTimestamp", "2024-05-01T00:00:00Z"}};
}

TEST(EndpointsCellsTest, NoSubsetsIsNone) {
  json ep = {{"metadata", Meta("web")}};
  EXPECT_EQ(testing::RowOf("", "endpoints", ep, kNow),
            (Row{"web", "<none>", "60s"}));
  ep["subsets"] = json::array();
  EXPECT_EQ(testing::RowOf("", "endpoints", ep, kNow)[1], "<none>");
}

TEST(EndpointsCellsTest, ReadyAddressesWithPorts) {
  json ep = {{"metadata", Meta("web")},
             {"subsets",
              {{{"addresses", {{{"ip", "10.0.0.1"}}, {{"ip", "fd00::2"}}}},
                {"notReadyAddresses", {{{"ip", "10.0.0.9"}}}},
                {"ports", {{{"name", "http"}, {"port", 80}}}}}}}};
  EXPECT_EQ(testing::RowOf("", "endpoints", ep, kNow),
            (Row{"web", "10.0.0.1:80,[fd00::2]:80", "60s"}));
}

TEST(EndpointsCellsTest, FirstThreeThenCountOfTheRest) {
  json ep = {{"metadata", Meta("web")},
             {"subsets",
              {{{"addresses", {{{"ip", "10.0.0.1"}}, {{"ip", "10.0.0.2"}}}},
                {"ports", {{{"port", 80}}, {{"port", 443}}}}},
               {{"addresses", {{{"ip", "10.0.1.1"}}}}}}}};
  // 2 addresses x 2 ports + 1 headless address = 5, 3 shown.
  EXPECT_EQ(testing::RowOf("", "endpoints", ep, kNow)[1],
            "10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 2 more...");
}

TEST(EndpointsCellsTest, SubsetWithoutAddressesIsEmpty) {
  json ep = {{"metadata", Meta("web")},
             {"subsets", {{{"ports", {{{"port", 80}}}}}}}};
  EXPECT_EQ(testing::RowOf("", "endpoints", ep, kNow)[1], "");
}

TEST(PersistentVolumeCellsTest, FullVolume) {
  json pv = {{"metadata",
              {{"name", "pv1"},
               {"creationTimestamp", "2024-05-01T00:00:00Z"},
               {"annotations",
                {{"volume.beta.kubernetes.io/storage-class", "legacy"}}}}},
             {"spec",
              {{"capacity", {{"storage", "10Gi"}}},
               {"accessModes",
                {"ReadWriteOncePod", "ReadWriteMany", "ReadWriteOnce",
                 "ReadOnlyMany", "ReadWriteOnce"}},
               {"persistentVolumeReclaimPolicy", "Retain"},
               {"claimRef", {{"namespace", "default"}, {"name", "data"}}},
               {"storageClassName", "fast"},
               {"volumeAttributesClassName", "gold"},
               {"volumeMode", "Block"}}},
             {"status", {{"phase", "Failed"}, {"reason", "Recycler"}}}};
  EXPECT_EQ(
      testing::RowOf("", "persistentvolumes", pv, kNow),
      (Row{"pv1", "10Gi", "RWO,ROX,RWX,RWOP", "Retain", "Failed",
           "default/data", "legacy", "gold", "Recycler", "60s", "Block"}));
}

TEST(PersistentVolumeCellsTest, BareVolume) {
  json pv = {{"metadata",
              {{"name", "pv2"},
               {"creationTimestamp", "2024-05-01T00:00:00Z"},
               {"deletionTimestamp", "2024-05-01T00:00:30Z"}}},
             {"spec", {{"storageClassName", "fast"}}},
             {"status", {{"phase", "Bound"}}}};
  EXPECT_EQ(testing::RowOf("", "persistentvolumes", pv, kNow),
            (Row{"pv2", "0", "", "", "Terminating", "", "fast", "<unset>", "",
                 "60s", "<unset>"}));
}

TEST(PersistentVolumeClaimCellsTest, BoundClaim) {
  json pvc = {{"metadata", Meta("data")},
              {"spec",
               {{"volumeName", "pv1"},
                {"storageClassName", "fast"},
                {"volumeMode", "Filesystem"},
                {"resources", {{"requests", {{"storage", "1Gi"}}}}}}},
              {"status",
               {{"phase", "Bound"},
                {"capacity", {{"storage", "10Gi"}}},
                {"accessModes", {"ReadWriteMany", "ReadWriteOnce"}}}}};
  EXPECT_EQ(testing::RowOf("", "persistentvolumeclaims", pvc, kNow),
            (Row{"data", "Bound", "pv1", "10Gi", "RWO,RWX", "fast", "<unset>",
                 "60s", "Filesystem"}));
}

TEST(PersistentVolumeClaimCellsTest, UnboundClaimHidesCapacityAndModes) {
  json pvc = {{"metadata",
               {{"name", "data"},
                {"creationTimestamp", "2024-05-01T00:00:00Z"},
                {"deletionTimestamp", "2024-05-01T00:00:30Z"},
                {"annotations",
                 {{"volume.beta.kubernetes.io/storage-class", "legacy"}}}}},
              {"spec",
               {{"storageClassName", "fast"},
                {"volumeAttributesClassName", "gold"},
                {"resources", {{"requests", {{"storage", "1Gi"}}}}}}},
              {"status",
               {{"phase", "Pending"},
                {"capacity", {{"storage", "10Gi"}}},
                {"accessModes", {"ReadWriteOnce"}}}}};
  EXPECT_EQ(testing::RowOf("", "persistentvolumeclaims", pvc, kNow),
            (Row{"data", "Terminating", "", "", "", "legacy", "gold", "60s",
                 "<unset>"}));
}

TEST(PersistentVolumeClaimCellsTest, BoundWithoutStatusCapacity) {
  json pvc = {{"metadata", Meta("data")}, {"spec", {{"volumeName", "pv1"}}}};
  EXPECT_EQ(testing::RowOf("", "persistentvolumeclaims", pvc, kNow),
            (Row{"data", "", "pv1", "0", "", "", "<unset>", "60s", "<unset>"}));
}

TEST(PodTemplateCellsTest, LabelsSortedOrNone) {
  json pt = {{"metadata", Meta("tpl")},
             {"template",
              {{"metadata", {{"labels", {{"tier", "web"}, {"app", "shop"}}}}},
               {"spec",
                {{"containers",
                  {{{"name", "a"}, {"image", "nginx"}},
                   {{"name", "b"}, {"image", "busybox"}}}}}}}}};
  EXPECT_EQ(testing::RowOf("", "podtemplates", pt, kNow),
            (Row{"tpl", "a,b", "nginx,busybox", "app=shop,tier=web"}));
  pt["template"]["metadata"].erase("labels");
  EXPECT_EQ(testing::RowOf("", "podtemplates", pt, kNow)[3], "<none>");
}

TEST(ReplicationControllerCellsTest, SelectorSortedOrNone) {
  json rc = {
      {"metadata", Meta("rc")},
      {"spec",
       {{"replicas", 2},
        {"selector", {{"b", "2"}, {"a", "1"}}},
        {"template",
         {{"spec", {{"containers", {{{"name", "c"}, {"image", "i"}}}}}}}}}},
      {"status", {{"replicas", 2}, {"readyReplicas", 1}}}};
  EXPECT_EQ(testing::RowOf("", "replicationcontrollers", rc, kNow),
            (Row{"rc", 2, 2, 1, "60s", "c", "i", "a=1,b=2"}));
  rc["spec"]["selector"] = json::object();
  EXPECT_EQ(testing::RowOf("", "replicationcontrollers", rc, kNow)[7],
            "<none>");
}

TEST(ResourceQuotaCellsTest, RequestsAndLimitsFromStatus) {
  json quota = {{"metadata", Meta("q")},
                {"spec", {{"hard", {{"pods", "99"}}}}},
                {"status",
                 {{"hard",
                   {{"pods", "10"},
                    {"limits.memory", "2Gi"},
                    {"limits.cpu", "4"},
                    {"requests.cpu", "2"},
                    {"limits", "1"}}},
                  {"used", {{"pods", "3"}, {"limits.cpu", "500m"}}}}}};
  EXPECT_EQ(testing::RowOf("", "resourcequotas", quota, kNow),
            (Row{"q", "60s", "limits: 0/1, pods: 3/10, requests.cpu: 0/2",
                 "limits.cpu: 500m/4, limits.memory: 0/2Gi"}));
}

TEST(ResourceQuotaCellsTest, SpecHardUntilStatusIsWritten) {
  json quota = {{"metadata", Meta("q")},
                {"spec", {{"hard", {{"pods", 5}, {"limits.cpu", "1"}}}}}};
  EXPECT_EQ(testing::RowOf("", "resourcequotas", quota, kNow),
            (Row{"q", "60s", "pods: 0/5", "limits.cpu: 0/1"}));
  quota["spec"].erase("hard");
  EXPECT_EQ(testing::RowOf("", "resourcequotas", quota, kNow),
            (Row{"q", "60s", "", ""}));
}

}  // namespace
}  // namespace kmock::api::kinds
