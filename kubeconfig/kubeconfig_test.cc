#include "kubeconfig/kubeconfig.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/file_io.h"
#include "kubeconfig/base64.h"

namespace kmock::kubeconfig {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

namespace fs = std::filesystem;

const char kOtherConfig[] = R"(apiVersion: v1
kind: Config
clusters:
- cluster:
    server: https://prod.example:6443
    certificate-authority-data: UFJPRA==
  name: prod
- cluster:
    server: https://dev.example:6443
    insecure-skip-tls-verify: true
  name: dev
contexts:
- context:
    cluster: prod
    user: prod-admin
    namespace: "0123"
  name: prod
- context:
    cluster: dev
    user: dev-user
  name: dev
current-context: prod
preferences:
  colors: true
users:
- name: prod-admin
  user:
    token: "12345"
- name: dev-user
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: get-token
      args: [--cluster, dev]
extensions:
- name: my-extension
  extension:
    answer: 42
    yes-string: "yes"
)";

Entry TestEntry() {
  Entry e;
  e.server = "https://127.0.0.1:6443";
  e.ca_pem = "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n";
  e.client_cert_pem =
      "-----BEGIN CERTIFICATE-----\nADMIN\n-----END CERTIFICATE-----\n";
  e.client_key_pem =
      "-----BEGIN PRIVATE KEY-----\nKEY\n-----END PRIVATE KEY-----\n";
  e.token = "0123456789abcdef0123456789abcdef";
  return e;
}

class KubeconfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = fs::temp_directory_path() / "kmock-kubeconfig-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  static std::string Read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  static void Write(const std::string& path, const std::string& text) {
    std::ofstream(path) << text;
  }
  static mode_t Mode(const std::string& path) {
    struct stat st;
    EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
    return st.st_mode & 07777;
  }
  // The names in one of clusters/users/contexts, in order.
  static std::vector<std::string> Names(const YAML::Node& root,
                                        const char* list) {
    std::vector<std::string> out;
    for (const auto& item : root[list])
      out.push_back(item["name"].as<std::string>());
    return out;
  }
  static YAML::Node Find(const YAML::Node& root, const char* list,
                         const std::string& name) {
    for (const auto& item : root[list]) {
      if (item["name"].as<std::string>() == name) return item;
    }
    return YAML::Node();
  }

  std::string dir_;
};

TEST_F(KubeconfigTest, MergeKeepsOtherEntriesAndSetsCurrentContext) {
  std::string path = dir_ + "/config";
  Write(path, kOtherConfig);
  ASSERT_TRUE(MergeKubeconfig(path, TestEntry()).ok());

  YAML::Node root = YAML::LoadFile(path);
  EXPECT_EQ(root["current-context"].as<std::string>(), "kubemock");
  EXPECT_EQ(Names(root, "clusters"),
            (std::vector<std::string>{"prod", "dev", "kubemock"}));
  EXPECT_EQ(Names(root, "users"),
            (std::vector<std::string>{"prod-admin", "dev-user", "kubemock"}));
  EXPECT_EQ(Names(root, "contexts"),
            (std::vector<std::string>{"prod", "dev", "kubemock"}));

  YAML::Node cluster = Find(root, "clusters", "kubemock")["cluster"];
  EXPECT_EQ(cluster["server"].as<std::string>(), "https://127.0.0.1:6443");
  EXPECT_EQ(
      Base64Decode(cluster["certificate-authority-data"].as<std::string>()),
      TestEntry().ca_pem);
  YAML::Node user = Find(root, "users", "kubemock")["user"];
  EXPECT_EQ(Base64Decode(user["client-certificate-data"].as<std::string>()),
            TestEntry().client_cert_pem);
  EXPECT_EQ(Base64Decode(user["client-key-data"].as<std::string>()),
            TestEntry().client_key_pem);
  EXPECT_EQ(user["token"].as<std::string>(), TestEntry().token);
  YAML::Node context = Find(root, "contexts", "kubemock")["context"];
  EXPECT_EQ(context["cluster"].as<std::string>(), "kubemock");
  EXPECT_EQ(context["user"].as<std::string>(), "kubemock");

  // Everything else is untouched, including what each scalar means.
  EXPECT_EQ(Find(root, "clusters", "dev")["cluster"]["insecure-skip-tls-verify"]
                .as<bool>(),
            true);
  EXPECT_EQ(
      Find(root, "contexts", "prod")["context"]["namespace"].as<std::string>(),
      "0123");
  EXPECT_THAT(Read(path), HasSubstr("namespace: \"0123\""));
  EXPECT_THAT(Read(path), HasSubstr("token: \"12345\""));
  EXPECT_THAT(Read(path), HasSubstr("yes-string: \"yes\""));
  EXPECT_THAT(Read(path), HasSubstr("answer: 42"));
  EXPECT_EQ(root["preferences"]["colors"].as<bool>(), true);
  EXPECT_EQ(root["extensions"][0]["name"].as<std::string>(), "my-extension");
  EXPECT_EQ(Find(root, "users", "dev-user")["user"]["exec"]["args"][1]
                .as<std::string>(),
            "dev");
  EXPECT_EQ(Mode(path), 0600u);
}

TEST_F(KubeconfigTest, RemergeReplacesWithoutDuplicating) {
  std::string path = dir_ + "/config";
  Write(path, kOtherConfig);
  ASSERT_TRUE(MergeKubeconfig(path, TestEntry()).ok());
  Entry moved = TestEntry();
  moved.server = "https://10.0.0.5:7443";
  moved.token.clear();
  ASSERT_TRUE(MergeKubeconfig(path, moved).ok());

  YAML::Node root = YAML::LoadFile(path);
  EXPECT_EQ(Names(root, "clusters"),
            (std::vector<std::string>{"prod", "dev", "kubemock"}));
  EXPECT_EQ(Names(root, "users"),
            (std::vector<std::string>{"prod-admin", "dev-user", "kubemock"}));
  EXPECT_EQ(Names(root, "contexts"),
            (std::vector<std::string>{"prod", "dev", "kubemock"}));
  EXPECT_EQ(
      Find(root, "clusters", "kubemock")["cluster"]["server"].as<std::string>(),
      "https://10.0.0.5:7443");
  EXPECT_FALSE(Find(root, "users", "kubemock")["user"]["token"]);
}

TEST_F(KubeconfigTest, MergeCreatesMissingFileAndDirectory) {
  std::string path = dir_ + "/home/.kube/config";
  ASSERT_TRUE(MergeKubeconfig(path, TestEntry()).ok());
  EXPECT_EQ(Mode(dir_ + "/home/.kube"), 0700u);
  EXPECT_EQ(Mode(dir_ + "/home"), 0700u);
  EXPECT_EQ(Mode(path), 0600u);
  YAML::Node root = YAML::LoadFile(path);
  EXPECT_EQ(root["apiVersion"].as<std::string>(), "v1");
  EXPECT_EQ(root["kind"].as<std::string>(), "Config");
  EXPECT_EQ(root["current-context"].as<std::string>(), "kubemock");
  EXPECT_EQ(Names(root, "clusters"), std::vector<std::string>{"kubemock"});
  // No lock or temporary file is left behind.
  std::vector<std::string> files;
  for (const auto& f : fs::directory_iterator(dir_ + "/home/.kube")) {
    files.push_back(f.path().filename());
  }
  EXPECT_EQ(files, std::vector<std::string>{"config"});
}

TEST_F(KubeconfigTest, MergeIntoEmptyFile) {
  std::string path = dir_ + "/config";
  Write(path, "");
  ASSERT_TRUE(MergeKubeconfig(path, TestEntry()).ok());
  EXPECT_EQ(Names(YAML::LoadFile(path), "users"),
            std::vector<std::string>{"kubemock"});
}

TEST_F(KubeconfigTest, MalformedFileIsLeftUntouched) {
  for (const char* bad : {"clusters: [unclosed\n", "- just\n- a list\n",
                          "clusters: {a: b}\n", "users:\n- plain string\n"}) {
    std::string path = dir_ + "/config";
    Write(path, bad);
    chmod(path.c_str(), 0644);
    Status s = MergeKubeconfig(path, TestEntry());
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_THAT(s.message(), HasSubstr("left unchanged")) << bad;
    EXPECT_EQ(Read(path), bad);
    EXPECT_EQ(Mode(path), 0644u);
    EXPECT_FALSE(fs::exists(path + ".lock"));
  }
}

TEST_F(KubeconfigTest, LockHeldByAnotherWriterFails) {
  std::string path = dir_ + "/config";
  Write(path, kOtherConfig);
  Write(path + ".lock", "");
  Status s = MergeKubeconfig(path, TestEntry());
  EXPECT_EQ(s.code(), StatusCode::kConflict);
  EXPECT_EQ(Read(path), kOtherConfig);
}

TEST_F(KubeconfigTest, SymlinkedConfigStaysASymlink) {
  std::string real = dir_ + "/real-config";
  std::string link = dir_ + "/config";
  Write(real, kOtherConfig);
  fs::create_symlink("real-config", link);
  ASSERT_TRUE(MergeKubeconfig(link, TestEntry()).ok());
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(YAML::LoadFile(real)["current-context"].as<std::string>(),
            "kubemock");
}

TEST_F(KubeconfigTest, StandaloneHoldsOnlyOurEntry) {
  std::string path = dir_ + "/standalone";
  Write(path, kOtherConfig);  // overwritten, not merged
  ASSERT_TRUE(WriteStandaloneKubeconfig(path, TestEntry()).ok());
  EXPECT_EQ(Mode(path), 0600u);
  YAML::Node root = YAML::LoadFile(path);
  EXPECT_EQ(root["current-context"].as<std::string>(), "kubemock");
  EXPECT_EQ(Names(root, "clusters"), std::vector<std::string>{"kubemock"});
  EXPECT_EQ(Names(root, "users"), std::vector<std::string>{"kubemock"});
  EXPECT_EQ(Names(root, "contexts"), std::vector<std::string>{"kubemock"});
}

TEST_F(KubeconfigTest, EntryNeedsServerAndBothKeyHalves) {
  Entry e = TestEntry();
  e.server.clear();
  EXPECT_FALSE(StandaloneKubeconfigText(e).ok());
  e = TestEntry();
  e.client_key_pem.clear();
  EXPECT_FALSE(StandaloneKubeconfigText(e).ok());
  e = TestEntry();
  e.client_cert_pem.clear();
  e.client_key_pem.clear();
  auto text = StandaloneKubeconfigText(e);  // token only is fine
  ASSERT_TRUE(text.ok());
  EXPECT_THAT(*text, Not(HasSubstr("client-key-data")));
}

TEST_F(KubeconfigTest, DefaultPathFollowsKubectlRules) {
  EXPECT_EQ(DefaultKubeconfigPathFrom("", "/home/u"), "/home/u/.kube/config");
  EXPECT_EQ(DefaultKubeconfigPathFrom("/nope/a:/nope/b", "/home/u"), "/nope/a");
  std::string existing = dir_ + "/exists";
  Write(existing, "");
  EXPECT_EQ(DefaultKubeconfigPathFrom("/nope/a:" + existing, "/home/u"),
            existing);
  EXPECT_EQ(DefaultKubeconfigPathFrom("::/nope/c", "/home/u"), "/nope/c");

  std::string saved_env = getenv("KUBECONFIG") ? getenv("KUBECONFIG") : "";
  bool had_env = getenv("KUBECONFIG") != nullptr;
  setenv("KUBECONFIG", (existing + ":/nope/z").c_str(), 1);
  EXPECT_EQ(DefaultKubeconfigPath(), existing);
  unsetenv("KUBECONFIG");
  EXPECT_THAT(DefaultKubeconfigPath(), HasSubstr("/.kube/config"));
  if (had_env) setenv("KUBECONFIG", saved_env.c_str(), 1);
}

TEST(Base64Test, RoundTripsAndMatchesKnownVectors) {
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foo"), "Zm9v");
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64Encode(std::string("\xff\xfe\x00", 3)), "//4A");
  EXPECT_EQ(Base64Decode("Zm9vYg=="), "foob");
  EXPECT_EQ(Base64Decode("Zm9vYmE="), "fooba");
  EXPECT_EQ(Base64Decode("Zm9"), std::nullopt);
  EXPECT_EQ(Base64Decode("Zm=v"), std::nullopt);
  EXPECT_EQ(Base64Decode("Z!9v"), std::nullopt);
}

}  // namespace
}  // namespace kmock::kubeconfig
