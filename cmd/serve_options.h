// Command-line options of `kubemock serve`, their defaults and --help text.
//
// Thread safety: plain values; parsed once in main.
#ifndef KMOCK_CMD_SERVE_OPTIONS_H_
#define KMOCK_CMD_SERVE_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace kmock::cmd {

struct ServeOptions {
  std::string bind = "127.0.0.1";
  int port = 6443;
  std::string data_dir;    // default: DefaultDataDir()
  std::string kubeconfig;  // empty: merge into the file kubectl reads
  std::string cluster_file;
  bool in_memory = false;
  std::string kubernetes_version = "1.33";
  std::optional<uint64_t> seed;
  // Limits (docs/limits.md). --threads is the old name of
  // --max-connections.
  int max_connections = 10000;
  int64_t max_request_bytes = 3 * 1024 * 1024;
  int64_t request_header_timeout_ms = 32000;
  int64_t request_timeout_ms = 60000;
  int64_t keep_alive_timeout_ms = 30000;
  int64_t write_timeout_ms = 10000;
  int64_t watch_queue_limit = 10000;
  int compaction_interval_seconds = 300;
  // How long an event lives after its last write (kube-apiserver's
  // --event-ttl); 0 keeps events for ever.
  int64_t event_ttl_seconds = 3600;
  int64_t watch_bookmark_interval_ms = 60000;
  // Pace of the fake kubelets' steps, for classrooms: "instant" or a
  // duration per step such as "500ms", "2s".
  std::string pace = "instant";
  bool verbose = false;
  bool help = false;
};

// $KUBEMOCK_DATA_DIR, else $XDG_DATA_HOME/kubemock, else
// $HOME/.local/share/kubemock.
std::string DefaultDataDir();

// Parses the arguments after "serve". Errors name the bad flag.
Result<ServeOptions> ParseServeOptions(const std::vector<std::string>& args);

// "1.33" or "v1.33.2" → "1.33.0"-style full version "major.minor.patch".
Result<std::string> NormalizeKubernetesVersion(const std::string& v);

// Parses "500ms", "2s", "1m", "instant" (= 0) into milliseconds.
Result<int64_t> ParseDurationMillis(const std::string& text);

std::string ServeHelp();
std::string TopLevelHelp();

}  // namespace kmock::cmd

#endif  // KMOCK_CMD_SERVE_OPTIONS_H_
