"""Pod density: Deployments scaled out to Running pods and deleted again.

Used by bench/run (its `density` group). One kubemock runs with a cluster
file roomy enough for every pod; this module talks to it over HTTPS with the
admin client certificate taken from the kubeconfig kubemock writes:

  KubeClient  one keep-alive HTTPS connection for creates and deletes
  PodWatch    a thread holding a watch on the benchmark's pods, keeping each
              pod's phase, so the caller can wait until N are Running or none
              is left, and learn when that happened
  run_case    waits for the server to finish earlier work (so every case
              starts on an idle server), creates the Deployments of one
              case, times them to Running
              (watching only Running pods: one event per pod), deletes them
              (propagationPolicy Background) and times them gone (watching
              every change of those pods, from the revision all were Running)
  StartupProbe  a thread creating one bare pod at a fixed rate on its own
              connection, beside whatever else runs, and timing each from
              its POST to the watch seeing it Running

Times are time.monotonic(), the same clock in the caller and the watch thread.
"""

import base64
import http.client
import json
import select
import os
import ssl
import threading
import time
import urllib.parse

import yaml

NAMESPACE = "default"
LABEL = "bench-density"  # every benchmark pod carries LABEL=<case>
WORKERS = 10
# Upstream's density test packs 30 pods per node; nodes hold kubelet's
# default maxPods.
PODS_PER_WORKER = 30
MAX_PODS = 110


def workers_for(pods):
    """Workers enough for `pods` at PODS_PER_WORKER each with two to spare,
    and never fewer than WORKERS."""
    return max(WORKERS, -(-pods // PODS_PER_WORKER) + 2)


def cluster_file(path, workers=WORKERS, pods_per_worker=MAX_PODS):
    """One tainted control-plane node and roomy workers (by default ten of
    110 pods each)."""
    nodes = [{"name": "manage-1", "roles": ["control-plane"],
              "taints": [{"key": "node-role.kubernetes.io/control-plane",
                          "effect": "NoSchedule"}]}]
    for i in range(1, workers + 1):
        nodes.append({"name": "worker-%d" % i,
                      "capacity": {"cpu": "64", "memory": "256Gi",
                                   "pods": str(pods_per_worker)}})
    with open(path, "w") as f:
        yaml.safe_dump({"name": "density", "nodes": nodes}, f)
    return path


def credentials_from_kubeconfig(kubeconfig, out_dir):
    """Writes ca.crt, admin.crt and admin.key from the kubeconfig's embedded
    data (an --in-memory server writes no PKI files) and returns the paths."""
    with open(kubeconfig) as f:
        kc = yaml.safe_load(f)
    cluster = kc["clusters"][0]["cluster"]
    user = kc["users"][0]["user"]
    files = {"ca": ("ca.crt", cluster["certificate-authority-data"]),
             "cert": ("admin.crt", user["client-certificate-data"]),
             "key": ("admin.key", user["client-key-data"])}
    paths = {}
    for what, (name, data) in files.items():
        paths[what] = os.path.join(out_dir, name)
        with open(paths[what], "wb") as f:
            f.write(base64.b64decode(data))
    os.chmod(paths["key"], 0o600)
    return paths


class KubeClient:
    def __init__(self, port, creds):
        self.port = port
        self.ctx = ssl.create_default_context(cafile=creds["ca"])
        self.ctx.load_cert_chain(creds["cert"], creds["key"])
        self.conn = None

    def connect(self, timeout=30):
        return http.client.HTTPSConnection("127.0.0.1", self.port,
                                           context=self.ctx, timeout=timeout)

    def request(self, method, path, body=None):
        """Returns (status, parsed JSON body); reconnects once if the
        keep-alive connection was closed."""
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        for attempt in (0, 1):
            if self.conn is None:
                self.conn = self.connect()
            try:
                self.conn.request(method, path, body=data, headers=headers)
                resp = self.conn.getresponse()
                raw = resp.read()
                break
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = None
                if attempt:
                    raise
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = raw.decode(errors="replace")
        return resp.status, parsed

    def close(self):
        if self.conn is not None:
            self.conn.close()


# How long the density watch lets events gather between reads (the most a
# pod's Running is seen late by it); the start-up probe's watch reads each
# event at once.
READ_PAUSE_S = 0.01
# The most one read batch takes before its events are applied (about 250
# pods' JSON). Without a bound a stream that never pauses (a teardown's
# 30,000 events) was read for seconds before any of it was applied: every
# time it then gave was that late, and the reader, not taking from the
# socket meanwhile, fell so far behind that the server closed its watch
# and replayed the backlog at once on the rewatch.
MAX_BATCH_BYTES = 1 << 20


class PodWatch(threading.Thread):
    """Watches the pods labelled LABEL=case from resource_version on, keeping
    name -> phase (a DELETED event drops the name).

    field_selector: watch only the pods it selects, as the server filters
    them (a pod that stops matching arrives as DELETED). With
    "status.phase=Running" a bring-up costs the watch one event per pod
    instead of four (created, bound, ContainerCreating, Running), so the
    driver, which shares the server's cores, takes less of them.
    phases: what is known of the pods at resource_version (name -> phase),
    for a watch that starts where another one left off."""

    def __init__(self, client, case, resource_version,
                 read_pause_s=READ_PAUSE_S, field_selector=None, phases=None):
        super().__init__(daemon=True)
        self.client = client
        self.case = case
        self.read_pause_s = read_pause_s  # 0: read each event at once
        self.field_selector = field_selector
        self.resource_version = resource_version  # the last one seen
        self.cond = threading.Condition()
        self.phases = dict(phases or {})
        self.running = sum(1 for p in self.phases.values() if p == "Running")
        self.events = 0
        self.rewatches = 0  # watches closed by the server and made again
        self.stopping = False
        self.error = None
        self.first_running = None  # when the first pod went Running
        self.running_at = {}  # name -> when it was first seen Running
        self.conn = None
        self.established = threading.Event()

    def path(self):
        fields = ""
        if self.field_selector:
            fields = "&fieldSelector=" + urllib.parse.quote(
                self.field_selector, safe="")
        return ("/api/v1/namespaces/%s/pods?watch=1&labelSelector=%s%%3D%s"
                "%s&resourceVersion=%s&timeoutSeconds=1800" %
                (NAMESPACE, LABEL, self.case, fields, self.resource_version))

    def run(self):
        """Watches; a watch the server closes (as it closes one that fell
        behind) is watched again from the last resourceVersion seen, as a
        client-go reflector does."""
        try:
            while True:
                self.conn = self.client.connect(timeout=None)
                self.conn.request("GET", self.path(),
                                  headers={"Accept": "application/json"})
                resp = self.conn.getresponse()
                if resp.status != 200:
                    raise RuntimeError("watch answered %d: %s" %
                                       (resp.status, resp.read()[:300]))
                self.established.set()
                self._read_events(resp)
                self.conn.close()
                if self.stopping:
                    return
                with self.cond:
                    self.rewatches += 1
        except Exception as e:  # reported to the waiting caller
            with self.cond:
                if self.error is None:
                    self.error = "%s: %s" % (type(e).__name__, e)
                self.cond.notify_all()
            self.established.set()

    def _read_events(self, resp):
        """Reads events in batches, as much as the socket holds every
        read_pause_s (or as they come when it is 0), and wakes waiters once
        per batch: the driver shares
        the server's cores, and a reader that costs less leaves them to
        the server. A chunked body is unframed here (http.client hands over
        one chunk per call, which costs more than the JSON decoding)."""
        raw = resp.fp
        chunked = resp.chunked
        body = b""     # unframed bytes not yet split into lines
        framed = b""   # chunked bytes not yet unframed
        read = raw.read1 if chunked else resp.read1
        sock = self.conn.sock
        while True:
            reads = [read(1 << 16)]  # waits for the first
            got = len(reads[0])
            # Then all that has arrived (a read returns one TLS record), up
            # to MAX_BATCH_BYTES.
            while reads[-1] and got < MAX_BATCH_BYTES and (
                    sock.pending() or select.select([sock], [], [], 0)[0]):
                reads.append(read(1 << 16))
                got += len(reads[-1])
            data = b"".join(reads)
            if not data:
                return
            if chunked:
                framed += data
                parts = []
                pos = 0
                while True:
                    eol = framed.find(b"\r\n", pos)
                    if eol < 0:
                        break
                    size = int(framed[pos:eol].split(b";")[0], 16)
                    if size == 0:
                        data = None  # the last chunk: the watch ended
                        break
                    end = eol + 2 + size
                    if len(framed) < end + 2:
                        break
                    parts.append(framed[eol + 2:end])
                    pos = end + 2
                framed = framed[pos:]
                body += b"".join(parts)
            else:
                body += data
            lines = body.split(b"\n")
            body = lines.pop()
            events = [json.loads(line) for line in lines if line.strip()]
            with self.cond:
                for ev in events:
                    self._event(ev)
                self.cond.notify_all()
            if data is None:
                return
            # Let events gather: one read of many instead of a wake-up of
            # this thread (and the GIL hand-off) per event. A pod's
            # Running is seen at most this much late. Not after a full
            # batch: more is waiting already.
            if self.read_pause_s > 0 and got < MAX_BATCH_BYTES:
                time.sleep(self.read_pause_s)

    def _event(self, ev):
        """Applies one event. REQUIRES: self.cond held."""
        kind = ev.get("type")
        obj = ev.get("object", {})
        if kind == "ERROR":
            raise RuntimeError("watch error event: %s" % obj.get("message"))
        if kind not in ("ADDED", "MODIFIED", "DELETED"):
            return
        name = obj["metadata"]["name"]
        self.events += 1
        self.resource_version = obj["metadata"]["resourceVersion"]
        was = self.phases.get(name) == "Running"
        if kind == "DELETED":
            self.phases.pop(name, None)
            now = False
        else:
            self.phases[name] = obj.get("status", {}).get("phase")
            now = self.phases[name] == "Running"
        self.running += int(now) - int(was)
        if now and name not in self.running_at:
            self.running_at[name] = time.monotonic()
        if now and self.first_running is None:
            self.first_running = self.running_at[name]

    def wait_for(self, predicate, timeout, what):
        """Blocks until predicate(self) holds; returns the monotonic time at
        which it was seen (within the event's processing)."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while not predicate(self):
                if self.error:
                    raise RuntimeError(self.error)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise RuntimeError(
                        "%s: not within %.0f s (%d pods known, %d Running)" %
                        (what, timeout, len(self.phases), self.running))
                self.cond.wait(min(left, 1.0))
            return time.monotonic()

    def stop(self):
        self.stopping = True
        if self.conn is not None:
            try:
                self.conn.sock.shutdown(2)
            except (OSError, AttributeError):
                pass
            self.conn.close()


def deployment(name, case, replicas):
    labels = {"app": name, LABEL: case}
    return {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "labels": {LABEL: case}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "web",
                                         "image": "nginx:1.25"}]},
            },
        },
    }


def process_cpu_seconds(pid):
    """utime+stime of the process, all threads including exited ones."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_until_idle(server_pid, timeout_s, window_s=0.5, quiet_cpu_s=0.025):
    """Waits until the server used under quiet_cpu_s of CPU over window_s
    (the work of an earlier case done: events still queued for writing,
    garbage collection, store compaction), at most timeout_s seconds.
    Returns the seconds waited."""
    t0 = time.monotonic()
    cpu = process_cpu_seconds(server_pid)
    while time.monotonic() - t0 < timeout_s:
        time.sleep(window_s)
        now = process_cpu_seconds(server_pid)
        if now - cpu < quiet_cpu_s:
            break
        cpu = now
    return time.monotonic() - t0


def run_case(client, server_pid, case, sizes, timeout, settle_timeout=30):
    """Waits until the server is idle (at most settle_timeout seconds; 0:
    not at all), creates one Deployment per entry of `sizes` (its replicas)
    back to back, waits until all their pods are Running, deletes the
    Deployments with propagationPolicy Background and waits until no pod is
    left. Returns the raw figures."""
    total = sum(sizes)
    settle_s = (wait_until_idle(server_pid, settle_timeout)
                if settle_timeout > 0 else 0.0)
    status, lst = client.request(
        "GET", "/api/v1/namespaces/%s/pods?labelSelector=%s%%3D%s" %
        (NAMESPACE, LABEL, case))
    if status != 200:
        raise RuntimeError("listing pods: %d %s" % (status, lst))
    if lst["items"]:
        raise RuntimeError("%d pods of %s are left from before" %
                           (len(lst["items"]), case))
    watch = start_watch(PodWatch(client, case,
                                 lst["metadata"]["resourceVersion"],
                                 field_selector="status.phase=Running"))
    down = None
    names = ["%s-%d" % (case, i) for i in range(len(sizes))]
    try:
        cpu0 = process_cpu_seconds(server_pid)
        client_cpu0 = time.process_time()
        t0 = time.monotonic()
        for name, replicas in zip(names, sizes):
            status, body = client.request(
                "POST", "/apis/apps/v1/namespaces/%s/deployments" % NAMESPACE,
                deployment(name, case, replicas))
            if status != 201:
                raise RuntimeError("creating deployment %s: %d %s" %
                                   (name, status, body))
        t_posted = time.monotonic()
        t_running = watch.wait_for(lambda w: w.running >= total, timeout,
                                   "%d pods Running" % total)
        cpu1 = process_cpu_seconds(server_pid)
        client_cpu1 = time.process_time()
        events_up = watch.events
        first = watch.first_running
        # Every change of the pods from here on (grace period, kill,
        # removal), from the revision at which all of them were Running.
        with watch.cond:
            rv, phases = watch.resource_version, dict(watch.phases)
        watch.stop()
        down = start_watch(PodWatch(client, case, rv, phases=phases))

        t1 = time.monotonic()
        for name in names:
            status, body = client.request(
                "DELETE", "/apis/apps/v1/namespaces/%s/deployments/%s" %
                (NAMESPACE, name),
                {"kind": "DeleteOptions", "apiVersion": "v1",
                 "propagationPolicy": "Background"})
            if status not in (200, 202):
                raise RuntimeError("deleting deployment %s: %d %s" %
                                   (name, status, body))
        t_deleted = down.wait_for(lambda w: not w.phases, timeout,
                                  "all %d pods gone" % total)
        cpu2 = process_cpu_seconds(server_pid)
    finally:
        watch.stop()
        if down is not None:
            down.stop()
    return {
        "deployments": len(sizes), "replicas": sorted(set(sizes)),
        "pods": total,
        "create_requests_s": t_posted - t0,
        "first_running_s": (first - t0) if first else None,
        "running_s": t_running - t0,
        "running_pods_per_s": total / (t_running - t0),
        "running_cpu_s": cpu1 - cpu0,
        "running_client_cpu_s": client_cpu1 - client_cpu0,
        "watch_events_up": events_up,
        "delete_s": t_deleted - t1,
        "delete_pods_per_s": total / (t_deleted - t1),
        "delete_cpu_s": cpu2 - cpu1,
        "watch_events_total": watch.events + (down.events if down else 0),
        "settle_s": settle_s,
    }


def start_watch(watch):
    """Starts a PodWatch and waits until its watch is established."""
    watch.start()
    watch.established.wait(30)
    if watch.error:
        raise RuntimeError(watch.error)
    return watch


class StartupProbe(threading.Thread):
    """Creates pod <case>-N (labelled LABEL=<case>, scheduled normally) every
    1/rate_per_s seconds until stop() or finish(), each timed from just
    before its POST to its watch event in phase Running. Uses its own client
    (connection) and its own watch."""

    def __init__(self, client, case, rate_per_s):
        super().__init__(daemon=True)
        self.client = client
        self.case = case
        self.interval = 1.0 / rate_per_s
        self.sent = {}  # name -> time.monotonic() before the POST
        self.error = None
        self.halt = threading.Event()
        self.watch = None

    def run(self):
        try:
            status, lst = self.client.request(
                "GET", "/api/v1/namespaces/%s/pods?labelSelector=%s%%3D%s" %
                (NAMESPACE, LABEL, self.case))
            if status != 200:
                raise RuntimeError("listing probe pods: %d" % status)
            # Latency is what this watch measures: no batching pause.
            self.watch = PodWatch(self.client, self.case,
                                  lst["metadata"]["resourceVersion"],
                                  read_pause_s=0)
            self.watch.start()
            self.watch.established.wait(30)
            if self.watch.error:
                raise RuntimeError(self.watch.error)
            due = time.monotonic()
            n = 0
            while not self.halt.is_set():
                name = "%s-%d" % (self.case, n)
                n += 1
                pod = {"apiVersion": "v1", "kind": "Pod",
                       "metadata": {"name": name,
                                    "labels": {LABEL: self.case}},
                       "spec": {"containers": [{"name": "web",
                                                "image": "nginx:1.25"}]}}
                self.sent[name] = time.monotonic()
                status, body = self.client.request(
                    "POST", "/api/v1/namespaces/%s/pods" % NAMESPACE, pod)
                if status != 201:
                    raise RuntimeError("creating probe pod %s: %d %s" %
                                       (name, status, body))
                due += self.interval
                self.halt.wait(max(0.0, due - time.monotonic()))
        except Exception as e:  # reported by finish()
            self.error = "%s: %s" % (type(e).__name__, e)

    def finish(self, timeout):
        """Stops creating, waits until every probe pod was seen Running and
        returns the latencies in milliseconds, in creation order."""
        self.halt.set()
        self.join(timeout)
        if self.error:
            raise RuntimeError("start-up probe: " + self.error)
        names = list(self.sent)
        self.watch.wait_for(
            lambda w: all(n in w.running_at for n in names), timeout,
            "%d probe pods Running" % len(names))
        return [(self.watch.running_at[n] - self.sent[n]) * 1000.0
                for n in names]

    def stop(self):
        self.halt.set()
        if self.watch is not None:
            self.watch.stop()
        self.client.close()
