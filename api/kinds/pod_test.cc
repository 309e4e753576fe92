#include "api/kinds/pod.h"

#include <gtest/gtest.h>

#include "api/builtin_catalog.h"
#include "api/kinds/util.h"

namespace kmock::api::kinds {
namespace {

TimePoint At(const std::string& ts) {
  TimePoint t;
  EXPECT_TRUE(ParseRfc3339(ts, &t));
  return t;
}

const char kNow[] = "2024-05-01T12:00:00Z";

json BasePod() {
  return json::parse(R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "hello", "namespace": "default",
                 "creationTimestamp": "2024-05-01T11:50:00Z"},
    "spec": {"containers": [{"name": "c", "image": "nginx"}]}
  })");
}

std::vector<std::string> Messages(const FieldErrors& errs) {
  std::vector<std::string> out;
  for (const auto& c : errs.causes()) out.push_back(c.field + ": " + c.message);
  return out;
}

TEST(PodTableTest, PendingUnscheduled) {
  json pod = BasePod();
  pod["status"] = {{"phase", "Pending"}};
  auto cells = testing::RowOf("", "pods", pod, At(kNow));
  EXPECT_EQ(cells, (std::vector<json>{"hello", "0/1", "Pending", "0", "10m",
                                      "<none>", "<none>", "<none>", "<none>"}));
  EXPECT_EQ(testing::ColumnsOf("", "pods").size(), cells.size());
}

TEST(PodTableTest, ContainerCreating) {
  json pod = BasePod();
  pod["spec"]["nodeName"] = "node-1";
  pod["status"] = json::parse(R"({"phase": "Pending", "containerStatuses": [
      {"name": "c", "ready": false, "restartCount": 0,
       "state": {"waiting": {"reason": "ContainerCreating"}}}]})");
  EXPECT_EQ(PodStatusReason(pod), "ContainerCreating");
  EXPECT_EQ(testing::RowOf("", "pods", pod, At(kNow))[6], "node-1");
}

TEST(PodTableTest, RunningWithRestartsAndIp) {
  json pod = BasePod();
  pod["status"] = json::parse(R"({"phase": "Running",
      "podIPs": [{"ip": "10.0.0.5"}],
      "conditions": [{"type": "Ready", "status": "True"}],
      "containerStatuses": [
      {"name": "c", "ready": true, "restartCount": 3,
       "state": {"running": {"startedAt": "2024-05-01T11:56:00Z"}},
       "lastState": {"terminated": {"exitCode": 1,
                     "finishedAt": "2024-05-01T11:55:00Z"}}}]})");
  auto cells = testing::RowOf("", "pods", pod, At(kNow));
  EXPECT_EQ(cells[1], "1/1");
  EXPECT_EQ(cells[2], "Running");
  EXPECT_EQ(cells[3], "3 (5m ago)");
  EXPECT_EQ(cells[5], "10.0.0.5");
}

TEST(PodTableTest, CompletedErrorAndCrashLoop) {
  json pod = BasePod();
  pod["status"] = json::parse(R"({"phase": "Succeeded", "containerStatuses": [
      {"name": "c", "ready": false, "restartCount": 0,
       "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}}]})");
  EXPECT_EQ(PodStatusReason(pod), "Completed");
  pod["status"]["containerStatuses"][0]["state"]["terminated"] = {
      {"exitCode", 2}, {"reason", "Error"}};
  EXPECT_EQ(PodStatusReason(pod), "Error");
  pod["status"]["containerStatuses"][0]["state"] = {
      {"terminated", {{"exitCode", 137}, {"signal", 9}}}};
  EXPECT_EQ(PodStatusReason(pod), "Signal:9");
  pod["status"]["containerStatuses"][0]["state"] = {
      {"waiting", {{"reason", "CrashLoopBackOff"}}}};
  EXPECT_EQ(PodStatusReason(pod), "CrashLoopBackOff");
}

TEST(PodTableTest, InitContainers) {
  json pod = BasePod();
  pod["spec"]["initContainers"] = {{{"name", "i1"}, {"image", "busybox"}},
                                   {{"name", "i2"}, {"image", "busybox"}}};
  pod["status"] = json::parse(R"({"phase": "Pending", "initContainerStatuses": [
      {"name": "i1", "state": {"terminated": {"exitCode": 0}}},
      {"name": "i2", "state": {"running": {}}}]})");
  EXPECT_EQ(PodStatusReason(pod), "Init:1/2");
  pod["status"]["initContainerStatuses"][1]["state"] = {
      {"waiting", {{"reason", "ImagePullBackOff"}}}};
  EXPECT_EQ(PodStatusReason(pod), "Init:ImagePullBackOff");
  pod["status"]["initContainerStatuses"][1]["state"] = {
      {"terminated", {{"exitCode", 3}}}};
  EXPECT_EQ(PodStatusReason(pod), "Init:ExitCode:3");
}

TEST(PodTableTest, SidecarCountsTowardsReady) {
  json pod = BasePod();
  pod["spec"]["initContainers"] = {
      {{"name", "side"}, {"image", "b"}, {"restartPolicy", "Always"}}};
  pod["status"] = json::parse(R"({"phase": "Running",
      "conditions": [{"type": "Initialized", "status": "True"}],
      "initContainerStatuses": [{"name": "side", "ready": true, "started": true,
         "restartCount": 1, "state": {"running": {}}}],
      "containerStatuses": [{"name": "c", "ready": true, "restartCount": 0,
         "state": {"running": {}}}]})");
  auto cells = testing::RowOf("", "pods", pod, At(kNow));
  EXPECT_EQ(cells[1], "2/2");
  EXPECT_EQ(cells[2], "Running");
  EXPECT_EQ(cells[3], "1");
}

TEST(PodTableTest, TerminatingAndNodeLost) {
  json pod = BasePod();
  pod["status"] = {{"phase", "Running"}};
  pod["metadata"]["deletionTimestamp"] = "2024-05-01T11:59:00Z";
  EXPECT_EQ(PodStatusReason(pod), "Terminating");
  pod["status"]["reason"] = "NodeLost";
  EXPECT_EQ(PodStatusReason(pod), "Unknown");
  pod["status"] = {{"phase", "Succeeded"}};
  EXPECT_EQ(PodStatusReason(pod), "Succeeded");
}

TEST(PodTableTest, ReadinessGatesAndNoTimestamp) {
  json pod = BasePod();
  pod["metadata"].erase("creationTimestamp");
  pod["spec"]["readinessGates"] = {{{"conditionType", "a"}},
                                   {{"conditionType", "b"}}};
  pod["status"] = {{"phase", "Running"},
                   {"conditions", {{{"type", "a"}, {"status", "True"}}}}};
  auto cells = testing::RowOf("", "pods", pod, At(kNow));
  EXPECT_EQ(cells[4], "<unknown>");
  EXPECT_EQ(cells[8], "1/2");
}

TEST(PodFieldsTest, SelectableValues) {
  json pod = BasePod();
  DefaultPod(pod);
  pod["spec"]["nodeName"] = "n1";
  pod["status"] = {{"phase", "Running"}, {"podIPs", {{{"ip", "10.1.1.1"}}}}};
  std::map<std::string, std::string> got;
  for (const auto& f : PodSelectableFields()) got[f.name] = f.value(pod);
  EXPECT_EQ(got["spec.nodeName"], "n1");
  EXPECT_EQ(got["spec.restartPolicy"], "Always");
  EXPECT_EQ(got["spec.schedulerName"], "default-scheduler");
  EXPECT_EQ(got["spec.hostNetwork"], "false");
  EXPECT_EQ(got["status.phase"], "Running");
  EXPECT_EQ(got["status.podIP"], "10.1.1.1");
  EXPECT_EQ(got["status.nominatedNodeName"], "");
}

TEST(PodDefaultsTest, GoldenCreate) {
  json pod = json::parse(R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "hello", "namespace": "default", "uid": "u-1"},
    "spec": {
      "containers": [{"name": "c", "image": "nginx:1.25",
        "ports": [{"containerPort": 80}],
        "env": [{"name": "NS", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}}],
        "readinessProbe": {"httpGet": {"port": 80}},
        "volumeMounts": [{"name": "data", "mountPath": "/data"}]}],
      "volumes": [{"name": "data", "emptyDir": {}},
                  {"name": "cfg", "configMap": {"name": "x"}},
                  {"name": "h", "hostPath": {"path": "/tmp"}},
                  {"name": "bare"}]
    }})");
  PodStrategy()->PrepareForCreate(pod);
  PodStrategy()->Default(pod);
  std::string suffix = TokenVolumeSuffix(pod);
  ASSERT_EQ(suffix.size(), 5u);
  json expected_spec = json::parse(R"({
    "containers": [{"name": "c", "image": "nginx:1.25",
      "imagePullPolicy": "IfNotPresent",
      "ports": [{"containerPort": 80, "protocol": "TCP"}],
      "env": [{"name": "NS", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}}],
      "readinessProbe": {"httpGet": {"port": 80, "path": "/", "scheme": "HTTP"},
        "timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3},
      "resources": {},
      "terminationMessagePath": "/dev/termination-log",
      "terminationMessagePolicy": "File",
      "volumeMounts": [{"name": "data", "mountPath": "/data"},
        {"name": "kube-api-access-SUFFIX", "readOnly": true,
         "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}]}],
    "volumes": [{"name": "data", "emptyDir": {}},
      {"name": "cfg", "configMap": {"name": "x", "defaultMode": 420}},
      {"name": "h", "hostPath": {"path": "/tmp", "type": ""}},
      {"name": "bare", "emptyDir": {}},
      {"name": "kube-api-access-SUFFIX", "projected": {"defaultMode": 420, "sources": [
        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
        {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
        {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}}]}}],
    "restartPolicy": "Always",
    "dnsPolicy": "ClusterFirst",
    "schedulerName": "default-scheduler",
    "terminationGracePeriodSeconds": 30,
    "securityContext": {},
    "enableServiceLinks": true,
    "serviceAccountName": "default",
    "serviceAccount": "default",
    "tolerations": [
      {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
      {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}]
  })");
  std::string text = expected_spec.dump();
  for (size_t p; (p = text.find("SUFFIX")) != std::string::npos;) {
    text.replace(p, 6, suffix);
  }
  EXPECT_EQ(pod["spec"], json::parse(text)) << pod["spec"].dump(2);
  EXPECT_EQ(pod["status"],
            (json{{"phase", "Pending"}, {"qosClass", "BestEffort"}}));
  EXPECT_EQ(pod["metadata"]["generation"], 1);
  // Defaulting again changes nothing.
  json again = pod;
  PodStrategy()->Default(again);
  EXPECT_EQ(again, pod);
}

TEST(PodDefaultsTest, PullPolicyAndQos) {
  json pod = BasePod();
  pod["spec"]["containers"] = {
      {{"name", "a"}, {"image", "nginx"}},
      {{"name", "b"}, {"image", "nginx:latest"}},
      {{"name", "c"}, {"image", "registry:5000/x"}},
      {{"name", "d"}, {"image", "x@sha256:abc"}},
      {{"name", "e"},
       {"image", "x:1"},
       {"resources", {{"limits", {{"cpu", "1"}, {"memory", "1Gi"}}}}}}};
  DefaultPod(pod);
  const json& cs = pod["spec"]["containers"];
  EXPECT_EQ(cs[0]["imagePullPolicy"], "Always");
  EXPECT_EQ(cs[1]["imagePullPolicy"], "Always");
  EXPECT_EQ(cs[2]["imagePullPolicy"], "Always");
  EXPECT_EQ(cs[3]["imagePullPolicy"], "IfNotPresent");
  EXPECT_EQ(cs[4]["resources"]["requests"], cs[4]["resources"]["limits"]);
  EXPECT_EQ(PodQosClass(pod), "Burstable");
  json g = BasePod();
  g["spec"]["containers"][0]["resources"] = {
      {"limits", {{"cpu", "500m"}, {"memory", "128Mi"}}}};
  DefaultPod(g);
  EXPECT_EQ(PodQosClass(g), "Guaranteed");
}

TEST(PodDefaultsTest, NoTokenWhenAutomountOff) {
  json pod = BasePod();
  pod["spec"]["automountServiceAccountToken"] = false;
  pod["spec"]["serviceAccountName"] = "builder";
  AdmitPod(pod, "abcde");
  EXPECT_FALSE(pod["spec"].contains("volumes"));
  EXPECT_EQ(pod["spec"]["serviceAccount"], "builder");
}

TEST(PodValidationTest, MessagesVerbatim) {
  json pod = json::parse(R"({
    "metadata": {"name": "hello", "namespace": "default"},
    "spec": {
      "restartPolicy": "Sometimes", "dnsPolicy": "ClusterFirst",
      "volumes": [{"name": "v", "emptyDir": {}}, {"name": "v", "emptyDir": {}}],
      "containers": [
        {"name": "c", "imagePullPolicy": "Foo", "terminationMessagePolicy": "File",
         "ports": [{"containerPort": 70000, "protocol": "HTTP"}],
         "volumeMounts": [{"name": "x", "mountPath": "/x"}],
         "resources": {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}},
        {"name": "c", "image": "i", "imagePullPolicy": "Always", "terminationMessagePolicy": "File"}]
    }})");
  FieldErrors errs;
  ValidatePod(pod, &errs);
  EXPECT_EQ(
      Messages(errs),
      (std::vector<std::string>{
          "spec.volumes[1].name: Duplicate value: \"v\"",
          "spec.containers[0].image: Required value",
          "spec.containers[0].ports[0].containerPort: Invalid value: 70000: "
          "must be between 1 and 65535, inclusive",
          "spec.containers[0].ports[0].protocol: Unsupported value: \"HTTP\": "
          "supported values: \"SCTP\", \"TCP\", \"UDP\"",
          "spec.containers[0].volumeMounts[0].name: Not found: \"x\"",
          "spec.containers[0].imagePullPolicy: Unsupported value: \"Foo\": "
          "supported values: \"Always\", \"IfNotPresent\", \"Never\"",
          "spec.containers[0].resources.requests: Invalid value: \"2\": must "
          "be less than or equal to cpu limit of 1",
          "spec.containers[1].name: Duplicate value: \"c\"",
          "spec.restartPolicy: Unsupported value: \"Sometimes\": supported "
          "values: \"Always\", \"OnFailure\", \"Never\""}));
  Status st = errs.ToStatus("Pod", "", "pods", "hello");
  EXPECT_EQ(
      st.message().rfind("Pod \"hello\" is invalid: [spec.volumes[1].name", 0),
      0u);
}

TEST(PodValidationTest, ContainersRequired) {
  json pod = BasePod();
  pod["spec"]["containers"] = json::array();
  DefaultPod(pod);
  FieldErrors errs;
  ValidatePod(pod, &errs);
  EXPECT_EQ(Messages(errs),
            (std::vector<std::string>{"spec.containers: Required value"}));
  pod = BasePod();
  pod["spec"]["containers"][0]["name"] = "Bad";
  DefaultPod(pod);
  errs = FieldErrors();
  ValidatePod(pod, &errs);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs.causes()[0].field, "spec.containers[0].name");
}

TEST(PodUpdateTest, OnlyImageMayChange) {
  json old = BasePod();
  PodStrategy()->PrepareForCreate(old);
  json updated = old;
  updated["spec"]["containers"][0]["image"] = "nginx:2";
  FieldErrors errs;
  PodStrategy()->PrepareForUpdate(updated, old);
  ValidatePodUpdate(updated, old, &errs);
  EXPECT_TRUE(errs.empty()) << Messages(errs)[0];
  EXPECT_EQ(updated["metadata"]["generation"], 2);

  json bad = old;
  bad["spec"]["containers"][0]["ports"] = {{{"containerPort", 80}}};
  errs = FieldErrors();
  ValidatePodUpdate(bad, old, &errs);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs.causes()[0].field, "spec");
  EXPECT_EQ(errs.causes()[0].message.rfind(
                "Forbidden: pod updates may not change fields other than "
                "`spec.containers[*].image`,`spec.initContainers[*].image`,"
                "`spec.activeDeadlineSeconds`,`spec.tolerations` (only "
                "additions to existing tolerations),"
                "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 "
                "if it was previously negative)\n",
                0),
            0u);

  json more_tolerations = old;
  more_tolerations["spec"]["tolerations"].push_back(
      {{"key", "k"}, {"operator", "Exists"}});
  errs = FieldErrors();
  ValidatePodUpdate(more_tolerations, old, &errs);
  EXPECT_TRUE(errs.empty());
}

TEST(PodUpdateTest, StatusKeptAndGenerationSteady) {
  json old = BasePod();
  PodStrategy()->PrepareForCreate(old);
  old["status"]["phase"] = "Running";
  json updated = old;
  updated["status"] = {{"phase", "Failed"}};
  updated["metadata"]["labels"] = {{"a", "b"}};
  PodStrategy()->PrepareForUpdate(updated, old);
  EXPECT_EQ(updated["status"]["phase"], "Running");
  EXPECT_EQ(updated["metadata"]["generation"], 1);
}

TEST(PodStatusTest, StatusSubresourceKeepsSpec) {
  json old = BasePod();
  PodStrategy()->PrepareForCreate(old);
  json updated = old;
  updated["spec"]["nodeName"] = "sneaky";
  updated["status"] = {{"phase", "Running"}};
  updated["metadata"]["labels"] = {{"x", "y"}};
  PodStatusStrategy()->PrepareForUpdate(updated, old);
  EXPECT_FALSE(updated["spec"].contains("nodeName"));
  EXPECT_EQ(updated["status"]["phase"], "Running");
  EXPECT_EQ(updated["status"]["qosClass"], "BestEffort");
  EXPECT_EQ(updated["metadata"]["labels"]["x"], "y");
}

TEST(PodDeleteTest, GracePeriods) {
  json pod = BasePod();
  DefaultPod(pod);
  const Strategy* s = PodStrategy();
  EXPECT_EQ(s->GracePeriodSeconds(pod, std::nullopt), std::nullopt);  // unbound
  pod["spec"]["nodeName"] = "n1";
  EXPECT_EQ(s->GracePeriodSeconds(pod, std::nullopt), 30);
  EXPECT_EQ(s->GracePeriodSeconds(pod, 5), 5);
  EXPECT_EQ(s->GracePeriodSeconds(pod, 0), std::nullopt);
  EXPECT_EQ(s->GracePeriodSeconds(pod, -3), 1);
  pod["status"]["phase"] = "Succeeded";
  EXPECT_EQ(s->GracePeriodSeconds(pod, 10), std::nullopt);
}

}  // namespace
}  // namespace kmock::api::kinds
