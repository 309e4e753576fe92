// load_driver: the client side of the kubemock benchmarks (bench/run).
//
//   load_driver load    --port P --path PATH [--ca F --cert F --key F]
//                       [--header "K: V"]... [--connections N]
//                       [--duration S] [--warmup S] [--max-requests N]
//   load_driver fetch   --port P --path PATH [...] --out FILE
//   load_driver startup --stdout-file F [--stderr-file F] [--pid-file F]
//                       (--ready-prefix STR | --port P) [--path /readyz]
//                       [--timeout S] -- COMMAND...
//
// Each prints one JSON object on stdout; exit status 0 on success, 1 when the
// run failed, 2 on bad usage. It connects to loopback addresses only.
#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "driver/flags.h"
#include "driver/https_load.h"
#include "driver/startup_probe.h"

namespace kmock::bench {
namespace {

const std::set<std::string> kEndpointFlags = {"host", "port", "ca",    "cert",
                                              "key",  "path", "header"};

int Usage(const std::string& why) {
  std::fprintf(stderr,
               "load_driver: %s\nusage: load_driver load|fetch|startup "
               "[flags] (see the comment at the top of load_driver.cc)\n",
               why.c_str());
  return 2;
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
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
  if (argc < 2) return Usage("no mode");
  const std::string mode = argv[1];
  Flags flags;
  std::string error;
  if (!Flags::Parse({argv + 2, argv + argc}, &flags, &error))
    return Usage(error);
  if (mode == "load") return Load(flags);
  if (mode == "fetch") return Fetch(flags);
  if (mode == "startup") return Startup(flags);
  return Usage("unknown mode " + mode);
}
