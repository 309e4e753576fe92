#include "api/kinds/service.h"

#include <gtest/gtest.h>

#include <set>

#include "api/builtin_catalog.h"
#include "api/resource.h"
#include "common/clock.h"

namespace kmock::api::kinds {
namespace {

json Svc(const std::string& name, json spec) {
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec", std::move(spec)}};
}

std::vector<std::string> Messages(const FieldErrors& errs) {
  std::vector<std::string> out;
  for (const StatusCause& c : errs.causes())
    out.push_back(c.field + ": " + c.message);
  return out;
}

std::vector<std::string> Errors(json svc) {
  DefaultService(svc);
  FieldErrors errs;
  ValidateService(svc, &errs);
  return Messages(errs);
}

TEST(ServiceDefaultsTest, ClusterIpGolden) {
  json svc =
      Svc("web", {{"selector", {{"app", "web"}}}, {"ports", {{{"port", 80}}}}});
  DefaultService(svc);
  json want = {
      {"selector", {{"app", "web"}}},
      {"ports", {{{"port", 80}, {"protocol", "TCP"}, {"targetPort", 80}}}},
      {"type", "ClusterIP"},
      {"sessionAffinity", "None"},
      {"internalTrafficPolicy", "Cluster"},
      {"ipFamilyPolicy", "SingleStack"},
      {"ipFamilies", {"IPv4"}}};
  EXPECT_EQ(svc["spec"], want) << svc["spec"].dump();
  json again = svc;
  DefaultService(again);
  EXPECT_EQ(again, svc);
}

TEST(ServiceDefaultsTest, LoadBalancerAndAffinityAndClusterIpMirror) {
  json svc = Svc("lb", {{"type", "LoadBalancer"},
                        {"clusterIP", "10.96.0.20"},
                        {"sessionAffinity", "ClientIP"},
                        {"ports", {{{"port", 443}, {"targetPort", "https"}}}}});
  DefaultService(svc);
  const json& spec = svc["spec"];
  EXPECT_EQ(spec["externalTrafficPolicy"], "Cluster");
  EXPECT_EQ(spec["allocateLoadBalancerNodePorts"], true);
  EXPECT_EQ(spec["clusterIPs"], json::array({"10.96.0.20"}));
  EXPECT_EQ(spec["sessionAffinityConfig"]["clientIP"]["timeoutSeconds"], 10800);
  EXPECT_EQ(spec["ports"][0]["targetPort"], "https");

  json ext =
      Svc("ext", {{"type", "ExternalName"}, {"externalName", "example.com"}});
  DefaultService(ext);
  EXPECT_FALSE(ext["spec"].contains("ipFamilies"));
  EXPECT_FALSE(ext["spec"].contains("internalTrafficPolicy"));
  EXPECT_FALSE(ext["spec"].contains("externalTrafficPolicy"));
}

TEST(ServiceTableTest, Columns) {
  std::vector<PrinterColumn> cols = testing::ColumnsOf("", "services");
  ASSERT_EQ(cols.size(), 7u);
  std::vector<std::string> names;
  for (const auto& c : cols) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"Name", "Type", "Cluster-IP",
                                             "External-IP", "Port(s)", "Age",
                                             "Selector"}));
  EXPECT_EQ(cols[6].priority, 1);
  EXPECT_EQ(cols[0].format, "name");
}

TEST(ServiceTableTest, CellsPerType) {
  TimePoint now;
  ASSERT_TRUE(ParseRfc3339("2026-01-01T00:10:00Z", &now));
  json cip = Svc("web", {{"type", "ClusterIP"},
                         {"clusterIPs", {"10.96.3.4"}},
                         {"selector", {{"tier", "front"}, {"app", "web"}}},
                         {"ports",
                          {{{"port", 80}, {"protocol", "TCP"}},
                           {{"port", 53}, {"protocol", "UDP"}}}}});
  cip["metadata"]["creationTimestamp"] = "2026-01-01T00:05:00Z";
  EXPECT_EQ(testing::RowOf("", "services", cip, now),
            (std::vector<json>{"web", "ClusterIP", "10.96.3.4", "<none>",
                               "80/TCP,53/UDP", "5m", "app=web,tier=front"}));

  json np = Svc(
      "np",
      {{"type", "NodePort"},
       {"clusterIPs", {"10.96.0.7"}},
       {"externalIPs", {"1.2.3.4"}},
       {"ports", {{{"port", 80}, {"nodePort", 30080}, {"protocol", "TCP"}}}}});
  std::vector<json> cells = testing::RowOf("", "services", np, now);
  EXPECT_EQ(cells[3], "1.2.3.4");
  EXPECT_EQ(cells[4], "80:30080/TCP");
  EXPECT_EQ(cells[5], "<unknown>");
  EXPECT_EQ(cells[6], "<none>");

  json lb = Svc(
      "lb",
      {{"type", "LoadBalancer"},
       {"clusterIPs", {"10.96.0.8"}},
       {"ports", {{{"port", 443}, {"nodePort", 31443}, {"protocol", "TCP"}}}}});
  EXPECT_EQ(testing::RowOf("", "services", lb, now)[3], "<pending>");
  lb["status"]["loadBalancer"]["ingress"] = {{{"ip", "203.0.113.9"}},
                                             {{"hostname", "lb.example.com"}}};
  EXPECT_EQ(testing::RowOf("", "services", lb, now)[3],
            "203.0.113.9,lb.example.com");
  lb["spec"]["externalIPs"] = {"1.2.3.4"};
  EXPECT_EQ(testing::RowOf("", "services", lb, now)[3],
            "1.2.3.4,203.0.113.9,lb.example.com");

  json headless = Svc(
      "db",
      {{"type", "ClusterIP"}, {"clusterIP", "None"}, {"clusterIPs", {"None"}}});
  cells = testing::RowOf("", "services", headless, now);
  EXPECT_EQ(cells[2], "None");
  EXPECT_EQ(cells[4], "<none>");

  json ext =
      Svc("ext", {{"type", "ExternalName"}, {"externalName", "example.com"}});
  cells = testing::RowOf("", "services", ext, now);
  EXPECT_EQ(cells[2], "<none>");
  EXPECT_EQ(cells[3], "example.com");
}

TEST(ServiceValidationTest, ValidServicesPass) {
  EXPECT_TRUE(Errors(Svc("web", {{"ports", {{{"port", 80}}}}})).empty());
  EXPECT_TRUE(Errors(Svc("db", {{"clusterIP", "None"}})).empty());
  EXPECT_TRUE(Errors(Svc("ext", {{"type", "ExternalName"},
                                 {"externalName", "example.com."}}))
                  .empty());
  EXPECT_TRUE(Errors(KubernetesService("192.168.0.10", 6443)).empty());
}

TEST(ServiceValidationTest, MessagesVerbatim) {
  EXPECT_EQ(Errors(Svc("web", json::object())),
            (std::vector<std::string>{"spec.ports: Required value"}));
  EXPECT_EQ(
      Errors(Svc("web",
                 {{"ports", {{{"port", 80}}, {{"port", 81}, {"name", "b"}}}}})),
      (std::vector<std::string>{"spec.ports[0].name: Required value"}));
  EXPECT_EQ(
      Errors(Svc("web", {{"ports",
                          {{{"port", 80}, {"name", "a"}},
                           {{"port", 81}, {"name", "a"}}}}})),
      (std::vector<std::string>{"spec.ports[1].name: Duplicate value: \"a\""}));
  EXPECT_EQ(
      Errors(Svc("web", {{"ports", {{{"port", 70000}}}}})),
      (std::vector<std::string>{
          "spec.ports[0].port: Invalid value: 70000: must be between 1 and "
          "65535, inclusive",
          "spec.ports[0].targetPort: Invalid value: 70000: must be between 1 "
          "and 65535, inclusive"}));
  EXPECT_EQ(
      Errors(Svc("web", {{"ports", {{{"port", 80}, {"protocol", "HTTP"}}}}})),
      (std::vector<std::string>{
          "spec.ports[0].protocol: Unsupported value: \"HTTP\": supported "
          "values: \"SCTP\", \"TCP\", \"UDP\""}));
  EXPECT_EQ(
      Errors(Svc("web", {{"type", "Cluster"}, {"ports", {{{"port", 80}}}}})),
      (std::vector<std::string>{
          "spec.type: Unsupported value: \"Cluster\": supported values: "
          "\"ClusterIP\", \"ExternalName\", \"LoadBalancer\", \"NodePort\""}));
  EXPECT_EQ(
      Errors(Svc("web", {{"ports", {{{"port", 80}}}},
                         {"selector", {{"app", "a b"}}}})),
      (std::vector<std::string>{
          "spec.selector: Invalid value: \"a b\": a valid label must be an "
          "empty "
          "string or consist of alphanumeric characters, '-', '_' or '.', and "
          "must start and end with an alphanumeric character (e.g. 'MyValue',  "
          "or 'my_value',  or '12345', regex used for validation is "
          "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"}));
  EXPECT_EQ(
      Errors(Svc("web", {{"ports", {{{"port", 80}, {"nodePort", 30001}}}}})),
      (std::vector<std::string>{
          "spec.ports[0].nodePort: Forbidden: may not be used when `type` is "
          "'ClusterIP'"}));
  EXPECT_EQ(
      Errors(Svc("web",
                 {{"clusterIP", "10.96.0.300"}, {"ports", {{{"port", 80}}}}})),
      (std::vector<std::string>{"spec.clusterIPs[0]: Invalid value: "
                                "\"10.96.0.300\": must be a valid IP "
                                "address, (e.g. 10.9.8.7 or 2001:db8::ffff)"}));
  EXPECT_EQ(Errors(Svc("1web", {{"ports", {{{"port", 80}}}}})).size(), 1u);
  EXPECT_EQ(
      Errors(Svc("web", {{"ports", {{{"port", 80}}, {{"port", 80}}}}})).size(),
      3u);  // two missing names and the duplicate 80/TCP
}

TEST(ServiceValidationTest, ClusterIpMayNotChange) {
  json old =
      Svc("web", {{"ports", {{{"port", 80}}}}, {"clusterIP", "10.96.0.5"}});
  DefaultService(old);
  json upd = old;
  upd["spec"]["clusterIP"] = "10.96.0.6";
  upd["spec"]["clusterIPs"] = {"10.96.0.6"};
  FieldErrors errs;
  ValidateServiceUpdate(upd, old, &errs);
  EXPECT_EQ(Messages(errs),
            (std::vector<std::string>{
                "spec.clusterIPs[0]: Invalid value: "
                "[]string{\"10.96.0.6\"}: may not change once set"}));
}

TEST(ServiceStrategyTest, UpdateKeepsAllocatedValuesAndStatus) {
  const Strategy* s = ServiceStrategy();
  json old =
      Svc("np",
          {{"type", "NodePort"},
           {"clusterIP", "10.96.0.5"},
           {"ports", {{{"name", "http"}, {"port", 80}, {"nodePort", 30080}}}}});
  s->Default(old);
  old["status"] = {{"loadBalancer", json::object()}};
  json upd = Svc("np", {{"type", "NodePort"},
                        {"ports", {{{"name", "http"}, {"port", 80}}}}});
  s->Default(upd);
  s->PrepareForUpdate(upd, old);
  EXPECT_EQ(upd["spec"]["clusterIP"], "10.96.0.5");
  EXPECT_EQ(upd["spec"]["clusterIPs"], json::array({"10.96.0.5"}));
  EXPECT_EQ(upd["spec"]["ports"][0]["nodePort"], 30080);
  EXPECT_EQ(upd["status"], old["status"]);
  FieldErrors errs;
  s->Validate(upd, &errs);
  s->ValidateUpdate(upd, old, &errs);
  EXPECT_TRUE(errs.empty()) << Messages(errs)[0];
}

TEST(ServiceCatalogTest, Registered) {
  const ResourceInfo* r = testing::BuiltinCatalog().Find("", "v1", "services");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->short_names, std::vector<std::string>{"svc"});
  EXPECT_EQ(r->categories, std::vector<std::string>{"all"});
  EXPECT_EQ(r->key_prefix, "/registry/services/specs/");
  EXPECT_NE(r->FindSubresource("status"), nullptr);
  EXPECT_EQ(r->FindSubresource("proxy"), nullptr);
  ASSERT_EQ(r->selectable_fields.size(), 2u);
  json svc = Svc("a", {{"type", "NodePort"}, {"clusterIP", "10.96.0.9"}});
  EXPECT_EQ(r->selectable_fields[0].name, "spec.clusterIP");
  EXPECT_EQ(r->selectable_fields[0].value(svc), "10.96.0.9");
  EXPECT_EQ(r->selectable_fields[1].value(svc), "NodePort");
}

TEST(KubernetesServiceTest, Shape) {
  json svc = KubernetesService("192.168.0.10", 6443);
  EXPECT_EQ(svc["metadata"]["name"], "kubernetes");
  EXPECT_EQ(svc["metadata"]["namespace"], "default");
  EXPECT_EQ(svc["metadata"]["labels"],
            json({{"component", "apiserver"}, {"provider", "kubernetes"}}));
  EXPECT_EQ(svc["spec"]["clusterIP"], "10.96.0.1");
  EXPECT_EQ(
      svc["spec"]["ports"],
      json::parse(
          R"([{"name":"https","port":443,"protocol":"TCP","targetPort":6443}])"));
  EXPECT_FALSE(svc["spec"].contains("selector"));
  json defaulted = svc;
  DefaultService(defaulted);
  EXPECT_EQ(defaulted, svc);  // already in its defaulted form
}

TEST(ServiceIpAllocatorTest, UniqueAndReleased) {
  Rng rng(7);
  ServiceIpAllocator a("10.96.0.0/28", &rng);  // usable .1 - .14, band .1
  std::set<std::string> got;
  for (int i = 0; i < 13; ++i) {
    Result<std::string> ip = a.Allocate("");
    ASSERT_TRUE(ip.ok()) << i;
    EXPECT_NE(*ip, "10.96.0.1");
    EXPECT_TRUE(got.insert(*ip).second) << *ip;
  }
  Result<std::string> full = a.Allocate("");
  ASSERT_FALSE(full.ok());
  EXPECT_EQ(full.status().code(), StatusCode::kInternal);
  a.Release("10.96.0.9");
  Result<std::string> again = a.Allocate("");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, "10.96.0.9");
  // The first address is still free for a static request.
  EXPECT_TRUE(a.Allocate("10.96.0.1").ok());
}

TEST(ServiceIpAllocatorTest, StaticRequests) {
  Rng rng(1);
  ServiceIpAllocator a(kServiceCidr, &rng);
  ASSERT_TRUE(a.Allocate("10.96.0.10").ok());
  Result<std::string> dup = a.Allocate("10.96.0.10");
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(
      dup.status().message(),
      "failed to allocate IP 10.96.0.10: provided IP is already allocated");
  Result<std::string> out = a.Allocate("10.0.0.5");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(),
            "failed to allocate IP 10.0.0.5: the provided IP (10.0.0.5) is not "
            "in the "
            "valid range. The range of valid IPs is 10.96.0.0/12");
  EXPECT_FALSE(a.InRange("10.111.255.255"));  // broadcast
  EXPECT_TRUE(a.InRange("10.111.255.254"));
  Result<std::string> dyn = a.Allocate("");
  ASSERT_TRUE(dyn.ok());
  EXPECT_TRUE(a.InRange(*dyn));
  EXPECT_TRUE(a.IsAllocated(*dyn));
}

TEST(NodePortAllocatorTest, RangeAndUniqueness) {
  Rng rng(3);
  NodePortAllocator a(30000, 30003, &rng);
  std::set<int> got;
  for (int i = 0; i < 4; ++i) got.insert(*a.Allocate(0));
  EXPECT_EQ(got, (std::set<int>{30000, 30001, 30002, 30003}));
  EXPECT_EQ(a.Allocate(0).status().code(), StatusCode::kInternal);
  EXPECT_EQ(a.Allocate(30001).status().message(),
            "provided port is already allocated");
  EXPECT_EQ(
      a.Allocate(80).status().message(),
      "provided port is not in the valid range. The range of valid ports is "
      "30000-30003");
  a.Release(30001);
  EXPECT_EQ(*a.Allocate(30001), 30001);
}

TEST(ServiceAllocatorTest, CreateUpdateDeleteLifecycle) {
  Rng rng(11);
  ServiceAllocator alloc(&rng);
  json kube = KubernetesService("192.168.0.10", 6443);
  alloc.Seed({kube});
  EXPECT_TRUE(alloc.ips().IsAllocated("10.96.0.1"));

  json web = Svc("web", {{"type", "NodePort"}, {"ports", {{{"port", 80}}}}});
  DefaultService(web);
  ASSERT_TRUE(alloc.AllocateForCreate(web).ok());
  std::string ip = web["spec"]["clusterIP"];
  EXPECT_EQ(web["spec"]["clusterIPs"], json::array({ip}));
  int np = web["spec"]["ports"][0]["nodePort"];
  EXPECT_GE(np, 30000);
  EXPECT_LE(np, 32767);

  // A second service asking for the same IP gets the 422 and keeps nothing.
  json clash = Svc("clash", {{"type", "NodePort"},
                             {"clusterIP", ip},
                             {"ports", {{{"port", 81}, {"nodePort", 30500}}}}});
  DefaultService(clash);
  Status st = alloc.AllocateForCreate(clash);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kInvalid);
  ASSERT_EQ(st.details().causes.size(), 1u);
  EXPECT_EQ(st.details().causes[0].field, "spec.clusterIPs[0]");
  EXPECT_EQ(st.details().causes[0].message,
            "Invalid value: \"" + ip + "\": failed to allocate IP " + ip +
                ": provided IP is already allocated");
  EXPECT_FALSE(alloc.node_ports().IsAllocated(30500));

  // A node port clash is reported on the port and rolls back the IP.
  json clash2 = Svc("clash2", {{"type", "NodePort"},
                               {"ports", {{{"port", 81}, {"nodePort", np}}}}});
  DefaultService(clash2);
  size_t used = alloc.ips().Used();
  st = alloc.AllocateForCreate(clash2);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.details().causes[0].field, "spec.ports[0].nodePort");
  EXPECT_EQ(alloc.ips().Used(), used);

  // NodePort -> ClusterIP frees the node port after the update.
  json upd = web;
  upd["spec"]["type"] = "ClusterIP";
  upd["spec"].erase("externalTrafficPolicy");
  upd["spec"]["ports"][0].erase("nodePort");
  ASSERT_TRUE(alloc.AllocateForUpdate(upd, web).ok());
  alloc.ReleaseAfterUpdate(upd, web);
  EXPECT_FALSE(alloc.node_ports().IsAllocated(np));
  EXPECT_TRUE(alloc.ips().IsAllocated(ip));

  alloc.Release(upd);
  EXPECT_FALSE(alloc.ips().IsAllocated(ip));

  // Headless and ExternalName services take no IP.
  json headless = Svc("db", {{"clusterIP", "None"}});
  DefaultService(headless);
  used = alloc.ips().Used();
  ASSERT_TRUE(alloc.AllocateForCreate(headless).ok());
  EXPECT_EQ(headless["spec"]["clusterIP"], "None");
  EXPECT_EQ(alloc.ips().Used(), used);
}

}  // namespace
}  // namespace kmock::api::kinds
