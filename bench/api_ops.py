"""API operations: patch types, server-side apply of a manifest set, watch
latency. Used by bench/run (its `patch`, `apply` and `watchlat` groups).

Each group works on a running kubemock (the main server of bench/run) and
puts its figure beside a baseline measured in the same run on the same
server:

  patch_group     one pod's label changed by PUT (the baseline), JSON patch,
                  merge patch, strategic merge patch and server-side apply,
                  from 1 and 8 connections, through `load_driver requests`;
                  then a Deployment's long env list rewritten by strategic
                  merge patch beside PUT of the same object, from Python
  apply_set_group a 50-object manifest set applied server-side (creates, an
                  unchanged re-apply, a re-apply with one change each) beside
                  POST and PUT of the same 50 objects, from Python
  watchlat_group  a watch on one pod while it is updated one by one and in a
                  burst: write sent to event received, beside the write's own
                  round trip, through `load_driver watchlat`

Errors are raised as RuntimeError; bench/run turns them into its Fatal.
"""

import http.client
import json
import os
import ssl
import statistics
import subprocess
import time

POD_NS = "default"


class Target:
    """The kubemock under test and where the driver and scratch files are."""

    def __init__(self, driver_path, endpoint_args, port, pki_dir, scratch,
                 quick, log):
        self.driver_path = driver_path
        self.endpoint_args = endpoint_args  # --port P --ca F --cert F --key F
        self.port = port
        self.pki_dir = pki_dir
        self.scratch = scratch
        self.quick = quick
        self.log = log
        self.files = 0

    def write_file(self, stem, data):
        self.files += 1
        path = os.path.join(self.scratch, "%s-%d" % (stem, self.files))
        with open(path, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())
        return path


class Sizes:
    """How much each group does; quick mode keeps all of them within ~15 s."""

    def __init__(self, quick):
        self.patch_conns = [1, 8]
        self.patch_seconds = 0.2 if quick else 5.0
        self.patch_warmup = 0.05 if quick else 0.5
        self.apply_runs = 1 if quick else 5
        self.env_sizes = [2000] if quick else [5000, 20000]
        self.env_runs = 1 if quick else 3
        self.watch_updates = 100 if quick else 1000
        self.watch_burst_conns = 4 if quick else 8
        self.write_conns = [1, 16] if quick else [1, 16, 64]
        self.write_seconds = 0.4 if quick else 10.0
        self.write_warmup = 0.05 if quick else 1.0
        self.storm_threads = [1, 8]
        self.storm_seconds = 0.2 if quick else 5.0
        # New connections leave sockets in TIME_WAIT: bound each run.
        self.storm_max_requests = 1000 if quick else 15000


def median(xs):
    return statistics.median(xs) if xs else None


# --------------------------------------------------------------------------
# Talking to kubemock and to the driver.


class Kube:
    """One keep-alive HTTPS connection with kubemock's admin certificate."""

    def __init__(self, target):
        self.port = target.port
        pki = target.pki_dir
        self.ctx = ssl.create_default_context(
            cafile=os.path.join(pki, "ca.crt"))
        self.ctx.load_cert_chain(os.path.join(pki, "admin.crt"),
                                 os.path.join(pki, "admin.key"))
        self.conn = None

    def request(self, method, path, body=None,
                content_type="application/json", ok=(200, 201)):
        """Returns the parsed JSON response; raises RuntimeError on a status
        outside ok."""
        if body is not None and not isinstance(body, bytes):
            body = json.dumps(body, separators=(",", ":")).encode()
        headers = {"Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = content_type
        for attempt in (0, 1):
            if self.conn is None:
                self.conn = http.client.HTTPSConnection(
                    "127.0.0.1", self.port, context=self.ctx, timeout=30)
            try:
                self.conn.request(method, path, body=body, headers=headers)
                resp = self.conn.getresponse()
                raw = resp.read()
                break
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = None
                if attempt:
                    raise
        if resp.status not in ok:
            raise RuntimeError("%s %s: %d %s" % (method, path, resp.status,
                                                 raw[:300].decode(
                                                     errors="replace")))
        return json.loads(raw) if raw else None

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def run_driver(target, args, timeout):
    """Runs load_driver with args; returns its JSON report."""
    p = subprocess.run([target.driver_path] + args, capture_output=True,
                       text=True, timeout=timeout)
    try:
        out = json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise RuntimeError("load_driver %s: %s" % (args[0], p.stderr.strip()))
    if p.returncode != 0:
        raise RuntimeError("load_driver %s failed: %s" % (
            args[0], out.get("first_error") or out.get("error") or out))
    return out


def driver_requests(target, endpoint_args, path, connections, seconds,
                    warmup, method="GET", body=None, content_type=None,
                    expect="200", extra=()):
    """`load_driver requests`: body is a template ("@N@" = sequence)."""
    args = ["requests", "--path", path, "--method", method,
            "--connections", str(connections), "--duration", str(seconds),
            "--warmup", str(warmup), "--expect", expect] + endpoint_args
    if body is not None:
        args += ["--body-file", target.write_file("body", body)]
    if content_type:
        args += ["--content-type", content_type]
    args += list(extra)
    return run_driver(target, args, seconds + warmup + 120)


def bare_pod(name, labels):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "labels": labels},
            "spec": {"containers": [{"name": "web", "image": "nginx:1.25"}]}}


def pod_path(name):
    return "/api/v1/namespaces/%s/pods/%s" % (POD_NS, name)


def create_pod(kube, name, labels, timeout=30):
    """Creates a pod and returns it once it runs: bound to a node, so its
    spec no longer changes under a later PUT."""
    kube.request("POST", "/api/v1/namespaces/%s/pods" % POD_NS,
                 bare_pod(name, labels), ok=(201,))
    deadline = time.monotonic() + timeout
    while True:
        pod = kube.request("GET", pod_path(name))
        if pod.get("status", {}).get("phase") == "Running":
            return pod
        if time.monotonic() > deadline:
            raise RuntimeError("pod %s is not Running after %d s" %
                               (name, timeout))
        time.sleep(0.02)


def unconditional(obj):
    """obj ready for a PUT without a precondition: no resourceVersion, no
    managedFields (the server keeps its own)."""
    obj = json.loads(json.dumps(obj))
    obj["metadata"].pop("resourceVersion", None)
    obj["metadata"].pop("managedFields", None)
    return obj


# --------------------------------------------------------------------------
# patch: one change, five ways.

PATCH_POD = "bench-patch"


def patch_variants(current_pod):
    """(label, method, query, content type, body template) per way; every
    one sets label v to a new value, "@N@" being the request's number."""
    put = unconditional(current_pod)
    put["metadata"]["labels"]["v"] = "VALUE"
    merge = {"metadata": {"labels": {"v": "VALUE"}}}
    applied = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": PATCH_POD, "labels": {"v": "VALUE"}}}
    jsonp = [{"op": "replace", "path": "/metadata/labels/v", "value": "VALUE"}]

    def text(obj):
        return json.dumps(obj, separators=(",", ":"))

    return [
        ("PUT update", "PUT", "", "application/json", text(put)),
        ("JSON patch", "PATCH", "", "application/json-patch+json", text(jsonp)),
        ("merge patch", "PATCH", "", "application/merge-patch+json",
         text(merge)),
        ("strategic merge patch", "PATCH", "",
         "application/strategic-merge-patch+json", text(merge)),
        ("server-side apply", "PATCH", "?fieldManager=bench&force=true",
         "application/apply-patch+yaml", text(applied)),
    ]


def patch_group(target, table):
    sizes = Sizes(target.quick)
    kube = Kube(target)
    try:
        pod = create_pod(kube, PATCH_POD, {"app": "bench", "v": "0"})
    finally:
        kube.close()
    variants = patch_variants(pod)
    raw = []
    for conns in sizes.patch_conns:
        results = {}
        for i, (label, method, query, ctype, body) in enumerate(variants):
            value = "c%dv%d-@N@" % (conns, i)  # never the value stored now
            target.log("patch: %s, %d connection%s, %.1f s" % (
                label, conns, "" if conns == 1 else "s", sizes.patch_seconds))
            r = driver_requests(target, target.endpoint_args,
                                pod_path(PATCH_POD) + query, conns,
                                sizes.patch_seconds, sizes.patch_warmup,
                                method=method, content_type=ctype,
                                body=body.replace("VALUE", value))
            results[label] = r
            raw.append({"way": label, "connections": conns, "result": r})
        base = results["PUT update"]
        for label, *_ in variants:
            r = results[label]
            what = "pod label change, %s, %d conn%s" % (
                label if label != "PUT update" else "PUT update (baseline)",
                conns, "" if conns == 1 else "s")
            if label == "PUT update":
                table.add(what + ": throughput", r["rps"], "req/s")
                table.add(what + ": p50 latency", r["p50_us"], "µs")
                table.add(what + ": p99 latency", r["p99_us"], "µs")
            else:
                table.add(what + ": throughput", r["rps"], "req/s",
                          base["rps"], "PUT")
                table.add(what + ": p50 latency", r["p50_us"], "µs",
                          base["p50_us"], "PUT")
                table.add(what + ": p99 latency", r["p99_us"], "µs",
                          base["p99_us"], "PUT")
    table.raw["patch"] = raw
    table.note("patch: every request sets label `v` of one pod to a new value; "
               "the PUT baseline sends the whole pod without resourceVersion "
               "(an unconditional update); apply is fieldManager=bench, "
               "force=true.")
    env_list_rows(target, table)


# --------------------------------------------------------------------------
# A long list merged by strategic merge patch.

ENV_DEPLOYMENT = "bench-env"


def env_list(n, tag):
    return [{"name": "VAR_%d" % i, "value": "%s-%d" % (tag, i)}
            for i in range(n)]


def env_deployment(n, tag):
    """A Deployment of 0 replicas (no pod copies the list) whose one
    container has n env entries."""
    labels = {"app": ENV_DEPLOYMENT}
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": ENV_DEPLOYMENT},
            "spec": {"replicas": 0, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"containers": [
                                      {"name": "c", "image": "nginx:1.25",
                                       "env": env_list(n, tag)}]}}}}


def env_patch(n, tag):
    """What kubectl apply sends when every value changes: the whole list,
    merged by name, with its $setElementOrder."""
    env = env_list(n, tag)
    return {"spec": {"template": {"spec": {
        "$setElementOrder/containers": [{"name": "c"}],
        "containers": [{"name": "c",
                        "$setElementOrder/env": [{"name": e["name"]}
                                                 for e in env],
                        "env": env}]}}}}


def timed(fn):
    start = time.monotonic()
    fn()
    return time.monotonic() - start


def env_list_rows(target, table):
    """PATCH (strategic merge) of every entry of a long env list, beside a
    PUT of the same object: one request at a time, median wall time."""
    sizes = Sizes(target.quick)
    kube = Kube(target)
    collection = "/apis/apps/v1/namespaces/%s/deployments" % POD_NS
    path = collection + "/" + ENV_DEPLOYMENT
    smp = "application/strategic-merge-patch+json"
    raw = []
    try:
        for n in sizes.env_sizes:
            target.log("patch: %d env entries, %d run%s" % (
                n, sizes.env_runs, "" if sizes.env_runs == 1 else "s"))
            kube.request("POST", collection, env_deployment(n, "v0"),
                         ok=(201,))
            puts, patches = [], []
            for run in range(sizes.env_runs):
                put = env_deployment(n, "put%d" % run)
                puts.append(timed(lambda: kube.request("PUT", path, put)))
                body = env_patch(n, "patch%d" % run)
                patches.append(timed(lambda: kube.request(
                    "PATCH", path, body, content_type=smp)))
            stored = kube.request("GET", path)
            env = stored["spec"]["template"]["spec"]["containers"][0]["env"]
            if env != env_list(n, "patch%d" % (sizes.env_runs - 1)):
                raise RuntimeError("the env list of %d entries did not merge "
                                   "as sent" % n)
            kube.request("DELETE", path)
            table.add("Deployment with %d env entries, every value changed: "
                      "strategic merge patch" % n, median(patches) * 1000,
                      "ms", median(puts) * 1000, "PUT")
            raw.append({"entries": n, "put_s": puts, "patch_s": patches})
    finally:
        kube.close()
    table.raw["patch_env"] = raw
    table.note("patch: the env-list rows time one request at a time from "
               "Python (median); the baseline PUTs the whole Deployment with "
               "the new values.")


# --------------------------------------------------------------------------
# apply: a 50-object manifest set.

APPLY_QUERY = "?fieldManager=bench&force=true"
APPLY_TYPE = "application/apply-patch+yaml"


def manifest_set(ns):
    """The Namespace and 49 objects in it: 12 Deployments (1 replica each),
    12 Services, 13 Pods, 12 Leases. Returns [(collection path, object)]."""
    objs = [("/api/v1/namespaces",
             {"apiVersion": "v1", "kind": "Namespace",
              "metadata": {"name": ns, "labels": {"bench": "apply"}}})]
    for i in range(12):
        name = "web-%d" % i
        objs.append(("/apis/apps/v1/namespaces/%s/deployments" % ns, {
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": ns,
                         "labels": {"app": name}},
            "spec": {"replicas": 1,
                     "selector": {"matchLabels": {"app": name}},
                     "template": {
                         "metadata": {"labels": {"app": name}},
                         "spec": {"containers": [{
                             "name": "web", "image": "nginx:1.25",
                             "ports": [{"containerPort": 80}]}]}}}}))
        objs.append(("/api/v1/namespaces/%s/services" % ns, {
            "apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": ns,
                         "labels": {"app": name}},
            "spec": {"selector": {"app": name},
                     "ports": [{"port": 80, "targetPort": 80,
                                "protocol": "TCP"}]}}))
        objs.append(("/apis/coordination.k8s.io/v1/namespaces/%s/leases" % ns,
                     {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                      "metadata": {"name": "lock-%d" % i, "namespace": ns,
                                   "labels": {"app": name}},
                      "spec": {"holderIdentity": name,
                               "leaseDurationSeconds": 15}}))
    for i in range(13):
        pod = bare_pod("task-%d" % i, {"app": "task"})
        pod["metadata"]["namespace"] = ns
        objs.append(("/api/v1/namespaces/%s/pods" % ns, pod))
    return objs


def object_path(collection, obj):
    return collection + "/" + obj["metadata"]["name"]


def changed(obj):
    """obj with one change: a new label."""
    obj = json.loads(json.dumps(obj))
    obj["metadata"].setdefault("labels", {})["rev"] = "2"
    return obj


def timed_pass(kube, requests):
    """Issues (method, path, body, content type, ok) one after another on
    one connection; returns the wall time in ms."""
    t0 = time.monotonic()
    for method, path, body, ctype, ok in requests:
        kube.request(method, path, body, content_type=ctype, ok=ok)
    return (time.monotonic() - t0) * 1000


def apply_run(kube, ns):
    """Server-side apply: first apply, unchanged re-apply, one change each."""
    objs = manifest_set(ns)

    def applies(change):
        return [("PATCH", object_path(c, changed(o) if change else o) +
                 APPLY_QUERY, changed(o) if change else o, APPLY_TYPE,
                 (200, 201)) for c, o in objs]

    return {"create": timed_pass(kube, applies(False)),
            "unchanged": timed_pass(kube, applies(False)),
            "change": timed_pass(kube, applies(True))}


def plain_run(kube, ns):
    """The baseline: POST each object, then PUT each as read back (without
    resourceVersion), unchanged and with the same one change."""
    objs = manifest_set(ns)
    out = {"create": timed_pass(
        kube, [("POST", c, o, "application/json", (201,)) for c, o in objs])}
    # The scheduler binds the pods meanwhile; read them once it has, or an
    # unconditional PUT of a pod read before its binding would try to take
    # spec.nodeName away again (422, as on a real cluster).
    deadline = time.monotonic() + 30
    while True:
        current = [(c, unconditional(kube.request("GET", object_path(c, o))))
                   for c, o in objs]
        if all(o.get("kind") != "Pod" or o["spec"].get("nodeName")
               for _, o in current) or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    out["unchanged"] = timed_pass(
        kube, [("PUT", object_path(c, o), o, "application/json", (200,))
               for c, o in current])
    current = [(c, unconditional(kube.request("GET", object_path(c, o))))
               for c, o in current]
    out["change"] = timed_pass(
        kube, [("PUT", object_path(c, o), changed(o), "application/json",
                (200,)) for c, o in current])
    return out


def apply_set_group(target, table):
    sizes = Sizes(target.quick)
    kube = Kube(target)
    runs = {"apply": [], "plain": []}
    try:
        for i in range(sizes.apply_runs):
            target.log("apply: 50-object set, run %d of %d" %
                       (i + 1, sizes.apply_runs))
            runs["apply"].append(apply_run(kube, "bench-ssa-%d" % i))
            runs["plain"].append(plain_run(kube, "bench-crud-%d" % i))
    finally:
        kube.close()
    table.raw["apply_set"] = runs
    n = len(manifest_set("x"))
    for key, what, base_name in (
            ("create", "first apply (creates)", "POST"),
            ("unchanged", "re-apply, unchanged", "PUT unchanged"),
            ("change", "re-apply, one change each", "PUT, same change")):
        a = median([r[key] for r in runs["apply"]])
        b = median([r[key] for r in runs["plain"]])
        table.add("%d-object set, server-side apply, %s: whole set" %
                  (n, what), a, "ms wall", b, base_name)
        table.add("%d-object set, server-side apply, %s: per object" %
                  (n, what), a * 1000 / n, "µs", b * 1000 / n, base_name)
    table.note("apply: %d objects (a Namespace, 12 Deployments, 12 Services, "
               "13 Pods, 12 Leases) sent one after another on one keep-alive "
               "connection from Python; baseline: POST, then PUT of each "
               "object as read back, without resourceVersion." % n)


# --------------------------------------------------------------------------
# kubectl apply of a 200-object mixed set.

def mixed_set(ns, n=50):
    """n each of Services, ConfigMaps, Secrets and Deployments in ns:
    [(collection path, object)]."""
    objs = []
    for i in range(n):
        name = "app-%d" % i
        objs.append(("/api/v1/namespaces/%s/services" % ns, {
            "apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": ns},
            "spec": {"selector": {"app": name},
                     "ports": [{"port": 80, "targetPort": 8080}]}}))
        objs.append(("/api/v1/namespaces/%s/configmaps" % ns, {
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": ns},
            "data": {"mode": "fast", "level": str(i)}}))
        objs.append(("/api/v1/namespaces/%s/secrets" % ns, {
            "apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": name, "namespace": ns},
            "type": "Opaque", "stringData": {"password": "p-%d" % i}}))
        objs.append(("/apis/apps/v1/namespaces/%s/deployments" % ns, {
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": ns},
            "spec": {"replicas": 1,
                     "selector": {"matchLabels": {"app": name}},
                     "template": {
                         "metadata": {"labels": {"app": name}},
                         "spec": {"containers": [{
                             "name": "app", "image": "nginx:1.25"}]}}}}))
    return objs


def kubectl_apply_group(target, table, kubectl):
    """`kubectl apply -f` of the mixed set (client-side apply, as users run
    it) beside POSTing the same objects from Python on one connection.
    kubectl(*args) runs the 1.33 client against the server."""
    sizes = Sizes(target.quick)
    kube = Kube(target)
    applied, posted = [], []
    try:
        for i in range(sizes.apply_runs):
            ns = "bench-kapply-%d" % i
            target.log("apply: kubectl apply of a 200-object set, run %d of %d"
                       % (i + 1, sizes.apply_runs))
            kube.request("POST", "/api/v1/namespaces",
                         {"apiVersion": "v1", "kind": "Namespace",
                          "metadata": {"name": ns}}, ok=(201,))
            items = [o for _, o in mixed_set(ns)]
            path = target.write_file("mixed-set", json.dumps(
                {"apiVersion": "v1", "kind": "List", "items": items}))
            t0 = time.monotonic()
            kubectl("apply", "-f", path)
            applied.append((time.monotonic() - t0) * 1000)
            ns = "bench-kpost-%d" % i
            kube.request("POST", "/api/v1/namespaces",
                         {"apiVersion": "v1", "kind": "Namespace",
                          "metadata": {"name": ns}}, ok=(201,))
            posted.append(timed_pass(
                kube, [("POST", c, o, "application/json", (201,))
                       for c, o in mixed_set(ns)]))
    finally:
        kube.close()
    table.raw["kubectl_apply_set"] = {"kubectl": applied, "post": posted}
    table.add("200-object mixed set, `kubectl apply -f` (creates)",
              median(applied), "ms wall", median(posted), "POST each")
    table.note("kubectl apply: 50 each of Services, ConfigMaps, Secrets and "
               "Deployments in one List file, one kubectl 1.33 process "
               "(discovery cache warm); baseline: the same objects POSTed "
               "one after another on one keep-alive connection from Python.")


# --------------------------------------------------------------------------
# watchlat: write to event.

WATCH_POD = "bench-watch"


def watchlat_group(target, table):
    sizes = Sizes(target.quick)
    kube = Kube(target)
    try:
        create_pod(kube, WATCH_POD, {"app": "bench", "v": "0"})
    finally:
        kube.close()
    watch = ("/api/v1/namespaces/%s/pods?watch=1&fieldSelector="
             "metadata.name%%3D%s" % (POD_NS, WATCH_POD))
    n = sizes.watch_updates
    raw = []
    first_n = 1
    for label, conns, wait in (("one by one", 1, "1"),
                               ("burst", sizes.watch_burst_conns, "0")):
        target.log("watchlat: %d updates %s (%d connection%s)" % (
            n, label, conns, "" if conns == 1 else "s"))
        body = target.write_file(
            "watch-patch", '{"metadata":{"labels":{"v":"w-@N@"}}}')
        r = run_driver(target, ["watchlat", "--watch-path", watch,
                                "--path", pod_path(WATCH_POD),
                                "--body-file", body, "--updates", str(n),
                                "--connections", str(conns),
                                "--wait-event", wait,
                                "--first-n", str(first_n),
                                "--timeout", "120"] + target.endpoint_args,
                       180)
        first_n = r["last_n"] + 1
        raw.append({"case": label, "connections": conns, "result": r})
        what = "watch, %s updates %s%s" % (
            "{:,}".format(n), label,
            "" if conns == 1 else " from %d conns" % conns)
        ev, rtt, ack = r["send_to_event"], r["write_rtt"], r["ack_to_event"]
        for p in ("p50", "p90", "p99"):
            table.add("%s: write sent → event received, %s" % (what, p),
                      ev[p + "_us"], "µs", rtt[p + "_us"], "write round trip")
        table.add("%s: write response → event received, p50" % what,
                  ack["p50_us"], "µs")
        table.add("%s: write response → event received, p99" % what,
                  ack["p99_us"], "µs")
        table.add("%s: events before the write response" % what,
                  100.0 * r["events_before_ack"] / max(1, r["updates"]), "%")
    table.raw["watchlat"] = raw
    table.note("watchlat: merge patches of one pod's label, each event matched "
               "to its write by resourceVersion; a negative \"write response → "
               "event\" means the event reached the watcher before the writer "
               "had its response.")
