// What Endpoints and EndpointSlices a Service should have: ready and not
// ready pods, named target ports, terminal and terminating pods, headless
// hostnames, publishNotReadyAddresses, zones and the per-slice limit.
#include "controllers/endpoints/desired_endpoints.h"

#include <gtest/gtest.h>

namespace kmock::controllers::endpoints {
namespace {

using PodPtr = std::shared_ptr<const json>;

json Service(json spec) {
  return {{"metadata",
           {{"name", "web"},
            {"namespace", "default"},
            {"uid", "svc-uid"},
            {"labels", {{"app", "web"}}}}},
          {"spec", std::move(spec)}};
}

json WebService() {
  return Service({{"selector", {{"app", "web"}}},
                  {"ports",
                   {{{"name", "http"},
                     {"port", 80},
                     {"targetPort", "web"},
                     {"protocol", "TCP"}}}}});
}

PodPtr Pod(const std::string& name, const std::string& ip, bool ready,
           json extra_spec = json::object()) {
  json spec = {{"nodeName", "worker-1"},
               {"restartPolicy", "Always"},
               {"containers",
                {{{"name", "app"},
                  {"ports", {{{"name", "web"}, {"containerPort", 8080}}}}}}}};
  spec.update(extra_spec);
  json pod = {
      {"metadata",
       {{"name", name},
        {"namespace", "default"},
        {"uid", name + "-uid"},
        {"labels", {{"app", "web"}}}}},
      {"spec", spec},
      {"status",
       {{"phase", "Running"},
        {"podIP", ip},
        {"conditions",
         {{{"type", "Ready"}, {"status", ready ? "True" : "False"}}}}}}};
  return std::make_shared<const json>(std::move(pod));
}

TEST(EndpointSubsets, ReadyAndNotReadyByIpWithResolvedNamedPort) {
  json subsets = EndpointSubsets(WebService(), {Pod("b", "10.244.1.9", true),
                                                Pod("a", "10.244.1.10", true),
                                                Pod("c", "10.244.2.3", false)});
  ASSERT_EQ(subsets.size(), 1u);
  const json& s = subsets[0];
  ASSERT_EQ(s["addresses"].size(), 2u);
  // By IP as text, as upstream sorts.
  EXPECT_EQ(s["addresses"][0]["ip"], "10.244.1.10");
  EXPECT_EQ(s["addresses"][1]["ip"], "10.244.1.9");
  EXPECT_EQ(s["addresses"][0]["nodeName"], "worker-1");
  EXPECT_EQ(s["addresses"][0]["targetRef"], json({{"kind", "Pod"},
                                                  {"namespace", "default"},
                                                  {"name", "a"},
                                                  {"uid", "a-uid"}}));
  EXPECT_EQ(s["notReadyAddresses"][0]["ip"], "10.244.2.3");
  EXPECT_EQ(s["ports"],
            json::parse(R"([{"name":"http","port":8080,"protocol":"TCP"}])"));
}

TEST(EndpointSubsets, LeavesOutPodsWithoutIpTerminalDeletingOrPortless) {
  json no_port = {{"containers", {{{"name", "app"}}}}};
  auto done = std::make_shared<json>(
      *Pod("done", "10.0.0.4", false, {{"restartPolicy", "Never"}}));
  (*done)["status"]["phase"] = "Succeeded";
  auto leaving = std::make_shared<json>(*Pod("leaving", "10.0.0.5", true));
  (*leaving)["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  json subsets = EndpointSubsets(WebService(),
                                 {Pod("no-ip", "", true), done, leaving,
                                  Pod("portless", "10.0.0.6", true, no_port)});
  EXPECT_EQ(subsets, json::array());
}

TEST(EndpointSubsets, PublishNotReadyAndHeadlessHostname) {
  json spec = WebService()["spec"];
  spec["publishNotReadyAddresses"] = true;
  spec["clusterIP"] = "None";
  json subsets = EndpointSubsets(
      Service(spec), {Pod("web-0", "10.0.0.7", false,
                          {{"hostname", "web-0"}, {"subdomain", "web"}})});
  ASSERT_EQ(subsets.size(), 1u);
  EXPECT_EQ(subsets[0]["addresses"][0]["hostname"], "web-0");
  EXPECT_FALSE(subsets[0].contains("notReadyAddresses"));
  EXPECT_EQ(EndpointsLabels(Service(spec)),
            json({{"app", "web"}, {kHeadlessLabel, ""}}));
}

TEST(DesiredSlices, ConditionsZonesAndNamedPorts) {
  auto leaving = std::make_shared<json>(*Pod("leaving", "10.0.0.5", true));
  (*leaving)["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  auto slices =
      DesiredSlices(WebService(), {Pod("a", "10.0.0.1", true), leaving},
                    [](const std::string& node) { return node + "-zone"; });
  ASSERT_EQ(slices.size(), 1u);
  EXPECT_EQ(slices[0].ports,
            json::parse(R"([{"name":"http","port":8080,"protocol":"TCP"}])"));
  ASSERT_EQ(slices[0].endpoints.size(), 2u);
  const json& a = slices[0].endpoints[0];
  EXPECT_EQ(a["addresses"], json({"10.0.0.1"}));
  EXPECT_EQ(a["conditions"],
            json({{"ready", true}, {"serving", true}, {"terminating", false}}));
  EXPECT_EQ(a["zone"], "worker-1-zone");
  // Terminating: kept, serving, not ready.
  EXPECT_EQ(slices[0].endpoints[1]["conditions"],
            json({{"ready", false}, {"serving", true}, {"terminating", true}}));
}

TEST(DesiredSlices, PlaceholderWhenNothingIsSelectedAndSplitAtTheLimit) {
  auto empty = DesiredSlices(WebService(), {}, nullptr);
  ASSERT_EQ(empty.size(), 1u);
  EXPECT_TRUE(empty[0].ports.is_null());
  EXPECT_EQ(empty[0].endpoints, json::array());

  std::vector<PodPtr> pods;
  for (int i = 0; i < 5; ++i) {
    pods.push_back(
        Pod("p" + std::to_string(i), "10.0.1." + std::to_string(i), true));
  }
  auto split = DesiredSlices(WebService(), pods, nullptr, 2);
  ASSERT_EQ(split.size(), 3u);
  EXPECT_EQ(split[2].endpoints.size(), 1u);
}

TEST(ServiceSelector, ExternalNameAndEmptySelectorsAreNotManaged) {
  EXPECT_TRUE(ServiceHasSelector(WebService()));
  EXPECT_FALSE(ServiceHasSelector(Service({{"selector", json::object()}})));
  EXPECT_FALSE(ServiceHasSelector(
      Service({{"type", "ExternalName"}, {"selector", {{"app", "web"}}}})));
  EXPECT_TRUE(SelectorMatches(WebService(), *Pod("a", "10.0.0.1", true)));
  json other = *Pod("b", "10.0.0.2", true);
  other["metadata"]["labels"]["app"] = "api";
  EXPECT_FALSE(SelectorMatches(WebService(), other));
}

}  // namespace
}  // namespace kmock::controllers::endpoints
