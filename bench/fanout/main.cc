// fanout_driver: the C++ side of bench/run's scale and fan-out groups.
//
//   fanout_driver fanout --port N --ca F --cert F --key F [--watchers 100]
//       [--threads 2] [--pods 10] [--rate 50] [--seconds 5] [--namespace NS]
//   fanout_driver fill   --port N --ca F --cert F --key F --count N --nodes N
//       [--first 0] [--node-prefix node-] [--per-namespace 3000]
//       [--namespace-prefix scale-] [--connections 4] [--deadline 600]
//   fanout_driver list   --port N --ca F --cert F --key F --path P
//       [--limit 0] [--runs 3]
//
// Each mode prints one line of JSON on stdout ("ok" says whether it worked)
// and exits 0 when it did.

#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "driver/flags.h"
#include "fanout/fanout_run.h"
#include "fanout/list_timing.h"
#include "fanout/pod_fill.h"

namespace kmock::bench {
namespace {

const std::set<std::string> kEndpointFlags = {"port", "ca", "cert", "key"};

int Fail(const std::string& msg) {
  printf("{\"ok\":false,\"error\":%s}\n", JsonString(msg).c_str());
  return 1;
}

std::set<std::string> With(std::set<std::string> more) {
  more.insert(kEndpointFlags.begin(), kEndpointFlags.end());
  return more;
}

ApiEndpoint EndpointFrom(const Flags& f, std::string* err) {
  ApiEndpoint e;
  e.port = static_cast<int>(f.GetInt("port", 0, err));
  e.ca_file = f.Get("ca");
  e.cert_file = f.Get("cert");
  e.key_file = f.Get("key");
  if (e.port <= 0 || e.ca_file.empty() || e.cert_file.empty() ||
      e.key_file.empty()) {
    *err = "--port, --ca, --cert and --key are required";
  }
  return e;
}

int Fanout(const Flags& f) {
  std::string err;
  FanoutOptions o;
  o.endpoint = EndpointFrom(f, &err);
  o.watchers = static_cast<int>(f.GetInt("watchers", 100, &err));
  o.reader_threads = static_cast<int>(f.GetInt("threads", 2, &err));
  o.pods = static_cast<int>(f.GetInt("pods", 10, &err));
  o.writes_per_second = f.GetDouble("rate", 50, &err);
  o.seconds = f.GetDouble("seconds", 5, &err);
  o.ns = f.Get("namespace", "fanout");
  if (!err.empty()) return Fail(err);
  FanoutResult r = RunFanout(o);
  printf("%s\n", FanoutResultJson(o, r).c_str());
  return r.error.empty() ? 0 : 1;
}

int Fill(const Flags& f) {
  std::string err;
  PodFillOptions o;
  o.endpoint = EndpointFrom(f, &err);
  o.first = f.GetInt("first", 0, &err);
  o.count = f.GetInt("count", 1000, &err);
  o.nodes = static_cast<int>(f.GetInt("nodes", 1, &err));
  o.node_prefix = f.Get("node-prefix", "node-");
  o.pods_per_namespace = f.GetInt("per-namespace", 3000, &err);
  o.ns_prefix = f.Get("namespace-prefix", "scale-");
  o.connections = static_cast<int>(f.GetInt("connections", 4, &err));
  o.deadline_seconds = f.GetDouble("deadline", 600, &err);
  if (err.empty() && o.pods_per_namespace < 1) err = "--per-namespace < 1";
  if (!err.empty()) return Fail(err);
  PodFillResult r = RunPodFill(o);
  printf("%s\n", PodFillResultJson(o, r).c_str());
  return r.errors == 0 ? 0 : 1;
}

int List(const Flags& f) {
  std::string err;
  ListOptions o;
  o.endpoint = EndpointFrom(f, &err);
  o.path = f.Get("path");
  o.limit = f.GetInt("limit", 0, &err);
  o.runs = static_cast<int>(f.GetInt("runs", 3, &err));
  if (err.empty() && o.path.empty()) err = "--path is required";
  if (!err.empty()) return Fail(err);
  ListResult r = RunList(o);
  printf("%s\n", ListResultJson(o, r).c_str());
  return r.error.empty() ? 0 : 1;
}

int Main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: fanout_driver fanout|fill|list [flags]\n");
    return 2;
  }
  std::string mode = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  Flags flags;
  std::string err;
  if (!Flags::Parse(args, &flags, &err)) return Fail(err);
  std::set<std::string> allowed;
  if (mode == "fanout") {
    allowed =
        With({"watchers", "threads", "pods", "rate", "seconds", "namespace"});
  } else if (mode == "fill") {
    allowed = With({"first", "count", "nodes", "node-prefix", "per-namespace",
                    "namespace-prefix", "connections", "deadline"});
  } else if (mode == "list") {
    allowed = With({"path", "limit", "runs"});
  } else {
    return Fail("unknown mode " + mode + " (fanout, fill, list)");
  }
  auto unknown = flags.Unknown(allowed);
  if (!unknown.empty()) return Fail("unknown flag --" + unknown[0]);
  if (mode == "fanout") return Fanout(flags);
  if (mode == "fill") return Fill(flags);
  return List(flags);
}

}  // namespace
}  // namespace kmock::bench

int main(int argc, char** argv) { return kmock::bench::Main(argc, argv); }
