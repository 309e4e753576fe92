#!/usr/bin/python3
"""Load: --clients writers create, update and delete Leases for --seconds
while --watchers watchers list+watch the same namespace.

Each client owns its Leases (create, update with a resourceVersion
precondition, delete with one) and also updates a few shared "hot" Leases
read-modify-write, where clients race and the loser gets 409 Conflict: the
only error answer expected; they are counted and reported. Each watcher
lists, watches from the list's resourceVersion, reconnects with its last
resourceVersion when the server ends the watch (a random timeoutSeconds)
and relists on 410.

At the end the clients stop, a marker Lease is written, every watcher must
catch up to it, and every watcher's view (name -> resourceVersion) must
equal a final LIST. Any other non-2xx answer, broken connection or watch
inconsistency fails the run. Reports ops/s and p50/p99 latency per verb.

Prints the seed; --seed replays the same choices (thread timing varies).
"""

import argparse
import os
import random
import shutil
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import kube_client  # noqa: E402
from server_process import ServerProcess  # noqa: E402
from view_watcher import (ViewWatcher, check_histories,  # noqa: E402
                          compare_view)

NAMESPACE = "load"
LEASES = "/apis/coordination.k8s.io/v1/namespaces/%s/leases" % NAMESPACE
HOT = 8
CATCH_UP_TIMEOUT = 60


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--clients", type=int, default=8)
    p.add_argument("--watchers", type=int, default=100)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--threads", type=int, default=None,
                   help="server HTTP threads (default: the server's)")
    p.add_argument("--keep", action="store_true",
                   help="keep the temporary directory")
    return p.parse_args()


def lease(name, holder, rv=None):
    meta = {"name": name, "labels": {"load/holder": holder}}
    if rv is not None:
        meta["resourceVersion"] = str(rv)
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": meta,
            "spec": {"holderIdentity": holder, "leaseDurationSeconds": 15}}


class Stats:
    """Latencies and counts of every client. Thread-safe."""

    def __init__(self):
        self._lock = threading.Lock()
        self.latency = {}  # verb -> [seconds]
        self.conflicts = 0
        self.errors = []
        self.acked = {}  # rv -> name of every acknowledged create/update

    def record(self, verb, seconds):
        with self._lock:
            self.latency.setdefault(verb, []).append(seconds)

    def ack(self, response):
        meta = response.json()["metadata"]
        with self._lock:
            self.acked[int(meta["resourceVersion"])] = meta["name"]

    def conflict(self):
        with self._lock:
            self.conflicts += 1

    def error(self, text):
        with self._lock:
            if len(self.errors) < 100:
                self.errors.append(text)


class LoadClient(threading.Thread):

    def __init__(self, idx, server, seed, stats, stop):
        super().__init__(name="client-%d" % idx, daemon=True)
        self.idx = idx
        self.rng = random.Random(seed)
        self.client = server.client()
        self.stats = stats
        self.stop_event = stop
        self.owned = {}  # name -> rv
        self.seq = 0

    def call(self, verb, method, path, body, ok, conflict_ok=False):
        t0 = time.monotonic()
        try:
            r = self.client.request(method, path, body)
        except kube_client.ConnectionLost as e:
            self.stats.error("%s: %s" % (self.name, e))
            return None
        self.stats.record(verb, time.monotonic() - t0)
        if r.status == ok:
            if verb in ("create", "update"):
                self.stats.ack(r)
            return r
        if r.status == 409 and conflict_ok:
            self.stats.conflict()
            return None
        self.stats.error("%s %s %s answered %d: %s" %
                         (self.name, method, path, r.status, r.body[:200]))
        return None

    def run(self):
        try:
            while not self.stop_event.is_set():
                self.step()
        finally:
            self.client.close()

    def step(self):
        n = len(self.owned)
        x = self.rng.random()
        if n < 5 or (n < 50 and x < 0.3):
            self.seq += 1
            name = "c%d-%d" % (self.idx, self.seq)
            r = self.call("create", "POST", LEASES,
                          lease(name, "c%d" % self.idx), 201)
            if r:
                self.owned[name] = int(r.json()["metadata"]["resourceVersion"])
        elif x < 0.5:
            name = "hot-%d" % self.rng.randrange(HOT)
            r = self.call("get", "GET", "%s/%s" % (LEASES, name), None, 200)
            if r:
                rv = r.json()["metadata"]["resourceVersion"]
                self.call("update", "PUT", "%s/%s" % (LEASES, name),
                          lease(name, "c%d-%d" % (self.idx, self.seq), rv),
                          200, conflict_ok=True)
                self.seq += 1
        elif x < 0.8 or n >= 50 and x < 0.9:
            name = self.rng.choice(list(self.owned))
            self.seq += 1
            r = self.call("update", "PUT", "%s/%s" % (LEASES, name),
                          lease(name, "c%d-%d" % (self.idx, self.seq),
                                self.owned[name]), 200)
            if r:
                self.owned[name] = int(r.json()["metadata"]["resourceVersion"])
        else:
            name = self.rng.choice(list(self.owned))
            body = {"apiVersion": "v1", "kind": "DeleteOptions",
                    "preconditions": {
                        "resourceVersion": str(self.owned[name])}}
            if self.call("delete", "DELETE", "%s/%s" % (LEASES, name), body,
                         200):
                del self.owned[name]


def run(args, seed, server):
    rng = random.Random(seed)
    server.start()
    problems = []
    c = server.client()
    r = c.request("POST", "/api/v1/namespaces",
                  {"apiVersion": "v1", "kind": "Namespace",
                   "metadata": {"name": NAMESPACE}})
    if r.status != 201:
        raise SystemExit("cannot create namespace: %r" % r)
    for i in range(HOT):
        r = c.request("POST", LEASES, lease("hot-%d" % i, "none"))
        if r.status != 201:
            raise SystemExit("cannot create hot-%d: %r" % (i, r))

    t0 = time.monotonic()
    watchers = [ViewWatcher("watcher-%d" % i, server.endpoint, server.creds,
                            LEASES, rng_seed=rng.random(),
                            timeout_range=(5, 15))
                for i in range(args.watchers)]
    for w in watchers:
        w.start()
    for w in watchers:
        if not w.listed.wait(30):
            problems.append("%s never listed" % w.name)
    print("%d watchers listening after %.1fs" %
          (len(watchers), time.monotonic() - t0), flush=True)

    stats = Stats()
    stop = threading.Event()
    clients = [LoadClient(i, server, rng.randrange(2**31), stats, stop)
               for i in range(args.clients)]
    t0 = time.monotonic()
    for cl in clients:
        cl.start()
    stop.wait(args.seconds)
    stop.set()
    for cl in clients:
        cl.join(30)
    elapsed = time.monotonic() - t0

    # Quiet: a marker everybody must see, then one LIST to compare with.
    r = c.request("POST", LEASES, lease("marker", "end"))
    if r.status != 201:
        problems.append("marker create answered %r" % r)
        marker_rv = 0
    else:
        marker_rv = int(r.json()["metadata"]["resourceVersion"])
    t_quiet = time.monotonic()
    kube_client.wait_for(
        lambda: all(w.last_rv() >= marker_rv for w in watchers),
        CATCH_UP_TIMEOUT, interval=0.1)
    catch_up = time.monotonic() - t_quiet
    r = c.get(LEASES)
    final = {o["metadata"]["name"]: int(o["metadata"]["resourceVersion"])
             for o in r.json()["items"]}
    c.close()
    mismatched = 0
    for w in watchers:
        view, rv = w.snapshot()
        if rv < marker_rv:
            problems.append("%s stuck at rv %d, marker at %d" %
                            (w.name, rv, marker_rv))
            mismatched += 1
            continue
        diff = compare_view(view, final)
        if diff:
            mismatched += 1
            problems.append("%s view differs from the final list:\n    %s" %
                            (w.name, "\n    ".join(diff[:10])))
    gaps = check_histories(watchers, stats.acked)
    problems += gaps
    for w in watchers:
        w.stop()
        problems += w.problems
    problems += stats.errors

    ops = sum(len(v) for v in stats.latency.values())
    print("%d clients, %.1fs: %d requests, %.0f req/s, %d conflicts (409), "
          "%d errors" % (args.clients, elapsed, ops, ops / elapsed,
                         stats.conflicts, len(stats.errors)))
    for verb in sorted(stats.latency):
        lat = sorted(stats.latency[verb])
        print("  %-7s %6d  %6.1f/s  p50 %6.1f ms  p99 %6.1f ms  max %6.1f ms"
              % (verb, len(lat), len(lat) / elapsed,
                 kube_client.percentile(lat, 50) * 1000,
                 kube_client.percentile(lat, 99) * 1000, lat[-1] * 1000))
    events = sum(w.events for w in watchers)
    print("%d watchers: %d events (%.0f/s), %d relists, %d re-watches after "
          "timeoutSeconds, %d reconnects, "
          "caught up %.1fs after the clients stopped, %d views differ, "
          "%d event histories differ; "
          "%d objects at rv %d" %
          (len(watchers), events, events / elapsed,
           sum(w.relists for w in watchers),
           sum(w.rewatches for w in watchers),
           sum(w.reconnects for w in watchers), catch_up, mismatched,
           len(gaps),
           len(final), marker_rv))
    rc = server.stop()
    if rc != 0:
        problems.append("SIGTERM exit code %r:\n%s" %
                        (rc, server.stderr_tail()))
    if ops == 0:
        problems.append("no request was made")
    return problems


def main():
    args = parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom(
    ).randrange(1, 2**31)
    print("load: seed %d, %d clients for %gs, %d watchers, binary %s" %
          (seed, args.clients, args.seconds, args.watchers,
           os.environ.get("KUBEMOCK_BIN", "/work/kmock-shared/kubemock")),
          flush=True)
    workdir = tempfile.mkdtemp(prefix="kubemock-load-")
    extra = ["--threads", str(args.threads)] if args.threads else []
    server = ServerProcess(workdir, seed, extra_args=extra)
    try:
        problems = run(args, seed, server)
    except BaseException:
        server.kill()
        print("workdir kept: " + workdir)
        raise
    if problems:
        print("FAIL (seed %d): %d problems" % (seed, len(problems)))
        for p in problems[:100]:
            print("  " + p)
        print("workdir kept: " + workdir)
        return 1
    print("PASS")
    if not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
