"""The write path: durable creates beside etcd, and a connection storm beside
nginx. Used by bench/run (its `write` group).

  creates  POST of a small Lease (a kind no controller acts on) from 1, 16
           and 64 keep-alive connections to kubemock; then an etcd 3.4
           (Debian's /usr/bin/etcd, one member on loopback, its own data
           directory, default fsync) started here takes puts of the same
           bytes (the object as kubemock stored it, under kube-apiserver's
           key) from the same number of connections, through etcd's HTTP/JSON
           gateway (POST /v3/kv/put)
  storm    GET of one pod with a new TCP connection and TLS handshake per
           request, from 1 and 8 threads, beside nginx serving the same bytes
           the same way

Errors are raised as RuntimeError; bench/run turns them into its Fatal.
"""

import json
import os
import socket
import subprocess
import time
import urllib.request

import api_ops

ETCD = "/usr/bin/etcd"
WRITE_NS = "bench-write"
CREATES_TARGET_PER_S = 5000.0
LEASES = "/apis/coordination.k8s.io/v1/namespaces/%s/leases" % WRITE_NS


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def lease(name):
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": name},
            "spec": {"holderIdentity": "bench", "leaseDurationSeconds": 40}}


def etcd_version():
    p = subprocess.run([ETCD, "--version"], capture_output=True, text=True)
    for line in p.stdout.splitlines():
        if line.startswith("etcd Version:"):
            return line.split(":", 1)[1].strip()
    return "?"


class Etcd:
    """One etcd member on loopback, plain HTTP, fsync as shipped. The PID is
    registered with the caller's process list, which stops it."""

    def __init__(self, scratch, procs, log):
        if not os.access(ETCD, os.X_OK):
            raise RuntimeError("%s is missing (apt-get install etcd-server)" %
                               ETCD)
        d = os.path.join(scratch, "etcd")
        os.makedirs(d)
        self.port = free_port()
        peer = free_port()
        client_url = "http://127.0.0.1:%d" % self.port
        peer_url = "http://127.0.0.1:%d" % peer
        cmd = [ETCD, "--name", "bench", "--data-dir", os.path.join(d, "data"),
               "--listen-client-urls", client_url,
               "--advertise-client-urls", client_url,
               "--listen-peer-urls", peer_url,
               "--initial-advertise-peer-urls", peer_url,
               "--initial-cluster", "bench=" + peer_url]
        log("starting etcd %s on 127.0.0.1:%d" % (etcd_version(), self.port))
        with open(os.path.join(d, "etcd.log"), "wb") as out:
            self.proc = subprocess.Popen(cmd, stdout=out,
                                         stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL)
        procs.add(self.proc.pid, ETCD)
        self.pid = self.proc.pid
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(client_url + "/health",
                                            timeout=1) as r:
                    if json.loads(r.read()).get("health") == "true":
                        return
            except (OSError, ValueError):
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("etcd did not become healthy; see %s" %
                                   os.path.join(d, "etcd.log"))
            time.sleep(0.05)


def creates(target, table, procs):
    sizes = api_ops.Sizes(target.quick)
    kube = api_ops.Kube(target)
    try:
        kube.request("POST", "/api/v1/namespaces",
                     {"apiVersion": "v1", "kind": "Namespace",
                      "metadata": {"name": WRITE_NS}}, ok=(201,))
        sample = kube.request("POST", LEASES, lease("sample"), ok=(201,))
    finally:
        kube.close()
    # The bytes etcd stores: the object as kubemock returned it after the
    # create, its name a template like the POST's.
    stored = json.dumps(sample, separators=(",", ":"))
    etcd = Etcd(target.scratch, procs, target.log)
    raw = []
    try:
        for conns in sizes.write_conns:
            name = "w%d-@N@" % conns
            body = json.dumps(lease(name), separators=(",", ":"))
            value = stored.replace('"name":"sample"', '"name":"%s"' % name)
            plural = "" if conns == 1 else "s"
            target.log("write: durable creates, %d connection%s, %.1f s" %
                       (conns, plural, sizes.write_seconds))
            k = api_ops.driver_requests(
                target, target.endpoint_args, LEASES, conns,
                sizes.write_seconds, sizes.write_warmup, method="POST",
                body=body, content_type="application/json", expect="201")
            target.log("write: etcd puts of %d bytes, %d connection%s" %
                       (len(value), conns, plural))
            e = api_ops.driver_requests(
                target, ["--port", str(etcd.port), "--plain-http", "1"],
                "/v3/kv/put", conns, sizes.write_seconds, sizes.write_warmup,
                body=value, extra=["--etcd-key", "/registry/leases/%s/%s" %
                                   (WRITE_NS, name)])
            raw.append({"connections": conns, "kubemock": k, "etcd": e,
                        "value_bytes": len(value)})
            what = "durable creates (Lease, %d B stored), %d conn%s" % (
                len(value), conns, plural)
            table.add(what + ": throughput", k["rps"], "creates/s",
                      e["rps"], "etcd put", CREATES_TARGET_PER_S)
            table.add(what + ": p50 latency", k["p50_us"], "µs",
                      e["p50_us"], "etcd put")
            table.add(what + ": p99 latency", k["p99_us"], "µs",
                      e["p99_us"], "etcd put")
    finally:
        procs.stop(etcd.pid)
    table.raw["write"] = raw
    table.note(
        "write: kubemock commits each group of concurrent writes as one "
        "RocksDB write batch with sync (one fsync per group) before it "
        "answers; etcd %s fsyncs its WAL before it answers a put. etcd is "
        "driven over plain HTTP through its JSON gateway (which costs it "
        "CPU that native gRPC would not), kubemock over TLS with a client "
        "certificate; target: kubemock's goal of 5,000 creates/s." %
        etcd_version())


STORM_POD = "bench-storm"


def storm(target, table, nginx_serving):
    """nginx_serving(path, body) starts nginx serving body at path and
    returns (driver endpoint args, a function that stops it)."""
    sizes = api_ops.Sizes(target.quick)
    kube = api_ops.Kube(target)
    try:
        api_ops.create_pod(kube, STORM_POD, {"app": "bench"})
    finally:
        kube.close()
    path = api_ops.pod_path(STORM_POD)
    body_file = os.path.join(target.scratch, "storm-body.json")
    out = api_ops.run_driver(target, ["fetch", "--path", path, "--out",
                                      body_file, "--header",
                                      "Accept: application/json"] +
                             target.endpoint_args, 60)
    with open(body_file, "rb") as f:
        body = f.read()
    ng_endpoint, stop_nginx = nginx_serving(path, body)
    raw = []
    try:
        for threads in sizes.storm_threads:
            plural = "" if threads == 1 else "s"
            res = {}
            for who, endpoint in (("kubemock", target.endpoint_args),
                                  ("nginx", ng_endpoint)):
                target.log("connection storm: %s, %d thread%s" %
                           (who, threads, plural))
                r = api_ops.driver_requests(
                    target, endpoint, path, threads, sizes.storm_seconds, 0.05,
                    extra=["--keep-alive", "0", "--header",
                           "Accept: application/json", "--max-requests",
                           str(sizes.storm_max_requests)])
                if r["connects"] < r["requests"]:
                    raise RuntimeError("%s: %d connections for %d requests: "
                                       "keep-alive was not off" %
                                       (who, r["connects"], r["requests"]))
                res[who] = r
            raw.append({"threads": threads, "bytes": out.get("bytes"), **res})
            k, n = res["kubemock"], res["nginx"]
            what = "connection storm: GET pod, new TLS connection per " \
                   "request, %d thread%s" % (threads, plural)
            table.add(what + ": throughput", k["rps"], "req/s", n["rps"],
                      "nginx")
            table.add(what + ": p50 latency", k["p50_us"], "µs", n["p50_us"],
                      "nginx")
            table.add(what + ": p99 latency", k["p99_us"], "µs", n["p99_us"],
                      "nginx")
    finally:
        stop_nginx()
    table.raw["storm"] = raw
