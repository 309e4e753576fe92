// kubemock: the program's entry point. Wires the store, registry, PKI,
// kubeconfig, API server and controllers together for `kubemock serve`.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <future>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "api/catalog_loader.h"
#include "certs/pki.h"
#include "cmd/repair_options.h"
#include "cmd/serve_options.h"
#include "common/clock.h"
#include "common/heap_trimmer.h"
#include "common/rng.h"
#include "controllers/controller_manager.h"
#include "kubeconfig/kubeconfig.h"
#include "registry/event_expiry.h"
#include "registry/registry.h"
#include "server/api_server.h"
#include "store/repair.h"
#include "store/storage.h"

#if defined(KMOCK_JEMALLOC)
// jemalloc reads this at its first allocation. Two arenas for two cores'
// worth of threads; freed pages go back to the system after two quiet
// seconds. Thread caches hold sizes up to 8 KiB (a pod's JSON text) and
// twice jemalloc's default count of each size, trimmed less often: trees
// are built in one thread and freed in another, and smaller caches made
// every thread flush and refill them against the arenas' locks all the
// time (29% fewer instructions in the allocator over 1,000 pods brought
// up and torn down, 9% less server CPU bringing 10,000 up; about 2 MB
// more at idle across the ~45 threads).
extern "C" const char* malloc_conf;
const char* malloc_conf =
    "narenas:2,tcache_max:8192,lg_tcache_nslots_mul:2,"
    "tcache_nslots_small_max:1024,tcache_gc_incr_bytes:1048576,"
    "dirty_decay_ms:2000";
#endif

namespace kmock {
namespace {

constexpr char kKubemockVersion[] = "0.1.0";

int Fail(const std::string& msg) {
  std::fprintf(stderr, "kubemock: %s\n", msg.c_str());
  return 1;
}

std::string HostName() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "";
  return buf;
}

bool IsIpLiteral(const std::string& s) {
  return s.find_first_not_of("0123456789.") == std::string::npos ||
         s.find(':') != std::string::npos;
}

std::string UrlHost(const std::string& bind) {
  std::string host =
      (bind == "0.0.0.0") ? "127.0.0.1" : (bind == "::" ? "::1" : bind);
  if (host.find(':') != std::string::npos) return "[" + host + "]";
  return host;
}

int Serve(const cmd::ServeOptions& o) {
  // Signals are handled by a sigwait in this thread; every thread started
  // from here on inherits the blocked mask.
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGINT);
  sigaddset(&sigs, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &sigs, nullptr);
  signal(SIGPIPE, SIG_IGN);

  RealClock clock;
  // With --verbose, how long each start-up phase took (stderr, one line).
  std::string phases;
  auto phase_start = std::chrono::steady_clock::now();
  auto end_phase = [&](const char* name) {
    auto now = std::chrono::steady_clock::now();
    char buf[64];
    std::snprintf(
        buf, sizeof buf, "%s%s %.1f ms", phases.empty() ? "" : ", ", name,
        std::chrono::duration<double, std::milli>(now - phase_start).count());
    phases += buf;
    phase_start = now;
  };
  const uint64_t seed = o.seed ? *o.seed : std::random_device{}();
  // The schema and catalog of every built-in kind take as long to load as
  // the store takes to open (both ~15 ms): the catalog loads on a thread of
  // its own while the store opens and the certificates are made.
  // The API the chosen Kubernetes version serves (o.kubernetes_version is
  // 1.MINOR.PATCH, checked when the flags were read).
  const int minor = std::atoi(
      o.kubernetes_version.substr(o.kubernetes_version.find('.') + 1).c_str());
  // The compiled-in types, which every served kind and the OpenAPI
  // documents read (api/schema.h says why this one instance is shared).
  const api::Schema* schema = nullptr;
  auto catalog_loading = std::async(std::launch::async, [minor, &schema] {
    schema = &api::Schema::Builtin();
    return api::LoadBuiltinCatalog(*schema, minor);
  });

  if (!o.in_memory) {
    std::error_code ec;
    std::filesystem::create_directories(o.data_dir, ec);
    if (ec)
      return Fail("cannot create data directory " + o.data_dir + ": " +
                  ec.message());
    std::filesystem::permissions(o.data_dir, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::replace, ec);
  }

  // Store.
  store::StorageOptions so;
  so.in_memory = o.in_memory;
  so.path = o.data_dir + "/store";
  so.compaction_interval = std::chrono::seconds(o.compaction_interval_seconds);
  so.watcher_queue_limit = size_t(o.watch_queue_limit);
  so.damage_hint = cmd::DamageHint(o.data_dir);
  auto storage = store::OpenRocksStorage(so);
  if (!storage.ok())
    return Fail("cannot open the store: " + storage.status().message());
  // A restart with the same --seed must not hand out the UIDs and names of
  // the previous run again: the stream continues from the store's revision.
  Rng rng(SeedForStore(seed, (*storage)->CurrentRevision()));
  end_phase("store");

  // PKI.
  certs::PkiOptions po;
  po.dir = o.in_memory ? "" : o.data_dir;
  po.dns_names = {"localhost", "kubernetes", "kubernetes.default",
                  "kubernetes.default.svc",
                  "kubernetes.default.svc.cluster.local"};
  po.ip_addresses = {"127.0.0.1", "::1"};
  if (std::string h = HostName(); !h.empty()) po.dns_names.push_back(h);
  if (o.bind != "0.0.0.0" && o.bind != "::") {
    if (IsIpLiteral(o.bind))
      po.ip_addresses.push_back(o.bind);
    else
      po.dns_names.push_back(o.bind);
  }
  po.clock = &clock;
  po.rng = &rng;
  auto pki = certs::LoadOrCreatePki(po);
  if (!pki.ok())
    return Fail("cannot set up certificates: " + pki.status().message());
  end_phase("certificates");

  auto catalog = catalog_loading.get();
  if (!catalog.ok())
    return Fail("the built-in resources are broken: " +
                catalog.status().message());
  registry::Registry registry(storage->get(), &clock, &rng,
                              registry::ServedObjectCache::kDefaultBudgetBytes,
                              catalog->get());
  registry.set_watch_bookmark_interval(
      std::chrono::milliseconds(o.watch_bookmark_interval_ms));

  // Controllers: the cluster's topology, then the loops (started below).
  controllers::ClusterSpec cluster = controllers::DefaultCluster();
  if (!o.cluster_file.empty()) {
    auto loaded = controllers::LoadClusterFile(o.cluster_file);
    if (!loaded.ok()) return Fail(loaded.status().message());
    cluster = std::move(loaded).value();
  }
  const size_t node_count = cluster.nodes.size();
  auto pace = cmd::ParseDurationMillis(o.pace);
  if (pace.ok() && *pace > 0)
    cluster.pacing = controllers::lifecycle::StagePacing::Uniform(
        std::chrono::milliseconds(*pace), 0.2);
  controllers::ControllerManagerOptions cmo;
  cmo.version = "v" + o.kubernetes_version;
  cmo.root_ca_pem = pki->ca_cert_pem;
  cmo.ca_key_pem = pki->ca_key_pem;
  cmo.wait_for_serving = true;
  controllers::ControllerManager manager(&registry, &clock, &rng,
                                         std::move(cluster), cmo);

  // API server.
  server::ServerOptions sv;
  sv.schema = schema;
  sv.bind_address = o.bind;
  sv.port = o.port;
  sv.server_cert_pem = pki->server_cert_pem;
  sv.server_key_pem = pki->server_key_pem;
  sv.client_ca_pem = pki->ca_cert_pem;
  sv.service_account_key_pem = pki->sa_key_pem;
  sv.tokens.push_back({pki->admin_token,
                       {certs::kAdminCommonName,
                        "",
                        {certs::kAdminGroup, "system:authenticated"}}});
  sv.max_connections = o.max_connections;
  sv.request_header_timeout =
      std::chrono::milliseconds(o.request_header_timeout_ms);
  sv.request_timeout = std::chrono::milliseconds(o.request_timeout_ms);
  sv.keep_alive_timeout = std::chrono::milliseconds(o.keep_alive_timeout_ms);
  sv.write_timeout = std::chrono::milliseconds(o.write_timeout_ms);
  sv.max_request_body_bytes = size_t(o.max_request_bytes);
  sv.kubernetes_version = o.kubernetes_version;
  sv.verbose = o.verbose;
  sv.containers = manager.containers();
  server::ApiServer api(sv, &registry, &clock, &rng);
  manager.SetTokenIssuer(
      [&api](const std::string& ns, const std::string& name,
             const nlohmann::json& request) -> std::optional<std::string> {
        auto issued = api.IssueServiceAccountToken(ns, name, request);
        if (!issued.ok()) return std::nullopt;
        const nlohmann::json& status = (*issued)["status"];
        if (!status.is_object() || !status.contains("token") ||
            !status["token"].is_string())
          return std::nullopt;
        return status["token"].get<std::string>();
      });
  end_phase("registry");

  // The cluster's own first writes (namespaces, nodes, system pods through
  // their kubelets) are not fsynced one by one: no client can see them
  // before the listener starts, and one sync below makes them durable.
  (*storage)->SetSyncWrites(false);
  if (Status st = manager.Start(); !st.ok()) return Fail(st.message());
  end_phase("controllers");
  // Every node brings its own system pods: give big clusters time to start.
  const auto ready_timeout =
      std::chrono::seconds(30) + std::chrono::milliseconds(40) * node_count;
  // A store found damaged on the way (the bootstrap reads every kind) ends
  // the start-up at once, saying what is wrong, instead of waiting out the
  // timeout and then serving from a store that fails its reads.
  const auto ready_deadline = std::chrono::steady_clock::now() + ready_timeout;
  while (true) {
    Status st = manager.WaitForClusterReady(std::chrono::milliseconds(200));
    if (st.ok()) break;
    if (Status health = (*storage)->Health(); !health.ok())
      return Fail("the store is damaged: " + health.message());
    if (std::chrono::steady_clock::now() >= ready_deadline)
      return Fail("the cluster did not come up: " + st.message());
  }
  (*storage)->SetSyncWrites(true);
  if (Status st = (*storage)->SyncAll(); !st.ok())
    return Fail("cannot sync the store: " + st.message());
  end_phase("cluster ready");
  // Events expire as kube-apiserver's do (--event-ttl).
  registry::EventExpiry event_expiry(&registry, &clock,
                                     std::chrono::seconds(o.event_ttl_seconds));
  if (o.event_ttl_seconds > 0) event_expiry.Start();
  if (Status st = api.Start(); !st.ok()) return Fail(st.message());
  end_phase("listener");

  // Kubeconfig.
  const std::string url =
      "https://" + UrlHost(o.bind) + ":" + std::to_string(api.port());
  kubeconfig::Entry entry;
  entry.server = url;
  entry.ca_pem = pki->ca_cert_pem;
  entry.client_cert_pem = pki->admin_cert_pem;
  entry.client_key_pem = pki->admin_key_pem;
  std::string kc_path =
      o.kubeconfig.empty() ? kubeconfig::DefaultKubeconfigPath() : o.kubeconfig;
  Status kst = o.kubeconfig.empty()
                   ? kubeconfig::MergeKubeconfig(kc_path, entry)
                   : kubeconfig::WriteStandaloneKubeconfig(kc_path, entry);
  if (!kst.ok())
    return Fail("cannot write kubeconfig " + kc_path + ": " + kst.message());
  end_phase("kubeconfig");

  std::printf("kubemock ready: %s kubeconfig=%s context=%s\n", url.c_str(),
              kc_path.c_str(), entry.name.c_str());
  std::fflush(stdout);
  manager.MarkServing();
  // What the bootstrap freed goes back to the system now (after the ready
  // line: nobody waits for it), and what later bursts free every 30 s.
  HeapTrimmer heap_trimmer(std::chrono::seconds(30));
  heap_trimmer.Start();
  if (o.verbose) {
    std::fprintf(stderr, "kubemock: seed %llu, data %s\n",
                 static_cast<unsigned long long>(seed),
                 o.in_memory ? "in memory" : o.data_dir.c_str());
    std::fprintf(stderr, "kubemock: start-up: %s\n", phases.c_str());
  }

  int sig = 0;
  sigwait(&sigs, &sig);
  std::fprintf(stderr, "kubemock: %s received, shutting down\n",
               sig == SIGINT ? "SIGINT" : "SIGTERM");
  heap_trimmer.Stop();
  api.Stop();
  event_expiry.Stop();
  manager.Stop();
  (*storage)->Close();
  return 0;
}

int Repair(const cmd::RepairOptions& o) {
  const std::string path = o.data_dir + "/store";
  const std::string copy = cmd::DamagedCopyPath(
      o.data_dir, std::time(nullptr), [](const std::string& p) {
        std::error_code ec;
        return std::filesystem::exists(p, ec);
      });
  auto report = store::RepairStore(path, copy);
  if (!report.ok()) return Fail("repair: " + report.status().message());
  std::string text = store::DescribeRepair(*report);
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    std::printf("kubemock repair: %s\n",
                text.substr(start, end - start).c_str());
    start = end == std::string::npos ? text.size() : end + 1;
  }
  if (report->damaged)
    std::printf(
        "kubemock repair: the store opens again: kubemock serve "
        "--data-dir %s\n",
        o.data_dir.c_str());
  return 0;
}

}  // namespace
}  // namespace kmock

int main(int argc, char** argv) {
  using namespace kmock;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "help" || args[0] == "--help" ||
      args[0] == "-h") {
    std::fputs(cmd::TopLevelHelp().c_str(), args.empty() ? stderr : stdout);
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "version" || args[0] == "--version") {
    std::printf("kubemock %s (serves Kubernetes v1.33 by default)\n",
                kKubemockVersion);
    return 0;
  }
  if (args[0] == "repair") {
    auto opts = cmd::ParseRepairOptions({args.begin() + 1, args.end()});
    if (!opts.ok()) {
      std::fprintf(stderr, "kubemock: %s\n", opts.status().message().c_str());
      return 2;
    }
    if (opts->help) {
      std::fputs(cmd::RepairHelp().c_str(), stdout);
      return 0;
    }
    return Repair(*opts);
  }
  if (args[0] != "serve") {
    std::fprintf(stderr, "kubemock: unknown command %s\n\n%s", args[0].c_str(),
                 cmd::TopLevelHelp().c_str());
    return 2;
  }
  auto opts = cmd::ParseServeOptions({args.begin() + 1, args.end()});
  if (!opts.ok()) {
    std::fprintf(stderr, "kubemock: %s\n", opts.status().message().c_str());
    return 2;
  }
  if (opts->help) {
    std::fputs(cmd::ServeHelp().c_str(), stdout);
    return 0;
  }
  return Serve(*opts);
}
