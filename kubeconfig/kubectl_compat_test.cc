// What a real kubectl makes of the files we write. Skipped when the
// kubectl binary is not installed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "kubeconfig/base64.h"
#include "kubeconfig/kubeconfig.h"

namespace kmock::kubeconfig {
namespace {

namespace fs = std::filesystem;

const char kKubectl[] = "/usr/lib/google-cloud-sdk/bin/kubectl.1.33";

// Runs a command; returns its stdout, or "<exit N>" appended on failure.
std::string RunCommand(const std::string& cmd) {
  std::string out;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (p == nullptr) return "<popen failed>";
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  int rc = pclose(p);
  if (rc != 0) out += "<exit " + std::to_string(rc) + ">";
  return out;
}

class KubectlCompatTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access(kKubectl, X_OK) != 0)
      GTEST_SKIP() << kKubectl << " not installed";
    std::string tmpl = fs::temp_directory_path() / "kmock-kubectl-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    entry_.server = "https://127.0.0.1:6443";
    entry_.ca_pem =
        "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
    entry_.client_cert_pem =
        "-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n";
    entry_.client_key_pem =
        "-----BEGIN PRIVATE KEY-----\nMIGH\n-----END PRIVATE KEY-----\n";
    entry_.token = "f00dfeed";
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }
  std::string Kubectl(const std::string& args, const std::string& file) {
    return RunCommand(std::string(kKubectl) + " " + args + " --kubeconfig " +
                      file);
  }

  std::string dir_;
  Entry entry_;
};

TEST_F(KubectlCompatTest, MergedFileListsAllContexts) {
  std::string path = dir_ + "/config";
  std::ofstream(path)
      << "apiVersion: v1\nkind: Config\n"
         "clusters:\n- cluster:\n    server: https://a:1\n  name: a\n"
         "- cluster:\n    server: https://b:1\n  name: b\n"
         "contexts:\n- context: {cluster: a, user: a}\n  name: a\n"
         "- context: {cluster: b, user: b, namespace: \"007\"}\n  name: b\n"
         "users:\n- name: a\n  user: {token: \"123\"}\n"
         "- name: b\n  user: {username: u, password: \"true\"}\n"
         "current-context: a\n";
  ASSERT_TRUE(MergeKubeconfig(path, entry_).ok());
  EXPECT_EQ(Kubectl("config get-contexts -o name", path), "a\nb\nkubemock\n");
  EXPECT_EQ(Kubectl("config current-context", path), "kubemock\n");
  EXPECT_EQ(
      Kubectl("config view --raw -o jsonpath={.contexts[1].context.namespace}",
              path),
      "007");
  EXPECT_EQ(
      Kubectl("config view --raw -o jsonpath={.users[1].user.password}", path),
      "true");
  EXPECT_EQ(
      Kubectl("config view --raw -o jsonpath={.users[0].user.token}", path),
      "123");
}

TEST_F(KubectlCompatTest, ViewRawReturnsWhatWeEmbedded) {
  std::string path = dir_ + "/standalone";
  ASSERT_TRUE(WriteStandaloneKubeconfig(path, entry_).ok());
  EXPECT_EQ(Kubectl("config get-contexts -o name", path), "kubemock\n");
  EXPECT_EQ(Kubectl("config view --raw --minify -o "
                    "jsonpath={.clusters[0].cluster.server}",
                    path),
            entry_.server);
  auto field = [&](const std::string& jsonpath) {
    return Base64Decode(
        Kubectl("config view --raw -o jsonpath={" + jsonpath + "}", path));
  };
  EXPECT_EQ(field(".clusters[0].cluster.certificate-authority-data"),
            entry_.ca_pem);
  EXPECT_EQ(field(".users[0].user.client-certificate-data"),
            entry_.client_cert_pem);
  EXPECT_EQ(field(".users[0].user.client-key-data"), entry_.client_key_pem);
  EXPECT_EQ(
      Kubectl("config view --raw -o jsonpath={.users[0].user.token}", path),
      entry_.token);
}

}  // namespace
}  // namespace kmock::kubeconfig
