#include "server/health.h"

namespace kmock::server {
namespace {

std::string_view Endpoint(std::string_view path) {
  for (std::string_view e : {"/healthz", "/livez", "/readyz"}) {
    if (path == e || (path.size() > e.size() && path.substr(0, e.size()) == e &&
                      path[e.size()] == '/')) {
      return e.substr(1);
    }
  }
  return {};
}

}  // namespace

nlohmann::ordered_json VersionInfo(const std::string& kubernetes_version) {
  std::string major = "1", minor = "0";
  size_t dot = kubernetes_version.find('.');
  if (dot != std::string::npos) {
    major = kubernetes_version.substr(0, dot);
    size_t dot2 = kubernetes_version.find('.', dot + 1);
    minor = kubernetes_version.substr(dot + 1, dot2 == std::string::npos
                                                   ? std::string::npos
                                                   : dot2 - dot - 1);
  }
  return {{"major", major},
          {"minor", minor},
          {"gitVersion", "v" + kubernetes_version},
          {"gitCommit", "0000000000000000000000000000000000000000"},
          {"gitTreeState", "clean"},
          {"buildDate", "2025-01-01T00:00:00Z"},
          {"goVersion", "go1.24.0"},
          {"compiler", "gc"},
          {"platform", "linux/amd64"}};
}

std::string VersionBody(const std::string& kubernetes_version) {
  return VersionInfo(kubernetes_version).dump(2);
}

bool IsHealthPath(std::string_view path) { return !Endpoint(path).empty(); }

HealthAnswer AnswerHealth(std::string_view path, bool verbose, bool started,
                          const Status& store) {
  std::string_view endpoint = Endpoint(path);
  if (endpoint == "readyz" && !started) return {500, "readyz check failed\n"};
  if (endpoint == "livez" || store.ok())
    return {200, HealthBody(path, verbose)};
  std::string_view check = path.size() > endpoint.size() + 2
                               ? path.substr(endpoint.size() + 2)
                               : std::string_view();
  if (check == "etcd") {
    return {500, "internal server error: " + store.message() + "\n"};
  }
  if (!check.empty()) return {200, "ok"};  // another check: it passes
  return {500, "[+]ping ok\n[+]log ok\n[-]etcd failed: reason withheld\n" +
                   std::string(endpoint) + " check failed\n"};
}

std::string HealthBody(std::string_view path, bool verbose) {
  std::string_view endpoint = Endpoint(path);
  bool whole = path.size() == endpoint.size() + 1;
  if (!verbose || !whole) return "ok";
  std::string out = "[+]ping ok\n[+]log ok\n[+]etcd ok\n";
  out += std::string(endpoint) + " check passed\n";
  return out;
}

}  // namespace kmock::server
