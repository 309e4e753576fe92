#include "fanout/api_client.h"

#include <time.h>

#include <cmath>

namespace kmock::bench {

std::unique_ptr<httplib::SSLClient> MakeApiClient(const ApiEndpoint& e) {
  auto cli = std::make_unique<httplib::SSLClient>("127.0.0.1", e.port,
                                                  e.cert_file, e.key_file);
  cli->set_ca_cert_path(e.ca_file.c_str());
  cli->enable_server_certificate_verification(true);
  cli->set_keep_alive(true);
  cli->set_tcp_nodelay(true);
  cli->set_connection_timeout(5, 0);
  cli->set_read_timeout(120, 0);
  cli->set_write_timeout(30, 0);
  return cli;
}

int64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

int64_t Percentile(const std::vector<int64_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * sorted.size()));
  if (rank < 1) rank = 1;
  if (rank > sorted.size()) rank = sorted.size();
  return sorted[rank - 1];
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string EnsureNamespace(httplib::SSLClient& client, const std::string& ns) {
  std::string body =
      "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":"
      "\"" +
      ns + "\"}}";
  httplib::Headers headers = {{"Accept", "application/json"}};
  auto res =
      client.Post("/api/v1/namespaces", headers, body, "application/json");
  if (!res) return "creating namespace " + ns + ": " + to_string(res.error());
  if (res->status != 201 && res->status != 409) {
    return "creating namespace " + ns + ": status " +
           std::to_string(res->status) + ": " + res->body.substr(0, 300);
  }
  return "";
}

}  // namespace kmock::bench
