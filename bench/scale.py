"""Footprint, scale and pod start-up latency: bench/run's `footprint`,
`scale` and `podstartup` groups.

  footprint   resident memory of a server idle, and holding 10,000 pods
  scale       5,000 nodes and 150,000 pods: how fast they go in, the memory
              that holds them, and LISTs over them (whole, paged, by label)
  podstartup  Deployments of 5, 30 and 250 replicas on nodes that take 30
              pods each while a probe creates a pod every 200 ms; each probe
              pod's creation-to-Running latency as seen through a watch

Each group is a function (ctx, table) that starts its own kubemock through
ctx.start (bench/run's driver, so every server is stopped by PID), drives it
with fanout_driver (bench/fanout/) or Python, and adds rows to the table.
Memory is read from /proc/PID/status (VmRSS now, VmHWM the peak).
"""

import json
import os
import subprocess
import time

import yaml

import density

MB = 1024.0  # /proc reports kB
IDLE_RSS_TARGET_MB = 30
SCALE_RSS_TARGET_MB = 1536
FULL_LIST_TARGET_S = 1.0
LIST_TIMEOUT_S = 300


class Failed(RuntimeError):
    pass


class Context:
    """What a group needs from bench/run."""

    def __init__(self, kubemock, fanout_driver, scratch, quick, start, stop,
                 log):
        self.kubemock = kubemock
        self.fanout_driver = fanout_driver
        self.scratch = scratch
        self.quick = quick
        self.start = start  # (name, command) -> the driver's start report
        self.stop = stop  # (pid) -> None
        self.log = log
        self.count = 0

    def workdir(self, name):
        self.count += 1
        d = os.path.join(self.scratch, "%s-%d" % (name, self.count))
        os.makedirs(d)
        return d


class Server:
    """One kubemock started for a group, with the admin credentials written
    out of its kubeconfig."""

    def __init__(self, ctx, name, extra_args=(), in_memory=True,
                 start_timeout=60):
        self.ctx = ctx
        self.dir = ctx.workdir(name)
        kc = os.path.join(self.dir, "kc")
        cmd = [ctx.kubemock, "serve", "--port", "0", "--seed", "1",
               "--kubeconfig", kc]
        cmd += (["--in-memory"] if in_memory else
                ["--data-dir", os.path.join(self.dir, "data")])
        cmd += list(extra_args)
        t0 = time.monotonic()
        out = ctx.start(name, cmd, start_timeout)
        self.start_s = time.monotonic() - t0
        self.ready_ms = out.get("ready_ms")
        self.pid = out["pid"]
        self.port = out["port"]
        self.creds = density.credentials_from_kubeconfig(kc, self.dir)

    def endpoint(self):
        return ["--port", str(self.port), "--ca", self.creds["ca"],
                "--cert", self.creds["cert"], "--key", self.creds["key"]]

    def client(self):
        return density.KubeClient(self.port, self.creds)

    def memory_mb(self):
        """(VmRSS, VmHWM) in MB."""
        vals = {}
        with open("/proc/%d/status" % self.pid) as f:
            for line in f:
                key, _, rest = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    vals[key] = int(rest.split()[0]) / MB
        return vals["VmRSS"], vals["VmHWM"]

    def cpu_s(self):
        return density.process_cpu_seconds(self.pid)

    def cpu_rate(self, window_s=2.0):
        """CPU seconds the server uses per second over a window: with
        thousands of nodes, their lease renewals keep an idle server busy
        at a steady rate."""
        cpu = self.cpu_s()
        time.sleep(window_s)
        return (self.cpu_s() - cpu) / window_s

    def settle(self, quiet_cpu_s=0.05, window_s=1.0, timeout_s=60.0):
        """Waits until the server uses under quiet_cpu_s of CPU in a window
        (its kubelets and controllers are done); returns the seconds waited."""
        return density.wait_until_idle(self.pid, timeout_s, window_s,
                                       quiet_cpu_s)

    def stop(self):
        self.ctx.stop(self.pid)

    def driver(self, mode, args, timeout):
        """Runs fanout_driver MODE against this server; returns its JSON
        report and the server's peak VmRSS seen while it ran (MB)."""
        cmd = [self.ctx.fanout_driver, mode] + self.endpoint() + list(args)
        err_path = os.path.join(self.dir, "%s.err" % mode)
        peak = 0.0
        with open(err_path, "ab") as err:
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err)
            deadline = time.monotonic() + timeout
            while p.poll() is None:
                peak = max(peak, self.memory_mb()[0])
                if time.monotonic() > deadline:
                    p.kill()
                    p.wait()
                    raise Failed("fanout_driver %s: no answer within %.0f s" %
                                 (mode, timeout))
                time.sleep(0.2)
            out = p.stdout.read().decode()
        try:
            report = json.loads(out.strip().splitlines()[-1])
        except (ValueError, IndexError):
            with open(err_path) as f:
                raise Failed("fanout_driver %s: %s" % (mode, f.read()[-500:]))
        if not report.get("ok"):
            raise Failed("fanout_driver %s: %s" % (
                mode, report.get("error") or report.get("first_error")))
        return report, peak


def cluster_file(path, nodes, pods_per_node, name="scale"):
    """`nodes` workers node-0 ... with room for pods_per_node pods each and
    plenty of CPU and memory. Addresses are given explicitly: the defaults
    kubemock derives from the node's index stop being valid past 245 nodes."""
    spec = []
    for i in range(nodes):
        spec.append({
            "name": "node-%d" % i,
            "capacity": {"cpu": "64", "memory": "256Gi",
                         "pods": str(pods_per_node)},
            "internalIP": "10.%d.%d.%d" % (1 + i // 62500, (i // 250) % 250,
                                           i % 250 + 1),
            "podCIDR": "10.%d.%d.0/24" % (128 + i // 256, i % 256),
        })
    with open(path, "w") as f:
        yaml.safe_dump({"name": name, "nodes": spec}, f)
    return path


def fmt_count(n):
    return "{:,}".format(int(n))


# --------------------------------------------------------------------------
# footprint


def footprint(ctx, table):
    settle = 0.5 if ctx.quick else 3.0
    raw = {}
    kinds = [("data dir", False)] + ([] if ctx.quick else
                                     [("--in-memory", True)])
    for label, in_memory in kinds:
        srv = Server(ctx, "footprint-idle", in_memory=in_memory)
        try:
            time.sleep(settle)
            rss, hwm = srv.memory_mb()
            # What an idle cluster costs: its timers, heartbeats and
            # resyncs, a CI machine's cost of leaving a server up.
            idle_cpu = srv.cpu_rate(2.0 if ctx.quick else 10.0)
        finally:
            srv.stop()
        raw["idle " + label] = {"rss_mb": rss, "hwm_mb": hwm,
                                "cpu_per_s": idle_cpu}
        table.add("footprint: idle, default cluster, %s: RSS" % label, rss,
                  "MB", target=IDLE_RSS_TARGET_MB)
        table.add("footprint: idle, default cluster, %s: peak RSS (VmHWM)" %
                  label, hwm, "MB")
        table.add("footprint: idle, default cluster, %s: kubemock CPU at "
                  "rest" % label, idle_cpu * 1000.0, "ms CPU per s")
    if not ctx.quick:
        pods, nodes = 10000, 100
        rss, hwm, fill = filled_memory(ctx, nodes, pods)
        raw["10000 pods"] = {"rss_mb": rss, "hwm_mb": hwm, "fill": fill}
        what = "footprint: %s pods on %d nodes, data dir" % (fmt_count(pods),
                                                              nodes)
        table.add(what + ": RSS", rss, "MB")
        table.add(what + ": peak RSS (VmHWM)", hwm, "MB")
    table.raw["footprint"] = raw
    table.note("footprint: the 5,000-node, 150,000-pod figures are the "
               "scale group's RSS rows.")


def filled_memory(ctx, nodes, pods):
    d = ctx.workdir("footprint-cluster")
    cf = cluster_file(os.path.join(d, "cluster.yaml"), nodes,
                      -(-pods // nodes) + 10)
    srv = Server(ctx, "footprint-pods", ["--cluster", cf], in_memory=False,
                 start_timeout=120)
    try:
        fill, _ = srv.driver("fill", ["--count", str(pods), "--nodes",
                                      str(nodes), "--connections", "4"], 600)
        srv.settle(timeout_s=20)
        rss, hwm = srv.memory_mb()
    finally:
        srv.stop()
    return rss, hwm, fill


# --------------------------------------------------------------------------
# scale


def scale(ctx, table):
    if ctx.quick:
        steps = [(50, 500, 20)]
        per_ns, deadline, list_runs = 500, 20, 1
    else:
        # 5,000 nodes as upstream's limit; if the server cannot come up with
        # that many, the same 150,000 pods on 1,000 nodes.
        steps = [(5000, 150000, 30), (1000, 150000, 150)]
        # Each whole LIST three times, the median reported: one sample
        # says as much about the first touch of its buffers as about it.
        per_ns, deadline, list_runs = 3000, 600, 3
    raw = {"attempts": []}
    table.raw["scale"] = raw
    for nodes, pods, per_node in steps:
        d = ctx.workdir("scale-cluster")
        cf = cluster_file(os.path.join(d, "cluster.yaml"), nodes, per_node)
        ctx.log("scale: starting kubemock with %s nodes" % fmt_count(nodes))
        t0 = time.monotonic()
        try:
            srv = Server(ctx, "kubemock-scale", ["--cluster", cf],
                         in_memory=False, start_timeout=600)
        except Exception as e:  # bench/run's Fatal, from its driver
            secs = time.monotonic() - t0
            ctx.log("scale: no start with %d nodes after %.0f s: %s" %
                    (nodes, secs, str(e).splitlines()[0]))
            raw["attempts"].append({"nodes": nodes, "started": False,
                                    "seconds": secs, "error": str(e)[:2000]})
            table.add("scale: start-up with %s nodes (failed)" %
                      fmt_count(nodes), secs, "s wall")
            table.note("scale: kubemock did not start with %s nodes: %s" %
                       (fmt_count(nodes), str(e).splitlines()[0][:200]))
            continue
        try:
            scale_step(ctx, table, srv, nodes, pods, per_ns, deadline,
                       list_runs, raw)
        finally:
            srv.stop()
        return
    raise Failed("kubemock started with none of the node counts")


def scale_step(ctx, table, srv, nodes, pods, per_ns, deadline, list_runs,
               raw):
    size = "%s nodes" % fmt_count(nodes)
    rss0, _ = srv.memory_mb()
    raw["attempts"].append({"nodes": nodes, "started": True,
                            "seconds": srv.start_s, "rss_mb": rss0})
    table.add("scale: start-up with %s to ready" % size, srv.start_s,
              "s wall")
    table.add("scale: %s, no pods yet: RSS" % size, rss0, "MB")
    # Settled after the fill = back to what the nodes alone cost.
    idle_cpu = srv.cpu_rate()
    table.add("scale: %s, no pods yet: kubemock CPU at rest" % size,
              idle_cpu * 100.0, "% of a CPU")
    ctx.log("scale: creating %s pods (deadline %d s)" % (fmt_count(pods),
                                                         deadline))
    cpu0 = srv.cpu_s()
    fill, peak = srv.driver("fill", [
        "--count", str(pods), "--nodes", str(nodes), "--per-namespace",
        str(per_ns), "--connections", "4", "--deadline", str(deadline)],
        deadline + 300)
    fill["server_cpu_s"] = srv.cpu_s() - cpu0
    ctx.log("scale: %d pods in %.1f s (%.0f/s), server CPU %.0f s" %
            (fill["created"], fill["seconds"], fill["pods_per_second"],
             fill["server_cpu_s"]))
    # The fake kubelets start every pod the fill created (two status
    # writes and five events each): at 150,000 pods that outlasts the fill
    # by minutes, and a LIST made meanwhile measures the contention.
    settle_s = srv.settle(quiet_cpu_s=idle_cpu + 0.05,
                          timeout_s=1 if ctx.quick else 900)
    rss, hwm = srv.memory_mb()
    raw["fill"] = fill
    raw["settle_s"] = settle_s
    have = fill["created"] + fill["conflicts"]
    held = "scale: %s, %s pods" % (size, fmt_count(have))
    if fill["deadline_hit"]:
        table.note("scale: pod creation stopped at its %d s deadline with %s "
                   "of %s pods" % (deadline, fmt_count(have),
                                   fmt_count(pods)))
    table.add("scale: POST pods with nodeName, 4 connections: rate",
              fill["pods_per_second"], "pods/s")
    table.add("scale: POST pods, kubemock CPU per 1,000 pods",
              fill["server_cpu_s"] * 1000.0 / max(1, fill["created"]),
              "s CPU")
    table.add(held + ": RSS", rss, "MB", target=SCALE_RSS_TARGET_MB)
    table.add(held + ": peak RSS (VmHWM)", hwm, "MB",
              target=SCALE_RSS_TARGET_MB)
    lists = [
        ("LIST all pods, one response", "/api/v1/pods", 0, list_runs,
         FULL_LIST_TARGET_S),
        ("LIST all pods, pages of 500", "/api/v1/pods", 500, list_runs,
         None),
        ("LIST a %s-pod namespace by label" % fmt_count(per_ns),
         "/api/v1/namespaces/scale-0/pods?labelSelector=app%3Da-3", 0, 3,
         None),
    ]
    raw["lists"] = []
    for label, path, limit, runs, target in lists:
        ctx.log("scale: %s" % label)
        try:
            rep, _ = srv.driver("list", ["--path", path, "--limit",
                                         str(limit), "--runs", str(runs)],
                                LIST_TIMEOUT_S)
        except Failed as e:
            table.add("%s: %s (failed)" % (held, label), None, "s wall",
                      target=target)
            table.note("scale: %s: %s" % (label, e))
            raw["lists"].append({"path": path, "limit": limit,
                                 "error": str(e)})
            continue
        raw["lists"].append(rep)
        what = "%s: %s (%s items, %.0f MB%s)" % (
            held, label, fmt_count(rep["items"]), rep["bytes"] / 1e6,
            ", %d pages" % rep["pages"] if limit else "")
        table.add(what, rep["median_seconds"], "s wall", target=target)
    rss, hwm = srv.memory_mb()
    table.add(held + ", after the LISTs: peak RSS (VmHWM)", hwm, "MB",
              target=SCALE_RSS_TARGET_MB)


# --------------------------------------------------------------------------
# podstartup


def podstartup(ctx, table):
    if ctx.quick:
        cases = [("1 Deployment × 5", 1, 5), ("1 Deployment × 30", 1, 30)]
        min_probe_s = 1.0
    else:
        cases = [("1 Deployment × 5", 1, 5), ("1 Deployment × 30", 1, 30),
                 ("1 Deployment × 250", 1, 250)]
        min_probe_s = 10.0
    workers = 20  # 600 pods of room: the largest case plus the probe pods
    d = ctx.workdir("podstartup-cluster")
    cf = density.cluster_file(os.path.join(d, "cluster.yaml"), workers=workers,
                              pods_per_worker=30)
    srv = Server(ctx, "kubemock-podstartup", ["--cluster", cf])
    client = srv.client()
    probe = density.StartupProbe(srv.client(), "probe", rate_per_s=5.0)
    raw = {"cases": []}
    table.raw["podstartup"] = raw
    try:
        probe.start()
        t0 = time.monotonic()
        for label, deployments, replicas in cases:
            case = "ps%dx%d" % (deployments, replicas)
            ctx.log("podstartup: %s with the probe running" % label)
            # No wait for an idle server: the probe keeps it busy, and
            # its latency under this load is the figure.
            r = density.run_case(client, srv.pid, case,
                                 [replicas] * deployments, timeout=300,
                                 settle_timeout=0)
            raw["cases"].append({"case": label, "run": r})
            what = "density, 30 pods/node: %s: all Running" % label
            table.add(what, r["running_s"], "s wall")
            table.add(what + ", rate", r["running_pods_per_s"], "pods/s")
        left = min_probe_s - (time.monotonic() - t0)
        if left > 0:
            time.sleep(left)
        lat = probe.finish(timeout=60)
    finally:
        probe.stop()
        client.close()
        srv.stop()
    raw["probe_ms"] = lat
    lat.sort()
    n = len(lat)
    label = ("pod start-up, 5 pods/s during the density load, creation to "
             "Running seen by a watch (%d pods)" % n)
    for p in (50, 90, 99):
        v = lat[min(n - 1, max(0, -(-p * n // 100) - 1))] if n else None
        table.add("%s: p%d" % (label, p), v, "ms")
