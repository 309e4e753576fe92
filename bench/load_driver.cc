// load_driver: the client side of the kubemock benchmarks (bench/run).
//
//   load_driver load    --port P --path PATH [--ca F --cert F --key F]
//                       [--header "K: V"]... [--connections N]
//                       [--duration S] [--warmup S] [--max-requests N]
//   load_driver fetch   --port P --path PATH [...] --out FILE
//   load_driver requests --port P --path TEMPLATE [--method M]
//                       [--body-file F --content-type T] [--expect 200,201]
//                       [--keep-alive 1|0] [--plain-http 0|1]
//                       [--etcd-key TEMPLATE] [--first-n N] [--connections N]
//                       [--duration S] [--warmup S] [--max-requests N]
//   load_driver watchlat --port P --watch-path PATH --path WRITE_PATH
//                       --body-file F [--content-type T] [--method M]
//                       [--updates N] [--connections N] [--wait-event 1|0]
//                       [--first-n N] [--timeout S]
//   load_driver startup --stdout-file F [--stderr-file F] [--pid-file F]
//                       (--ready-prefix STR | --port P) [--path /readyz]
//                       [--timeout S] -- COMMAND...
//
// In templates (path, body file, etcd key) "@N@" is the request's sequence
// number. --etcd-key turns each request into an etcd JSON-gateway put of the
// body under that key. Each prints one JSON object on stdout; exit status 0 on
// success, 1 when the run failed, 2 on bad usage. It connects to loopback
// addresses only.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "driver/etcd_load.h"
#include "driver/flags.h"
#include "driver/https_load.h"
#include "driver/request_template.h"
#include "driver/startup_probe.h"
#include "driver/watch_latency.h"
#include "driver/write_load.h"

namespace kmock::bench {
namespace {

const std::set<std::string> kEndpointFlags = {"host", "port", "ca",    "cert",
                                              "key",  "path", "header"};

int Usage(const std::string& why) {
  std::fprintf(stderr,
               "load_driver: %s\nusage: load_driver "
               "load|fetch|requests|watchlat|startup "
               "[flags] (see the comment at the top of load_driver.cc)\n",
               why.c_str());
  return 2;
}

bool ReadEndpoint(const Flags& f, Endpoint* e, std::string* path,
                  httplib::Headers* headers, std::string* error) {
  e->host = f.Get("host", "127.0.0.1");
  if (!IsLoopbackHost(e->host)) {
    *error = "--host must be a loopback address, not " + e->host;
    return false;
  }
  e->port = static_cast<int>(f.GetInt("port", 0, error));
  if (e->port <= 0 || e->port > 65535) {
    if (error->empty()) *error = "--port is required";
    return false;
  }
  e->ca_file = f.Get("ca");
  e->cert_file = f.Get("cert");
  e->key_file = f.Get("key");
  if (e->cert_file.empty() != e->key_file.empty()) {
    *error = "--cert and --key go together";
    return false;
  }
  *path = f.Get("path");
  if (path->empty() || (*path)[0] != '/') {
    *error = "--path /... is required";
    return false;
  }
  for (const std::string& h : f.GetAll("header")) {
    size_t colon = h.find(':');
    if (colon == std::string::npos) {
      *error = "--header wants \"Name: value\", got " + h;
      return false;
    }
    size_t v = h.find_first_not_of(' ', colon + 1);
    headers->emplace(h.substr(0, colon),
                     v == std::string::npos ? "" : h.substr(v));
  }
  return true;
}

int Load(const Flags& f) {
  std::set<std::string> allowed = kEndpointFlags;
  allowed.insert({"connections", "duration", "warmup", "max-requests"});
  if (auto u = f.Unknown(allowed); !u.empty()) return Usage("unknown " + u[0]);
  LoadOptions o;
  std::string error;
  if (!ReadEndpoint(f, &o.endpoint, &o.path, &o.headers, &error))
    return Usage(error);
  o.connections = static_cast<int>(f.GetInt("connections", 1, &error));
  o.duration_seconds = f.GetDouble("duration", 5, &error);
  o.warmup_seconds = f.GetDouble("warmup", 0.5, &error);
  o.max_requests = f.GetInt("max-requests", 1000000, &error);
  if (!error.empty()) return Usage(error);
  if (o.connections < 1 || o.connections > 1000 || o.duration_seconds <= 0 ||
      o.duration_seconds > 600 || o.max_requests < 1) {
    return Usage("need 1..1000 connections, 0..600 s, max-requests >= 1");
  }
  LoadResult r = RunLoad(o);
  std::printf(
      "{\"requests\": %lld, \"errors\": %lld, \"other_sizes\": %lld, "
      "\"seconds\": %.3f, "
      "\"rps\": %.1f, \"p50_us\": %.0f, \"p99_us\": %.0f, \"mean_us\": %.1f, "
      "\"max_us\": %.0f, \"connects\": %lld, \"connections\": %d, "
      "\"response_bytes\": %zu, \"first_error\": %s}\n",
      static_cast<long long>(r.requests), static_cast<long long>(r.errors),
      static_cast<long long>(r.other_sizes), r.seconds, r.requests_per_second,
      r.p50_us, r.p99_us, r.mean_us, r.max_us,
      static_cast<long long>(r.connects), o.connections, r.response_bytes,
      JsonString(r.first_error).c_str());
  return r.requests > 0 && r.errors == 0 ? 0 : 1;
}

int Fetch(const Flags& f) {
  std::set<std::string> allowed = kEndpointFlags;
  allowed.insert("out");
  if (auto u = f.Unknown(allowed); !u.empty()) return Usage("unknown " + u[0]);
  Endpoint e;
  std::string path, error, body;
  httplib::Headers headers;
  if (!ReadEndpoint(f, &e, &path, &headers, &error)) return Usage(error);
  if (!f.Has("out")) return Usage("--out FILE is required");
  int status = 0;
  if (!FetchOnce(e, path, headers, &status, &body, &error)) {
    std::printf("{\"ok\": false, \"error\": %s}\n", JsonString(error).c_str());
    return 1;
  }
  std::ofstream(f.Get("out"), std::ios::binary) << body;
  std::printf("{\"ok\": %s, \"status\": %d, \"bytes\": %zu}\n",
              status == 200 ? "true" : "false", status, body.size());
  return status == 200 ? 0 : 1;
}

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  *out = s.str();
  return true;
}

bool ParseStatuses(const std::string& list, std::set<int>* out) {
  out->clear();
  size_t from = 0;
  while (from <= list.size()) {
    size_t comma = list.find(',', from);
    if (comma == std::string::npos) comma = list.size();
    const std::string word = list.substr(from, comma - from);
    char* end = nullptr;
    long v = std::strtol(word.c_str(), &end, 10);
    if (word.empty() || *end != '\0' || v < 100 || v > 599) return false;
    out->insert(static_cast<int>(v));
    from = comma + 1;
  }
  return !out->empty();
}

bool IsMethod(const std::string& m) {
  return m == "GET" || m == "POST" || m == "PUT" || m == "PATCH";
}

int Requests(const Flags& f) {
  std::set<std::string> allowed = kEndpointFlags;
  allowed.insert({"method", "body-file", "content-type", "expect", "keep-alive",
                  "plain-http", "etcd-key", "first-n", "connections",
                  "duration", "warmup", "max-requests"});
  if (auto u = f.Unknown(allowed); !u.empty()) return Usage("unknown " + u[0]);
  RequestLoadOptions o;
  std::string error, path_template, body_template;
  if (!ReadEndpoint(f, &o.endpoint, &path_template, &o.headers, &error))
    return Usage(error);
  o.method = f.Get("method", "GET");
  if (!IsMethod(o.method)) return Usage("--method GET|POST|PUT|PATCH");
  if (f.Has("body-file") && !ReadFile(f.Get("body-file"), &body_template))
    return Usage("cannot read " + f.Get("body-file"));
  o.content_type = f.Get("content-type", "application/json");
  if (!ParseStatuses(f.Get("expect", "200"), &o.ok_statuses))
    return Usage("--expect wants statuses like 200,201");
  o.keep_alive = f.Get("keep-alive", "1") != "0";
  o.plain_http = f.Get("plain-http", "0") != "0";
  o.first_n = f.GetInt("first-n", 1, &error);
  o.connections = static_cast<int>(f.GetInt("connections", 1, &error));
  o.duration_seconds = f.GetDouble("duration", 5, &error);
  o.warmup_seconds = f.GetDouble("warmup", 0.5, &error);
  o.max_requests = f.GetInt("max-requests", 1000000, &error);
  if (!error.empty()) return Usage(error);
  if (o.connections < 1 || o.connections > 1000 || o.duration_seconds <= 0 ||
      o.duration_seconds > 600 || o.max_requests < 1) {
    return Usage("need 1..1000 connections, 0..600 s, max-requests >= 1");
  }
  if (f.Has("etcd-key")) {
    const std::string key_template = f.Get("etcd-key");
    o.method = "POST";
    o.content_type = "application/json";
    o.make = [key_template, body_template](int64_t n, std::string* path,
                                           std::string* body) {
      *path = kEtcdPutPath;
      *body = EtcdPutBody(ExpandTemplate(key_template, n),
                          ExpandTemplate(body_template, n));
    };
  } else {
    o.make = [path_template, body_template](int64_t n, std::string* path,
                                            std::string* body) {
      *path = ExpandTemplate(path_template, n);
      *body = ExpandTemplate(body_template, n);
    };
  }
  RequestLoadResult r = RunRequestLoad(o);
  std::printf(
      "{\"requests\": %lld, \"errors\": %lld, \"warmup_requests\": %lld, "
      "\"seconds\": %.3f, \"rps\": %.1f, \"p50_us\": %.0f, \"p90_us\": %.0f, "
      "\"p99_us\": %.0f, \"mean_us\": %.1f, \"max_us\": %.0f, "
      "\"connects\": %lld, \"connections\": %d, \"last_n\": %lld, "
      "\"response_bytes\": %zu, \"first_error\": %s}\n",
      static_cast<long long>(r.requests), static_cast<long long>(r.errors),
      static_cast<long long>(r.warmup_requests), r.seconds,
      r.requests_per_second, r.latency.p50_us, r.latency.p90_us,
      r.latency.p99_us, r.latency.mean_us, r.latency.max_us,
      static_cast<long long>(r.connects), o.connections,
      static_cast<long long>(r.last_n), r.response_bytes,
      JsonString(r.first_error).c_str());
  return r.requests > 0 && r.errors == 0 ? 0 : 1;
}

int WatchLat(const Flags& f) {
  std::set<std::string> allowed = kEndpointFlags;
  allowed.insert({"watch-path", "method", "body-file", "content-type",
                  "updates", "connections", "wait-event", "first-n",
                  "timeout"});
  if (auto u = f.Unknown(allowed); !u.empty()) return Usage("unknown " + u[0]);
  WatchLatencyOptions o;
  httplib::Headers ignored;
  std::string error;
  if (!ReadEndpoint(f, &o.endpoint, &o.write_path, &ignored, &error))
    return Usage(error);
  o.watch_path = f.Get("watch-path");
  if (o.watch_path.empty() || o.watch_path[0] != '/' ||
      o.watch_path.find('?') == std::string::npos)
    return Usage("--watch-path /...?watch=1... is required");
  o.write_method = f.Get("method", "PATCH");
  if (!IsMethod(o.write_method) || o.write_method == "GET")
    return Usage("--method POST|PUT|PATCH");
  if (!ReadFile(f.Get("body-file"), &o.body_template))
    return Usage("--body-file FILE is required");
  o.content_type = f.Get("content-type", "application/merge-patch+json");
  o.updates = static_cast<int>(f.GetInt("updates", 1000, &error));
  o.connections = static_cast<int>(f.GetInt("connections", 1, &error));
  o.wait_for_event = f.Get("wait-event", "1") != "0";
  o.first_n = f.GetInt("first-n", 1, &error);
  o.timeout_seconds = f.GetDouble("timeout", 60, &error);
  if (!error.empty()) return Usage(error);
  if (o.updates < 1 || o.connections < 1 || o.connections > 256 ||
      o.timeout_seconds <= 0 || o.timeout_seconds > 3600)
    return Usage("need updates >= 1, 1..256 connections, 0..3600 s");
  WatchLatencyResult r = RunWatchLatency(o);
  std::printf(
      "{\"ok\": %s, \"error\": %s, \"updates\": %lld, "
      "\"events_matched\": %lld, \"events_before_ack\": %lld, "
      "\"other_events\": %lld, \"seconds\": %.3f, \"updates_per_s\": %.1f, "
      "\"connections\": %d, \"last_n\": %lld, \"write_rtt\": %s, "
      "\"send_to_event\": %s, \"ack_to_event\": %s}\n",
      r.ok ? "true" : "false", JsonString(r.error).c_str(),
      static_cast<long long>(r.updates),
      static_cast<long long>(r.events_matched),
      static_cast<long long>(r.events_before_ack),
      static_cast<long long>(r.other_events), r.seconds, r.updates_per_second,
      o.connections, static_cast<long long>(r.last_n),
      LatencyJson(r.write_rtt).c_str(), LatencyJson(r.send_to_event).c_str(),
      LatencyJson(r.ack_to_event).c_str());
  return r.ok ? 0 : 1;
}

int Startup(const Flags& f) {
  const std::set<std::string> allowed = {
      "stdout-file", "stderr-file", "pid-file", "ready-prefix",
      "port",        "path",        "timeout"};
  if (auto u = f.Unknown(allowed); !u.empty()) return Usage("unknown " + u[0]);
  StartupOptions o;
  std::string error;
  o.command = f.trailing();
  o.stdout_file = f.Get("stdout-file");
  o.stderr_file = f.Get("stderr-file");
  o.pid_file = f.Get("pid-file");
  o.ready_prefix = f.Get("ready-prefix");
  o.port = static_cast<int>(f.GetInt("port", 0, &error));
  o.path = f.Get("path", "/readyz");
  o.timeout_seconds = f.GetDouble("timeout", 60, &error);
  if (!error.empty()) return Usage(error);
  if (o.command.empty()) return Usage("the server command follows --");
  if (o.stdout_file.empty()) return Usage("--stdout-file is required");
  if (o.ready_prefix.empty() == (o.port == 0))
    return Usage("give exactly one of --ready-prefix and --port");
  StartupResult r = RunStartup(o);
  std::printf(
      "{\"ok\": %s, \"error\": %s, \"pid\": %d, \"port\": %d, "
      "\"line_ms\": %.3f, \"ready_ms\": %.3f, \"cpu_stat_ms\": %.1f, "
      "\"cpu_schedstat_ms\": %.3f, \"start_realtime_ns\": %lld}\n",
      r.ok ? "true" : "false", JsonString(r.error).c_str(),
      static_cast<int>(r.pid), r.port, r.line_ms, r.ready_ms, r.cpu_stat_ms,
      r.cpu_schedstat_ms, static_cast<long long>(r.start_realtime_ns));
  return r.ok ? 0 : 1;
}

}  // namespace
}  // namespace kmock::bench

int main(int argc, char** argv) {
  using namespace kmock::bench;
  // A server closing a connection must show up as an error, not kill us.
  std::signal(SIGPIPE, SIG_IGN);
  if (argc < 2) return Usage("no mode");
  const std::string mode = argv[1];
  Flags flags;
  std::string error;
  if (!Flags::Parse({argv + 2, argv + argc}, &flags, &error))
    return Usage(error);
  if (mode == "load") return Load(flags);
  if (mode == "fetch") return Fetch(flags);
  if (mode == "startup") return Startup(flags);
  if (mode == "requests") return Requests(flags);
  if (mode == "watchlat") return WatchLat(flags);
  return Usage("unknown mode " + mode);
}
