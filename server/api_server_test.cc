// End to end over HTTPS: the real catalog and registry on an in-memory
// store, a client certificate made on the fly, httplib as the client.
#include "server/api_server.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <cstdio>
#include <thread>

#include "api/builtin_catalog.h"
#include "api/typed_json.h"
#include "certs/cert_builder.h"
#include "certs/openssl_util.h"
#include "registry/list_cursor.h"
#include "registry/test_registry.h"
#include "server/table.h"
#include "server/yaml_json.h"
#include "store/storage.h"

namespace kmock::server {
namespace {

using nlohmann::json;

constexpr char kTableAccept[] =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/"
    "json;as=Table;v=v1beta1;"
    "g=meta.k8s.io,application/json";

struct Pki {
  certs::UniquePkey ca_key, server_key, client_key;
  certs::UniqueX509 ca, server, client;
};

Pki MakePki(Rng& rng) {
  Pki p;
  auto now = std::chrono::system_clock::now();
  auto key = [] { return std::move(certs::GenerateEcKey()).value(); };
  p.ca_key = key();
  p.server_key = key();
  p.client_key = key();
  certs::CertSpec ca{certs::CertRole::kCa,
                     "test-ca",
                     {},
                     {},
                     {},
                     now - std::chrono::hours(1),
                     now + std::chrono::hours(24),
                     {},
                     {},
                     nullptr};
  p.ca = std::move(certs::IssueCertificate(ca, p.ca_key.get(), nullptr,
                                           p.ca_key.get(), rng))
             .value();
  certs::CertSpec server{certs::CertRole::kServer,
                         "kube-apiserver",
                         {},
                         {"localhost"},
                         {"127.0.0.1"},
                         now - std::chrono::hours(1),
                         now + std::chrono::hours(24),
                         {},
                         {},
                         nullptr};
  p.server = std::move(certs::IssueCertificate(server, p.server_key.get(),
                                               p.ca.get(), p.ca_key.get(), rng))
                 .value();
  certs::CertSpec client{certs::CertRole::kClient,
                         "alice",
                         {"team-a", "system:masters"},
                         {},
                         {},
                         now - std::chrono::hours(1),
                         now + std::chrono::hours(24),
                         {},
                         {},
                         nullptr};
  p.client = std::move(certs::IssueCertificate(client, p.client_key.get(),
                                               p.ca.get(), p.ca_key.get(), rng))
                 .value();
  return p;
}

class ApiServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    storage_ = registry::testing::OpenMemoryStore();
    ASSERT_NE(storage_, nullptr);
    registry_ =
        std::make_unique<registry::Registry>(storage_.get(), &clock_, &rng_);
    ASSERT_TRUE(
        registry::testing::CreateNamespace(registry_.get(), "default").ok());

    pki_ = MakePki(rng_);
    ServerOptions o;
    o.port = 0;
    o.server_cert_pem = certs::CertificateToPem(pki_.server.get());
    o.server_key_pem = certs::PrivateKeyToPem(pki_.server_key.get());
    o.client_ca_pem = certs::CertificateToPem(pki_.ca.get());
    o.tokens = {{"secret-token", {"bob", "", {"devs"}}}};
    o.threads = 16;
    o.max_request_body_bytes = 64 * 1024;
    server_ = std::make_unique<ApiServer>(o, registry_.get(), &clock_, &rng_);
    Status st = server_->Start();
    ASSERT_TRUE(st.ok()) << st.ToString();
    ASSERT_GT(server_->port(), 0);
    ASSERT_TRUE(server_->ready());
  }

  void TearDown() override {
    if (server_) server_->Stop();
  }

  std::unique_ptr<httplib::SSLClient> CertClient() {
    auto c = std::make_unique<httplib::SSLClient>(
        "127.0.0.1", server_->port(), pki_.client.get(), pki_.client_key.get());
    c->enable_server_certificate_verification(false);
    c->set_read_timeout(10, 0);
    return c;
  }

  std::unique_ptr<httplib::SSLClient> AnonClient() {
    auto c = std::make_unique<httplib::SSLClient>("127.0.0.1", server_->port());
    c->enable_server_certificate_verification(false);
    c->set_read_timeout(10, 0);
    return c;
  }

  static json Pod(const std::string& name) {
    return {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", name}, {"labels", {{"app", "web"}}}}},
            {"spec", {{"containers", {{{"name", "c1"}, {"image", "nginx"}}}}}}};
  }

  FakeClock clock_{TimePoint(std::chrono::seconds(1'800'000'000))};
  Rng rng_{7};
  std::unique_ptr<store::Storage> storage_;
  std::unique_ptr<registry::Registry> registry_;
  Pki pki_;
  std::unique_ptr<ApiServer> server_;
};

TEST_F(ApiServerTest, UnauthenticatedRequestsGet401ExceptPublicPaths) {
  auto anon = AnonClient();
  auto res = anon->Get("/api/v1/namespaces/default/pods");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 401);
  EXPECT_EQ(json::parse(res->body),
            json::parse(R"({"kind":"Status","apiVersion":"v1","metadata":{},
              "status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401})"));

  auto version = anon->Get("/version?timeout=32s");
  ASSERT_TRUE(version);
  EXPECT_EQ(version->status, 200);
  json v = json::parse(version->body);
  EXPECT_EQ(v["gitVersion"], "v1.33.0");
  EXPECT_EQ(v["minor"], "33");

  auto healthz = anon->Get("/readyz");
  ASSERT_TRUE(healthz);
  EXPECT_EQ(healthz->body, "ok");

  httplib::Headers bad_token = {{"Authorization", "Bearer wrong"}};
  auto bad = anon->Get("/version", bad_token);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 401);

  httplib::Headers good_token = {{"Authorization", "Bearer secret-token"}};
  auto ok = anon->Get("/api/v1/namespaces/default/pods", good_token);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
}

TEST_F(ApiServerTest, DiscoveryNegotiation) {
  auto c = CertClient();
  auto v2 = c->Get(
      "/api",
      {{"Accept",
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
        "application/json;g=apidiscovery.k8s.io;v=v2beta1;"
        "as=APIGroupDiscoveryList,application/json"}});
  ASSERT_TRUE(v2);
  EXPECT_EQ(v2->status, 200);
  EXPECT_EQ(
      v2->get_header_value("Content-Type"),
      "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
  json doc = json::parse(v2->body);
  EXPECT_EQ(doc["apiVersion"], "apidiscovery.k8s.io/v2");
  EXPECT_EQ(doc["items"][0]["metadata"]["name"], "");

  auto beta =
      c->Get("/apis", {{"Accept",
                        "application/json;g=apidiscovery.k8s.io;v=v2beta1;"
                        "as=APIGroupDiscoveryList,application/json"}});
  ASSERT_TRUE(beta);
  EXPECT_EQ(json::parse(beta->body)["apiVersion"],
            "apidiscovery.k8s.io/v2beta1");

  auto legacy = c->Get("/api", {{"Accept", "application/json, */*"}});
  ASSERT_TRUE(legacy);
  EXPECT_EQ(json::parse(legacy->body)["kind"], "APIVersions");

  auto v1 = c->Get("/api/v1");
  ASSERT_TRUE(v1);
  json list = json::parse(v1->body);
  EXPECT_EQ(list["kind"], "APIResourceList");
  bool has_pods = false;
  for (const json& r : list["resources"]) has_pods |= r["name"] == "pods";
  EXPECT_TRUE(has_pods);

  auto missing = c->Get("/apis/bogus.example.com/v1");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(json::parse(missing->body)["message"],
            "the server could not find the requested resource");
}

TEST_F(ApiServerTest, CreateGetListDelete) {
  auto c = CertClient();
  const std::string pods = "/api/v1/namespaces/default/pods";
  auto created = c->Post(pods + "?fieldManager=kubectl-run", Pod("p1").dump(),
                         "application/json");
  ASSERT_TRUE(created);
  ASSERT_EQ(created->status, 201) << created->body;
  json p1 = json::parse(created->body);
  EXPECT_EQ(p1["metadata"]["namespace"], "default");
  EXPECT_FALSE(p1["metadata"]["uid"].get<std::string>().empty());

  auto again = c->Post(pods, Pod("p1").dump(), "application/json");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 409);
  EXPECT_EQ(json::parse(again->body)["reason"], "AlreadyExists");

  auto get = c->Get(pods + "/p1", {{"Accept", "application/json"}});
  ASSERT_TRUE(get);
  EXPECT_EQ(get->status, 200);
  EXPECT_EQ(json::parse(get->body)["metadata"]["name"], "p1");

  auto table = c->Get(pods + "?limit=500", {{"Accept", kTableAccept}});
  ASSERT_TRUE(table);
  ASSERT_EQ(table->status, 200);
  json t = json::parse(table->body);
  EXPECT_EQ(t["kind"], "Table");
  ASSERT_EQ(t["rows"].size(), 1u);
  EXPECT_EQ(t["rows"][0]["object"]["kind"], "PartialObjectMetadata");
  EXPECT_FALSE(t["metadata"]["resourceVersion"].get<std::string>().empty());

  auto dry =
      c->Post(pods + "?dryRun=Bogus", Pod("p2").dump(), "application/json");
  ASSERT_TRUE(dry);
  EXPECT_EQ(dry->status, 422);

  auto yaml =
      c->Post(pods,
              "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p3\nspec:\n"
              "  containers:\n  - name: c1\n    image: nginx\n",
              "application/yaml");
  ASSERT_TRUE(yaml);
  EXPECT_EQ(yaml->status, 201) << yaml->body;

  auto del = c->Delete(pods + "/p3", R"({"gracePeriodSeconds":0})",
                       "application/json");
  ASSERT_TRUE(del);
  EXPECT_EQ(del->status, 200) << del->body;
  auto gone = c->Get(pods + "/p3");
  ASSERT_TRUE(gone);
  EXPECT_EQ(gone->status, 404);
  EXPECT_EQ(json::parse(gone->body)["message"], "pods \"p3\" not found");
}

// A list longer than the registry reads at once is streamed: every item
// arrives once, in key order, and the body is one List.
TEST_F(ApiServerTest, ListLongerThanOneReadStreamsEveryItem) {
  const api::ResourceInfo* pods =
      api::testing::BuiltinCatalog().Find("", "v1", "pods");
  ASSERT_NE(pods, nullptr);
  const int count = static_cast<int>(registry::kListChunk) + 150;
  for (int i = 0; i < count; ++i) {
    char name[16];
    snprintf(name, sizeof name, "p-%05d", i);
    // Large enough that the list is more than a body sent whole.
    json pod = Pod(name);
    pod["metadata"]["annotations"] = {{"pad", std::string(1024, 'x')}};
    auto created = registry_->Create(*pods, "default", pod, {});
    ASSERT_TRUE(created.ok()) << created.status().ToString();
  }
  // A client that takes gzip gets the HTTP library's compressed chunks;
  // any other gets chunks the list frames itself.
  for (const char* encoding : {"identity", "gzip"}) {
    SCOPED_TRACE(encoding);
    auto c = CertClient();
    auto res =
        c->Get("/api/v1/namespaces/default/pods",
               {{"Accept", "application/json"}, {"Accept-Encoding", encoding}});
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 200);
    EXPECT_EQ(res->get_header_value("Transfer-Encoding"), "chunked");
    EXPECT_EQ(res->get_header_value("Content-Encoding"),
              std::string(encoding) == "gzip" ? "gzip" : "");
    ASSERT_GT(res->body.size(), 4u * 32 * 1024);  // several HTTP chunks
    json list = json::parse(res->body);
    EXPECT_EQ(list["kind"], "PodList");
    ASSERT_EQ(list["items"].size(), static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) {
      char name[16];
      snprintf(name, sizeof name, "p-%05d", i);
      ASSERT_EQ(list["items"][i]["metadata"]["name"], name);
      ASSERT_EQ(list["items"][i]["spec"]["containers"][0]["image"], "nginx");
    }
    // The connection stays usable after the list.
    auto again = c->Get("/api/v1/namespaces/default/pods/p-00000");
    ASSERT_TRUE(again);
    EXPECT_EQ(again->status, 200);
  }
}

// Tables and YAML are rendered a piece at a time, each piece's items
// decoded and encoded on their own; the bytes must be those of the whole
// List rendered at once, streamed or not, paged or not.
TEST_F(ApiServerTest, TableAndYamlListsAreTheWholeRenderingPieceByPiece) {
  const api::ResourceInfo* pods =
      api::testing::BuiltinCatalog().Find("", "v1", "pods");
  ASSERT_NE(pods, nullptr);
  for (int i = 0; i < 700; ++i) {
    char name[16];
    snprintf(name, sizeof name, "p-%05d", i);
    json pod = Pod(name);
    pod["metadata"]["labels"]["tenth"] = i % 10 == 0 ? "yes" : "no";
    pod["metadata"]["annotations"] = {{"pad", std::string(2048 + i, 'y')},
                                      {"quote", "a \"b\"\nc: d"}};
    ASSERT_TRUE(registry_->Create(*pods, "default", pod, {}).ok());
  }
  struct Case {
    const char* query;
    const char* accept;
    const char* encoding;
  };
  const Case cases[] = {
      {"", kTableAccept, "identity"},
      {"", kTableAccept, "gzip"},
      {"?includeObject=Object", kTableAccept, "identity"},
      {"?limit=250", kTableAccept, "gzip"},
      {"?labelSelector=tenth%3Dyes", kTableAccept, "identity"},
      {"?labelSelector=app%3Dnone", kTableAccept, "identity"},
      {"", "application/yaml", "identity"},
      {"?limit=300", "application/yaml", "gzip"},
      {"?labelSelector=tenth%3Dyes", "application/yaml", "identity"},
      {"?labelSelector=app%3Dnone", "application/yaml", "identity"},
      {"", "application/yaml;as=Table;v=v1;g=meta.k8s.io", "identity"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.query) + " " + c.accept + " " + c.encoding);
    auto client = CertClient();
    auto res =
        client->Get(std::string("/api/v1/namespaces/default/pods") + c.query,
                    {{"Accept", c.accept}, {"Accept-Encoding", c.encoding}});
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 200) << res->body.substr(0, 300);
    // The same list, rendered whole.
    registry::ListOptions opts;
    std::string q = c.query;
    if (q.find("limit=") != std::string::npos)
      opts.limit = std::stoll(q.substr(q.find("limit=") + 6));
    if (q.find("tenth") != std::string::npos) opts.label_selector = "tenth=yes";
    if (q.find("app%3Dnone") != std::string::npos)
      opts.label_selector = "app=none";
    auto list = registry_->List(*pods, "default", opts);
    ASSERT_TRUE(list.ok());
    // The continue token names the list's revision, the same for both.
    json whole = *list;
    if (std::string(c.accept).find("as=Table") != std::string::npos) {
      TableOptions t;
      if (q.find("includeObject=Object") != std::string::npos)
        t.include = IncludeObject::kObject;
      whole = ListToTable(*pods, whole, clock_.Now(), t);
    }
    std::string expected;
    if (std::string(c.accept).find("yaml") != std::string::npos) {
      expected = JsonToYaml(whole);
    } else {
      api::AppendTypedJson(whole, &expected);
      expected.push_back('\n');
    }
    EXPECT_EQ(res->body.size(), expected.size());
    const size_t diff =
        static_cast<size_t>(std::mismatch(res->body.begin(), res->body.end(),
                                          expected.begin(), expected.end())
                                .first -
                            res->body.begin());
    EXPECT_TRUE(res->body == expected)
        << "first difference at " << diff << ":\n"
        << res->body.substr(diff < 80 ? 0 : diff - 80, 160) << "\n--- not\n"
        << expected.substr(diff < 80 ? 0 : diff - 80, 160);
    // Small lists and pages (read whole for their continue token) go out
    // whole; long lists are streamed.
    const bool streamed =
        res->get_header_value("Transfer-Encoding") == "chunked";
    if (opts.limit > 0 || expected.size() < 1024 * 1024) {
      EXPECT_FALSE(streamed);
    } else if (expected.size() > 2 * 1024 * 1024) {
      EXPECT_TRUE(streamed);
    }
  }
}

TEST_F(ApiServerTest, ErrorsForPathsVerbsAndBodies) {
  auto c = CertClient();
  auto unknown = c->Get("/api/v1/namespaces/default/widgets");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);

  auto method =
      c->Post("/api/v1/namespaces/default/pods/p1", "{}", "application/json");
  ASSERT_TRUE(method);
  EXPECT_EQ(method->status, 405);
  EXPECT_EQ(json::parse(method->body)["reason"], "MethodNotAllowed");

  auto pb = c->Post("/api/v1/namespaces/default/pods", std::string("k8s\0", 4),
                    "application/vnd.kubernetes.protobuf");
  ASSERT_TRUE(pb);
  EXPECT_EQ(pb->status, 400);
  EXPECT_EQ(json::parse(pb->body)["reason"], "BadRequest");
  auto cbor =
      c->Post("/api/v1/namespaces/default/pods", "x", "application/cbor");
  ASSERT_TRUE(cbor);
  EXPECT_EQ(cbor->status, 415);

  std::string big(70 * 1024, ' ');
  auto large = CertClient()->Post("/api/v1/namespaces/default/pods", big,
                                  "application/json");
  ASSERT_TRUE(large);
  EXPECT_EQ(large->status, 413);
  EXPECT_EQ(json::parse(large->body)["reason"], "RequestEntityTooLarge");
}

TEST_F(ApiServerTest, WatchSeesAddedEventThenStopEndsIt) {
  std::string received;
  std::mutex mu;
  std::thread watcher([&] {
    auto c = CertClient();
    c->Get("/api/v1/namespaces/default/pods?watch=true",
           [&](const char* data, size_t n) {
             std::lock_guard<std::mutex> l(mu);
             received.append(data, n);
             return true;
           });
  });
  // Wait for the watch to be open, then create.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto c = CertClient();
  auto created = c->Post("/api/v1/namespaces/default/pods", Pod("w1").dump(),
                         "application/json");
  ASSERT_TRUE(created);
  ASSERT_EQ(created->status, 201);
  bool seen = false;
  for (int i = 0; i < 100 && !seen; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::lock_guard<std::mutex> l(mu);
    seen = received.find("\"w1\"") != std::string::npos;
  }
  ASSERT_TRUE(seen) << received;
  server_->Stop();  // ends the stream; the client's Get returns
  watcher.join();
  std::lock_guard<std::mutex> l(mu);
  size_t eol = received.find('\n');
  ASSERT_NE(eol, std::string::npos);
  json event = json::parse(received.substr(0, eol));
  EXPECT_EQ(event["type"], "ADDED");
  EXPECT_EQ(event["object"]["metadata"]["name"], "w1");
}

TEST_F(ApiServerTest, WatchWithTableAndTimeout) {
  auto c = CertClient();
  ASSERT_EQ(c->Post("/api/v1/namespaces/default/pods", Pod("t1").dump(),
                    "application/json")
                ->status,
            201);
  std::string body;
  auto start = std::chrono::steady_clock::now();
  auto res = c->Get(
      "/api/v1/namespaces/default/"
      "pods?watch=1&resourceVersion=0&timeoutSeconds=1",
      {{"Accept", kTableAccept}}, [&](const char* data, size_t n) {
        body.append(data, n);
        return true;
      });
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  json event = json::parse(body.substr(0, body.find('\n')));
  EXPECT_EQ(event["type"], "ADDED");
  EXPECT_EQ(event["object"]["kind"], "Table");
  EXPECT_EQ(event["object"]["rows"][0]["object"]["metadata"]["name"], "t1");
}

// Events waiting together go out in one write: each is still a whole
// line, in order, as JSON and as Table rows.
TEST_F(ApiServerTest, WatchBacklogArrivesAsWholeLinesInOrder) {
  auto c = CertClient();
  auto listed = c->Get("/api/v1/namespaces/default/pods");
  ASSERT_TRUE(listed);
  const std::string from =
      json::parse(listed->body)["metadata"]["resourceVersion"];
  constexpr int kPods = 100;
  for (int i = 0; i < kPods; ++i) {
    auto r = c->Post("/api/v1/namespaces/default/pods",
                     Pod("b" + std::to_string(i)).dump(), "application/json");
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 201);
  }
  for (const bool table : {false, true}) {
    std::string body;
    httplib::Headers headers;
    if (table) headers.emplace("Accept", kTableAccept);
    auto res = c->Get(
        "/api/v1/namespaces/default/pods?watch=1&timeoutSeconds=1&"
        "resourceVersion=" +
            from,
        headers, [&](const char* data, size_t n) {
          body.append(data, n);
          return true;
        });
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 200);
    int seen = 0;
    size_t at = 0;
    for (size_t eol; (eol = body.find('\n', at)) != std::string::npos;
         at = eol + 1) {
      json event = json::parse(body.substr(at, eol - at), nullptr, false);
      ASSERT_FALSE(event.is_discarded()) << body.substr(at, eol - at);
      ASSERT_EQ(event["type"], "ADDED");
      const json& obj =
          table ? event["object"]["rows"][0]["object"] : event["object"];
      EXPECT_EQ(obj["metadata"]["name"], "b" + std::to_string(seen));
      ++seen;
    }
    EXPECT_EQ(at, body.size());
    EXPECT_EQ(seen, kPods);
  }
}

TEST_F(ApiServerTest, SecondServerOnSamePortFails) {
  ServerOptions o;
  o.port = server_->port();
  o.server_cert_pem = certs::CertificateToPem(pki_.server.get());
  o.server_key_pem = certs::PrivateKeyToPem(pki_.server_key.get());
  ApiServer second(o, registry_.get(), &clock_, &rng_);
  Status st = second.Start();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("in use"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace kmock::server
