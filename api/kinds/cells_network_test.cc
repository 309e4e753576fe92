#include <gtest/gtest.h>

#include <vector>

#include "api/builtin_catalog.h"
#include "api/kinds/util.h"
#include "common/clock.h"

namespace kmock::api::kinds {
namespace {

TimePoint Now() {
  TimePoint t;
  EXPECT_TRUE(ParseRfc3339("2024-05-01T00:05:00Z", &t));
  return t;
}

json Meta(const char* name) {
  return {{"name", name}, {"creationTimestamp", "2024-05-01T00:00:00Z"}};
}

std::vector<json> Row(const char* group, const char* plural, const json& obj) {
  std::vector<json> row = testing::RowOf(group, plural, obj, Now());
  EXPECT_EQ(row.size(), testing::ColumnsOf(group, plural).size());
  return row;
}

constexpr const char* kNet = "networking.k8s.io";

TEST(IngressCellsTest, FullRow) {
  json ing = {{"metadata", Meta("web")},
              {"spec",
               {{"ingressClassName", "nginx"},
                {"rules", {{{"host", "a.example"}}, {{"host", "b.example"}}}},
                {"tls", {{{"secretName", "tls"}}}}}},
              {"status",
               {{"loadBalancer",
                 {{"ingress",
                   {{{"ip", "10.0.0.2"}},
                    {{"hostname", "lb.example"}},
                    {{"ip", "10.0.0.1"}, {"hostname", "ignored"}},
                    {{"ip", "10.0.0.2"}},
                    json::object()}}}}}}};
  EXPECT_EQ(
      Row(kNet, "ingresses", ing),
      (std::vector<json>{"web", "nginx", "a.example,b.example",
                         "10.0.0.1,10.0.0.2,lb.example", "80, 443", "5m"}));
}

TEST(IngressCellsTest, NoRulesNoStatus) {
  json ing = {{"metadata", Meta("bare")},
              {"spec", {{"defaultBackend", json::object()}}}};
  EXPECT_EQ(Row(kNet, "ingresses", ing),
            (std::vector<json>{"bare", "<none>", "*", "", "80", "5m"}));
  ing["spec"]["rules"] = {{{"http", json::object()}}};
  EXPECT_EQ(Row(kNet, "ingresses", ing)[2], "*");
}

TEST(IngressCellsTest, HostsMore) {
  json rules = json::array();
  for (const char* h : {"a", "", "b", "c", "d", ""}) {
    rules.push_back(json{{"host", h}});
  }
  json ing = {{"metadata", Meta("many")}, {"spec", {{"rules", rules}}}};
  // Counts rules, not hosts, beyond the third: 6 rules - 3.
  EXPECT_EQ(Row(kNet, "ingresses", ing)[2], "a,b,c + 3 more...");
  ing["spec"]["rules"] = {{{"host", "a"}}, {{"host", "b"}}, {{"host", "c"}}};
  EXPECT_EQ(Row(kNet, "ingresses", ing)[2], "a,b,c");
  ing["spec"]["rules"].push_back(json::object());
  EXPECT_EQ(Row(kNet, "ingresses", ing)[2], "a,b,c + 1 more...");
}

TEST(IngressClassCellsTest, Parameters) {
  json ic = {{"metadata", Meta("nginx")},
             {"spec",
              {{"controller", "k8s.io/ingress-nginx"},
               {"parameters",
                {{"apiGroup", "k8s.example.com"},
                 {"kind", "IngressParameters"},
                 {"name", "external-lb"}}}}}};
  EXPECT_EQ(Row(kNet, "ingressclasses", ic),
            (std::vector<json>{"nginx", "k8s.io/ingress-nginx",
                               "IngressParameters.k8s.example.com/external-lb",
                               "5m"}));
  ic["spec"]["parameters"].erase("apiGroup");
  EXPECT_EQ(Row(kNet, "ingressclasses", ic)[2],
            "IngressParameters/external-lb");
  ic["spec"].erase("parameters");
  EXPECT_EQ(Row(kNet, "ingressclasses", ic)[2], "<none>");
}

TEST(IpAddressCellsTest, ParentRef) {
  json ip = {{"metadata", Meta("10.96.0.10")},
             {"spec",
              {{"parentRef",
                {{"group", ""},
                 {"resource", "services"},
                 {"namespace", "kube-system"},
                 {"name", "kube-dns"}}}}}};
  EXPECT_EQ(Row(kNet, "ipaddresses", ip),
            (std::vector<json>{"10.96.0.10", "services/kube-system/kube-dns"}));
  ip["spec"]["parentRef"] = {{"group", "Gateway.Example.IO"},
                             {"resource", "Gateways"},
                             {"name", "gw"}};
  EXPECT_EQ(Row(kNet, "ipaddresses", ip)[1], "gateways.gateway.example.io/gw");
  ip["spec"].erase("parentRef");
  EXPECT_EQ(Row(kNet, "ipaddresses", ip)[1], "<none>");
}

constexpr const char* kDiscovery = "discovery.k8s.io";

TEST(EndpointSliceCellsTest, FullRow) {
  json slice = {
      {"metadata", Meta("web-abc")},
      {"addressType", "IPv4"},
      {"ports",
       {{{"name", "http"}, {"port", 80}},
        {{"name", "metrics"}},
        json::object()}},
      {"endpoints",
       {{{"addresses", {"10.0.0.1"}}}, {{"addresses", {"10.0.0.2"}}}}}};
  EXPECT_EQ(Row(kDiscovery, "endpointslices", slice),
            (std::vector<json>{"web-abc", "IPv4", "80,metrics,*",
                               "10.0.0.1,10.0.0.2", "5m"}));
}

TEST(EndpointSliceCellsTest, UnsetAndMore) {
  json slice = {{"metadata", Meta("empty")}, {"addressType", "IPv6"}};
  EXPECT_EQ(Row(kDiscovery, "endpointslices", slice),
            (std::vector<json>{"empty", "IPv6", "<unset>", "<unset>", "5m"}));
  slice["ports"] = {{{"port", 1}},
                    {{"port", 2}},
                    {{"port", 3}},
                    {{"port", 4}},
                    {{"port", 5}}};
  slice["endpoints"] = {{{"addresses", {"a", "b"}}},
                        {{"addresses", json::array()}},
                        {{"addresses", {"c", "d"}}}};
  auto row = Row(kDiscovery, "endpointslices", slice);
  EXPECT_EQ(row[2], "1,2,3 + 2 more...");
  EXPECT_EQ(row[3], "a,b,c + 1 more...");
  slice["endpoints"] = {{{"addresses", {"a", "b", "c"}}}};
  EXPECT_EQ(Row(kDiscovery, "endpointslices", slice)[3], "a,b,c");
}

constexpr const char* kRbac = "rbac.authorization.k8s.io";

json Binding(const char* name) {
  return {
      {"metadata", Meta(name)},
      {"roleRef",
       {{"apiGroup", kRbac}, {"kind", "ClusterRole"}, {"name", "view"}}},
      {"subjects",
       {{{"kind", "User"}, {"name", "alice"}},
        {{"kind", "Group"}, {"name", "devs"}},
        {{"kind", "ServiceAccount"}, {"namespace", "ci"}, {"name", "builder"}},
        {{"kind", "User"}, {"name", "bob"}},
        {{"kind", "ServiceAccount"}, {"namespace", "ci"}, {"name", "bot"}},
        {{"kind", "Other"}, {"name", "x"}}}}};
}

TEST(RoleBindingCellsTest, FullRow) {
  EXPECT_EQ(Row(kRbac, "rolebindings", Binding("readers")),
            (std::vector<json>{"readers", "ClusterRole/view", "5m",
                               "alice, bob", "devs", "ci/builder, ci/bot"}));
  EXPECT_EQ(Row(kRbac, "clusterrolebindings", Binding("readers")),
            (std::vector<json>{"readers", "ClusterRole/view", "5m",
                               "alice, bob", "devs", "ci/builder, ci/bot"}));
}

TEST(RoleBindingCellsTest, NoSubjects) {
  json b = Binding("empty");
  b.erase("subjects");
  b["roleRef"]["kind"] = "Role";
  EXPECT_EQ(Row(kRbac, "rolebindings", b),
            (std::vector<json>{"empty", "Role/view", "5m", "", "", ""}));
}

TEST(PriorityClassCellsTest, GlobalDefault) {
  json pc = {{"metadata", Meta("high")},
             {"value", 1000},
             {"globalDefault", true},
             {"preemptionPolicy", "Never"}};
  EXPECT_EQ(Row("scheduling.k8s.io", "priorityclasses", pc),
            (std::vector<json>{"high", 1000, true, "5m", "Never"}));
  pc.erase("globalDefault");
  EXPECT_EQ(Row("scheduling.k8s.io", "priorityclasses", pc)[2], false);
}

constexpr const char* kCerts = "certificates.k8s.io";

json Csr() {
  return {{"metadata", Meta("node-csr")},
          {"spec",
           {{"signerName", "kubernetes.io/kube-apiserver-client"},
            {"username", "alice"},
            {"expirationSeconds", 86400}}}};
}

TEST(CsrCellsTest, FullRow) {
  EXPECT_EQ(Row(kCerts, "certificatesigningrequests", Csr()),
            (std::vector<json>{"node-csr", "5m",
                               "kubernetes.io/kube-apiserver-client", "alice",
                               "24h", "Pending"}));
}

TEST(CsrCellsTest, DurationAbsent) {
  json csr = Csr();
  csr["spec"].erase("expirationSeconds");
  EXPECT_EQ(Row(kCerts, "certificatesigningrequests", csr)[4], "<none>");
  csr["spec"]["expirationSeconds"] = 600;
  EXPECT_EQ(Row(kCerts, "certificatesigningrequests", csr)[4], "10m");
}

TEST(CsrCellsTest, Conditions) {
  json csr = Csr();
  auto condition = [&] {
    return Row(kCerts, "certificatesigningrequests", csr)[5];
  };
  csr["status"]["conditions"] = {{{"type", "Approved"}, {"status", "True"}}};
  EXPECT_EQ(condition(), "Approved");
  csr["status"]["certificate"] = "LS0tLS1CRUdJTg==";
  EXPECT_EQ(condition(), "Approved,Issued");
  csr["status"]["conditions"].push_back({{"type", "Failed"}});
  EXPECT_EQ(condition(), "Approved,Failed,Issued");
  csr["status"]["conditions"].push_back({{"type", "Denied"}});
  EXPECT_EQ(condition(), "Denied,Failed,Issued");
  csr["status"] = {{"conditions", {{{"type", "Failed"}}}}};
  EXPECT_EQ(condition(), "Pending,Failed");
}

}  // namespace
}  // namespace kmock::api::kinds
