#include "controllers/lifecycle/probes.h"

#include <gtest/gtest.h>

namespace kmock::controllers::lifecycle {
namespace {

using nlohmann::json;

TimePoint T0() { return TimePoint(std::chrono::hours(24 * 365 * 56)); }

std::shared_ptr<sim::Container> Started(const std::string& image,
                                        std::vector<std::string> argv = {}) {
  sim::ProcessSpec spec;
  spec.image = sim::ImageCatalog::Builtin().Find(image);
  spec.argv = argv.empty() ? sim::ResolveArgv(spec.image, {}, {}) : argv;
  spec.start = T0();
  auto c = std::make_shared<sim::Container>(spec, nullptr);
  c->Advance(T0());
  return c;
}

PodRuntime Pod() {
  PodRuntime rt;
  rt.pod_ip = "10.244.1.7";
  rt.host_ip = "10.0.0.11";
  rt.ready = true;
  return rt;
}

TEST(ProbesTest, HttpTcpAndExecAgainstTheSimulation) {
  auto nginx = Started("docker.io/library/nginx");
  json spec = {{"name", "web"},
               {"image", "nginx"},
               {"ports", {{{"name", "http"}, {"containerPort", 80}}}}};
  PodRuntime rt = Pod();
  auto http = [&](json get) {
    return RunProbe({{"httpGet", get}}, spec, nginx, rt, T0());
  };
  EXPECT_TRUE(http({{"path", "/"}, {"port", "http"}}).ok);
  ProbeResult missing = http({{"path", "/healthz"}, {"port", 80}});
  EXPECT_FALSE(missing.ok);
  EXPECT_EQ(missing.output, "HTTP probe failed with statuscode: 404");
  ProbeResult refused = http({{"path", "/"}, {"port", 8080}});
  EXPECT_EQ(refused.output,
            "Get \"http://10.244.1.7:8080/\": dial tcp 10.244.1.7:8080: "
            "connect: connection refused");
  // The probe's request is in the access log, from the node.
  std::string last = nginx->Log().lines.back().text;
  EXPECT_EQ(last.rfind("10.0.0.11 - - [", 0), 0u);
  EXPECT_NE(last.find("\"kube-probe/1.33\""), std::string::npos);

  EXPECT_TRUE(
      RunProbe({{"tcpSocket", {{"port", 80}}}}, spec, nginx, rt, T0()).ok);
  EXPECT_EQ(
      RunProbe({{"tcpSocket", {{"port", 81}}}}, spec, nginx, rt, T0()).output,
      "dial tcp 10.244.1.7:81: connect: connection refused");

  auto box = Started("docker.io/library/busybox",
                     {"sh", "-c", "touch /tmp/healthy; sleep 600"});
  json exec = {{"exec", {{"command", {"cat", "/tmp/healthy"}}}}};
  EXPECT_TRUE(RunProbe(exec, spec, box, rt, T0()).ok);
  box->Exec({"rm", "/tmp/healthy"}, T0());
  EXPECT_EQ(RunProbe(exec, spec, box, rt, T0()).output,
            "cat: can't open '/tmp/healthy': No such file or directory\n");
}

TEST(ProbesTest, ReadinessThresholdsAndLivenessKill) {
  json pod = {
      {"spec",
       {{"containers",
         {{{"name", "web"},
           {"image", "nginx"},
           {"readinessProbe",
            {{"httpGet", {{"path", "/"}, {"port", 80}}}, {"periodSeconds", 5}}},
           {"livenessProbe",
            {{"tcpSocket", {{"port", 8080}}},
             {"initialDelaySeconds", 10},
             {"failureThreshold", 2}}}}}}}}};
  PodRuntime rt = Pod();
  ContainerRuntime c;
  c.name = "web";
  c.step = Step::kRunning;
  c.probed = WaitsForProbe(pod["spec"]["containers"][0]);
  EXPECT_TRUE(c.probed);
  c.started_at = T0();
  c.sim = Started("docker.io/library/nginx");
  rt.containers.push_back(c);
  std::vector<EventSpec> events;
  std::optional<TimePoint> wake;
  EXPECT_TRUE(RunDueProbes(pod, &rt, T0(), &events, &wake));
  EXPECT_TRUE(rt.containers[0].ready);
  EXPECT_EQ(*wake, T0() + std::chrono::seconds(5));
  EXPECT_TRUE(events.empty());
  // Liveness on a port nothing listens on: killed at the second failure.
  wake.reset();
  RunDueProbes(pod, &rt, T0() + std::chrono::seconds(10), &events, &wake);
  EXPECT_EQ(rt.containers[0].step, Step::kRunning);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].reason, "Unhealthy");
  EXPECT_EQ(events[0].message,
            "Liveness probe failed: dial tcp 10.244.1.7:8080: connect: "
            "connection refused");
  EXPECT_TRUE(
      RunDueProbes(pod, &rt, T0() + std::chrono::seconds(20), &events, &wake));
  EXPECT_EQ(rt.containers[0].step, Step::kTerminated);
  EXPECT_EQ(events.back().reason, "Killing");
  EXPECT_EQ(events.back().message,
            "Container web failed liveness probe, will be restarted");
  EXPECT_EQ(rt.containers[0].reason, "Completed");  // nginx stops cleanly
  EXPECT_EQ(rt.containers[0].sim->state(), sim::Process::State::kExited);
}

TEST(ProbesTest, ImagesWithoutAProfileAreNotProbed) {
  json spec = {{"name", "app"},
               {"image", "example.com/team/app:1"},
               {"readinessProbe", {{"httpGet", {{"port", 9999}}}}}};
  EXPECT_FALSE(WaitsForProbe(spec));
}

}  // namespace
}  // namespace kmock::controllers::lifecycle
