#include "cmd/serve_options.h"

#include <gtest/gtest.h>

namespace kmock::cmd {
namespace {

TEST(ServeOptionsTest, Defaults) {
  auto o = ParseServeOptions({});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->bind, "127.0.0.1");
  EXPECT_EQ(o->port, 6443);
  EXPECT_EQ(o->kubernetes_version, "1.33.0");
  EXPECT_FALSE(o->in_memory);
  EXPECT_FALSE(o->seed.has_value());
}

TEST(ServeOptionsTest, ParsesEveryFlag) {
  auto o = ParseServeOptions({"--bind",
                              "0.0.0.0",
                              "--port=0",
                              "--data-dir",
                              "/tmp/x",
                              "--kubeconfig",
                              "/tmp/kc",
                              "--cluster",
                              "c.yaml",
                              "--in-memory",
                              "--kubernetes-version",
                              "v1.30.2",
                              "--seed",
                              "7",
                              "--pace",
                              "500ms",
                              "--threads",
                              "64",
                              "--watch-bookmark-interval",
                              "250ms"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->bind, "0.0.0.0");
  EXPECT_EQ(o->port, 0);
  EXPECT_EQ(o->data_dir, "/tmp/x");
  EXPECT_EQ(o->kubeconfig, "/tmp/kc");
  EXPECT_EQ(o->cluster_file, "c.yaml");
  EXPECT_TRUE(o->in_memory);
  EXPECT_EQ(o->kubernetes_version, "1.30.2");
  EXPECT_EQ(*o->seed, 7u);
  EXPECT_EQ(o->pace, "500ms");
  EXPECT_EQ(o->max_connections, 64);
  EXPECT_EQ(o->watch_bookmark_interval_ms, 250);
}

TEST(ServeOptionsTest, RejectsBadInput) {
  EXPECT_FALSE(ParseServeOptions({"--port", "70000"}).ok());
  EXPECT_FALSE(ParseServeOptions({"--port"}).ok());
  EXPECT_FALSE(ParseServeOptions({"--nope"}).ok());
  EXPECT_FALSE(ParseServeOptions({"--kubernetes-version", "2.0"}).ok());
  EXPECT_FALSE(ParseServeOptions({"--pace", "fast"}).ok());
  EXPECT_FALSE(ParseServeOptions({"--watch-bookmark-interval", "1ms"}).ok());
}

TEST(ServeOptionsTest, LimitDefaults) {
  auto o = ParseServeOptions({});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->max_connections, 10000);
  EXPECT_EQ(o->max_request_bytes, 3 * 1024 * 1024);
  EXPECT_EQ(o->request_header_timeout_ms, 32000);
  EXPECT_EQ(o->request_timeout_ms, 60000);
  EXPECT_EQ(o->keep_alive_timeout_ms, 30000);
  EXPECT_EQ(o->write_timeout_ms, 10000);
  EXPECT_EQ(o->watch_queue_limit, 10000);
}

TEST(ServeOptionsTest, ParsesLimitFlags) {
  auto o = ParseServeOptions(
      {"--max-connections", "2000", "--max-request-bytes=1048576",
       "--request-header-timeout", "3s", "--request-timeout=2m",
       "--keep-alive-timeout", "500ms", "--write-timeout", "2s",
       "--watch-queue-limit", "500"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->max_connections, 2000);
  EXPECT_EQ(o->max_request_bytes, 1048576);
  EXPECT_EQ(o->request_header_timeout_ms, 3000);
  EXPECT_EQ(o->request_timeout_ms, 120000);
  EXPECT_EQ(o->keep_alive_timeout_ms, 500);
  EXPECT_EQ(o->write_timeout_ms, 2000);
  EXPECT_EQ(o->watch_queue_limit, 500);
  // --threads stays an accepted name of --max-connections.
  auto old = ParseServeOptions({"--threads", "300"});
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old->max_connections, 300);
}

TEST(ServeOptionsTest, RejectsBadLimits) {
  EXPECT_FALSE(ParseServeOptions({"--max-connections", "0"}).ok());
  EXPECT_FALSE(ParseServeOptions({"--request-header-timeout", "10ms"}).ok());
  EXPECT_FALSE(ParseServeOptions({"--write-timeout", "soon"}).ok());
  EXPECT_FALSE(ParseServeOptions({"--keep-alive-timeout"}).ok());
  EXPECT_FALSE(ParseServeOptions({"--watch-queue-limit", "-1"}).ok());
  auto st = ParseServeOptions({"--request-timeout", "1d"});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.status().message().find("--request-timeout"), std::string::npos);
}

TEST(ServeOptionsTest, Durations) {
  EXPECT_EQ(*ParseDurationMillis("instant"), 0);
  EXPECT_EQ(*ParseDurationMillis("250ms"), 250);
  EXPECT_EQ(*ParseDurationMillis("2s"), 2000);
  EXPECT_EQ(*ParseDurationMillis("1m"), 60000);
  EXPECT_EQ(*ParseDurationMillis("2h"), 7200000);
  EXPECT_FALSE(ParseDurationMillis("1d").ok());
}

TEST(ServeOptionsTest, EventTtl) {
  auto def = ParseServeOptions({});
  ASSERT_TRUE(def.ok());
  EXPECT_EQ(def->event_ttl_seconds, 3600);
  auto o = ParseServeOptions({"--event-ttl", "30m"});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->event_ttl_seconds, 1800);
  auto off = ParseServeOptions({"--event-ttl=0"});
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(off->event_ttl_seconds, 0);
  EXPECT_FALSE(ParseServeOptions({"--event-ttl", "500ms"}).ok());
}

}  // namespace
}  // namespace kmock::cmd
