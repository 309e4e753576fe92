#include "cmd/serve_options.h"

#include <cstdlib>

namespace kmock::cmd {

namespace {

Status FlagError(const std::string& msg) {
  return Status(StatusCode::kBadRequest, msg);
}

Result<int64_t> ParseInt(const std::string& flag, const std::string& v,
                         int64_t min, int64_t max) {
  if (v.empty()) return FlagError(flag + " needs a number");
  char* end = nullptr;
  long long n = std::strtoll(v.c_str(), &end, 10);
  if (*end != '\0') return FlagError(flag + ": not a number: " + v);
  if (n < min || n > max)
    return FlagError(flag + ": " + v + " is out of range [" +
                     std::to_string(min) + ", " + std::to_string(max) + "]");
  return int64_t(n);
}

// A network timeout: a duration of at least 100ms.
Result<int64_t> ParseTimeout(const std::string& flag,
                             Result<std::string> value) {
  if (!value.ok()) return value.status();
  Result<int64_t> ms = ParseDurationMillis(*value);
  if (!ms.ok()) return FlagError(flag + ": " + ms.status().message());
  if (*ms < 100) return FlagError(flag + " must be at least 100ms");
  return *ms;
}

}  // namespace

std::string DefaultDataDir() {
  if (const char* d = std::getenv("KUBEMOCK_DATA_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x)
    return std::string(x) + "/kubemock";
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : ".") + "/.local/share/kubemock";
}

Result<std::string> NormalizeKubernetesVersion(const std::string& v) {
  std::string s = (!v.empty() && v[0] == 'v') ? v.substr(1) : v;
  int parts[3] = {0, 0, 0};
  int n = 0;
  size_t i = 0;
  while (n < 3) {
    size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == start) break;
    parts[n++] = std::atoi(s.substr(start, i - start).c_str());
    if (i < s.size() && s[i] == '.')
      ++i;
    else
      break;
  }
  if (n < 2 || i != s.size() || parts[0] != 1)
    return FlagError(
        "--kubernetes-version: expected 1.MINOR or 1.MINOR.PATCH, got " + v);
  return std::to_string(parts[0]) + "." + std::to_string(parts[1]) + "." +
         std::to_string(parts[2]);
}

Result<int64_t> ParseDurationMillis(const std::string& text) {
  if (text == "instant" || text == "0") return int64_t{0};
  size_t i = 0;
  while (i < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.'))
    ++i;
  if (i == 0) return FlagError("bad duration: " + text);
  double n = std::atof(text.substr(0, i).c_str());
  std::string unit = text.substr(i);
  double ms;
  if (unit == "ms")
    ms = n;
  else if (unit == "s")
    ms = n * 1000;
  else if (unit == "m")
    ms = n * 60000;
  else if (unit == "h")
    ms = n * 3600000;
  else
    return FlagError("bad duration: " + text + " (use ms, s, m or h)");
  return int64_t(ms);
}

Result<ServeOptions> ParseServeOptions(const std::vector<std::string>& args) {
  ServeOptions o;
  o.data_dir = DefaultDataDir();
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    std::string value;
    bool has_value = false;
    if (auto eq = a.find('=');
        a.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = a.substr(eq + 1);
      a = a.substr(0, eq);
      has_value = true;
    }
    auto next = [&]() -> Result<std::string> {
      if (has_value) return value;
      if (i + 1 >= args.size()) return FlagError(a + " needs a value");
      return args[++i];
    };
    if (a == "-h" || a == "--help") {
      o.help = true;
    } else if (a == "--in-memory") {
      o.in_memory = true;
    } else if (a == "-v" || a == "--verbose") {
      o.verbose = true;
    } else if (a == "--bind") {
      KMOCK_ASSIGN_OR_RETURN(o.bind, next());
    } else if (a == "--port") {
      KMOCK_ASSIGN_OR_RETURN(std::string v, next());
      KMOCK_ASSIGN_OR_RETURN(int64_t p, ParseInt(a, v, 0, 65535));
      o.port = int(p);
    } else if (a == "--data-dir") {
      KMOCK_ASSIGN_OR_RETURN(o.data_dir, next());
    } else if (a == "--kubeconfig") {
      KMOCK_ASSIGN_OR_RETURN(o.kubeconfig, next());
    } else if (a == "--cluster") {
      KMOCK_ASSIGN_OR_RETURN(o.cluster_file, next());
    } else if (a == "--kubernetes-version") {
      KMOCK_ASSIGN_OR_RETURN(std::string v, next());
      KMOCK_ASSIGN_OR_RETURN(o.kubernetes_version,
                             NormalizeKubernetesVersion(v));
    } else if (a == "--seed") {
      KMOCK_ASSIGN_OR_RETURN(std::string v, next());
      KMOCK_ASSIGN_OR_RETURN(int64_t s, ParseInt(a, v, 0, INT64_MAX));
      o.seed = uint64_t(s);
    } else if (a == "--max-connections" || a == "--threads") {
      KMOCK_ASSIGN_OR_RETURN(std::string v, next());
      KMOCK_ASSIGN_OR_RETURN(int64_t t, ParseInt(a, v, 8, 100000));
      o.max_connections = int(t);
    } else if (a == "--max-request-bytes") {
      KMOCK_ASSIGN_OR_RETURN(std::string v, next());
      KMOCK_ASSIGN_OR_RETURN(o.max_request_bytes,
                             ParseInt(a, v, 1024, int64_t(1) << 34));
    } else if (a == "--request-header-timeout") {
      KMOCK_ASSIGN_OR_RETURN(o.request_header_timeout_ms,
                             ParseTimeout(a, next()));
    } else if (a == "--request-timeout") {
      KMOCK_ASSIGN_OR_RETURN(o.request_timeout_ms, ParseTimeout(a, next()));
    } else if (a == "--keep-alive-timeout") {
      KMOCK_ASSIGN_OR_RETURN(o.keep_alive_timeout_ms, ParseTimeout(a, next()));
    } else if (a == "--write-timeout") {
      KMOCK_ASSIGN_OR_RETURN(o.write_timeout_ms, ParseTimeout(a, next()));
    } else if (a == "--watch-queue-limit") {
      KMOCK_ASSIGN_OR_RETURN(std::string v, next());
      KMOCK_ASSIGN_OR_RETURN(o.watch_queue_limit,
                             ParseInt(a, v, 10, int64_t(1) << 30));
    } else if (a == "--compaction-interval") {
      KMOCK_ASSIGN_OR_RETURN(std::string v, next());
      KMOCK_ASSIGN_OR_RETURN(int64_t ms, ParseDurationMillis(v));
      o.compaction_interval_seconds = int(ms / 1000);
    } else if (a == "--event-ttl") {
      KMOCK_ASSIGN_OR_RETURN(std::string v, next());
      KMOCK_ASSIGN_OR_RETURN(int64_t ms, ParseDurationMillis(v));
      if (ms != 0 && ms < 1000)
        return FlagError("--event-ttl must be 0 or at least 1s");
      o.event_ttl_seconds = ms / 1000;
    } else if (a == "--watch-bookmark-interval") {
      KMOCK_ASSIGN_OR_RETURN(std::string v, next());
      KMOCK_ASSIGN_OR_RETURN(o.watch_bookmark_interval_ms,
                             ParseDurationMillis(v));
      if (o.watch_bookmark_interval_ms < 10)
        return FlagError("--watch-bookmark-interval must be at least 10ms");
    } else if (a == "--pace") {
      KMOCK_ASSIGN_OR_RETURN(o.pace, next());
      KMOCK_RETURN_IF_ERROR(ParseDurationMillis(o.pace).status());
    } else {
      return FlagError("unknown flag: " + args[i] +
                       " (see kubemock serve --help)");
    }
  }
  if (o.kubernetes_version.find('.') == o.kubernetes_version.rfind('.')) {
    KMOCK_ASSIGN_OR_RETURN(o.kubernetes_version,
                           NormalizeKubernetesVersion(o.kubernetes_version));
  }
  return o;
}

std::string TopLevelHelp() {
  return R"(kubemock: a Kubernetes control plane that kubectl cannot tell from a real cluster.

Usage:
  kubemock serve [flags]   start the API server with its store and controllers
  kubemock repair [flags]  recover a store whose write-ahead log is damaged
  kubemock version         print the version
  kubemock help            this text

Run 'kubemock serve --help' for the server's flags, 'kubemock repair --help'
for the repair's.
)";
}

std::string ServeHelp() {
  return R"(Usage: kubemock serve [flags]

Starts an HTTPS Kubernetes API server with its store, scheduler, controllers
and fake kubelets, writes a kubeconfig, and prints one line when ready:
  kubemock ready: https://127.0.0.1:6443 kubeconfig=/home/me/.kube/config context=kubemock

Flags:
  --bind ADDR               address to listen on (default 127.0.0.1)
  --port N                  port to listen on; 0 picks a free port (default 6443)
  --data-dir DIR            store and PKI directory (default $KUBEMOCK_DATA_DIR,
                            else $XDG_DATA_HOME/kubemock, else
                            ~/.local/share/kubemock)
  --kubeconfig PATH         write a standalone kubeconfig to PATH instead of
                            merging the 'kubemock' context into the file kubectl
                            reads (the first path of $KUBECONFIG, else
                            ~/.kube/config)
  --cluster FILE            cluster topology (YAML or JSON; see
                            docs/cluster-file.md); default: the built-in
                            five-node cluster
  --in-memory               keep everything in memory: nothing is written to
                            disk except the kubeconfig (for CI)
  --kubernetes-version V    the version /version reports, nodes run and whose
                            API is served, 1.MINOR or 1.MINOR.PATCH (default
                            1.33)
  --seed N                  seed of the random source behind generated names,
                            UIDs and IDs, so a run can be reproduced (default:
                            random)
  --pace D                  delay of each fake kubelet step ("instant", "500ms",
                            "2s"), to watch pods start in a classroom
                            (default instant)
  --max-connections N       connections served at once, each on its own
                            thread started on demand (an open watch is one);
                            more are closed before the TLS handshake
                            (default 10000; --threads is an old name)
  --max-request-bytes N     largest request body accepted; larger gets 413
                            (default 3145728)
  --request-header-timeout D
                            a connection must finish its TLS handshake and
                            request header within this, however slowly it
                            sends (default 32s)
  --request-timeout D       a request with a body must be read and answered
                            within this (default 1m)
  --keep-alive-timeout D    an idle connection is closed after this
                            (default 30s)
  --write-timeout D         a client that reads nothing for this long (a
                            stalled watch) is disconnected (default 10s)
  --watch-queue-limit N     events queued for one slow watch before it is
                            closed; clients watch again (default 10000)
  --compaction-interval D   how often store history is compacted, keeping one
                            interval of history; 0 disables (default 5m)
  --event-ttl D             events are deleted this long after their last
                            write; 0 keeps them (default 1h)
  --watch-bookmark-interval D
                            how often an idle watch that allows bookmarks
                            gets a BOOKMARK event (default 1m)
  -v, --verbose             log every request, and the start-up phases, to stderr
  -h, --help                this text
)";
}

}  // namespace kmock::cmd
