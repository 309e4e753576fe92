"""The workload controllers under load: bench/run's `workloads` group.

  jobs       1,000 Jobs of one completion each, POSTed back to back: from the
             first POST to the last Job's Complete condition (Jobs completed
             per second), beside the same number of bare pods (restartPolicy
             Never) to Succeeded on the same server.
  daemonset  a DaemonSet across every node of a 5,000-node cluster (50 in
             quick mode): created to all pods available, then a new image
             rolled out (maxUnavailable 10%) to all pods updated and
             available; beside a Deployment of as many replicas created and
             rolled out the same way on the same server.
  drain      `kubectl drain` of a node running 110 pods of a Deployment (the
             kubelet's maxPods), beside `kubectl delete` of 110 such pods.

Each case starts its own kubemock through ctx.start (bench/run's driver, so
every server is stopped by PID) and reads progress through watches and GETs
over one keep-alive HTTPS connection (density.KubeClient).
"""

import json
import os
import subprocess
import threading
import time

import density
import scale

KUBECTL = "/usr/lib/google-cloud-sdk/bin/kubectl.1.33"
NS = "default"


class EventCounter(threading.Thread):
    """Watches a collection from a resourceVersion and counts the names for
    which `done(obj)` held, with when the last of `want` was seen."""

    def __init__(self, client, path, rv, done, want):
        super().__init__(daemon=True)
        self.client, self.path, self.rv = client, path, rv
        self.done, self.want = done, want
        self.names = set()
        self.finished_at = None
        self.error = None
        self.cond = threading.Condition()

    def run(self):
        try:
            conn = self.client.connect(timeout=600)
            conn.request("GET", "%s?watch=1&resourceVersion=%s&"
                         "allowWatchBookmarks=false" % (self.path, self.rv),
                         headers={"Accept": "application/json"})
            resp = conn.getresponse()
            for line in resp:
                ev = json.loads(line)
                obj = ev.get("object", {})
                if ev.get("type") in ("ADDED", "MODIFIED") and self.done(obj):
                    with self.cond:
                        self.names.add(obj["metadata"]["name"])
                        if len(self.names) >= self.want:
                            self.finished_at = time.monotonic()
                            self.cond.notify_all()
                            break
            conn.close()
        except Exception as e:  # reported by wait()
            with self.cond:
                self.error = e
                self.cond.notify_all()

    def wait(self, timeout):
        deadline = time.monotonic() + timeout
        with self.cond:
            while self.finished_at is None and self.error is None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise scale.Failed("%s: %d of %d after %.0f s" % (
                        self.path, len(self.names), self.want, timeout))
                self.cond.wait(left)
        if self.error:
            raise scale.Failed("%s: %s" % (self.path, self.error))
        return self.finished_at


def list_rv(client, path):
    status, body = client.request("GET", path + "?limit=1")
    if status != 200:
        raise scale.Failed("GET %s: %s" % (path, status))
    return body["metadata"]["resourceVersion"]


def post(client, path, obj):
    status, body = client.request("POST", path, obj)
    if status != 201:
        raise scale.Failed("POST %s: %s %s" % (path, status, str(body)[:200]))


def timed_burst(srv, client, path, objs, watch_path, done, timeout):
    """POSTs objs back to back; seconds from the first POST until `done`
    held for as many objects as were POSTed."""
    watch = EventCounter(srv.client(), watch_path,
                         list_rv(client, watch_path), done, len(objs))
    watch.start()
    time.sleep(0.2)  # the watch is established
    t0 = time.monotonic()
    for obj in objs:
        post(client, path, obj)
    return watch.wait(timeout) - t0


def condition_true(obj, kind):
    return any(c.get("type") == kind and c.get("status") == "True"
               for c in obj.get("status", {}).get("conditions", []))


def container(image="busybox"):
    return {"name": "c", "image": image, "command": ["true"]}


def jobs(ctx, table, srv):
    n = 100 if ctx.quick else 1000
    client = srv.client()
    pods = [{"apiVersion": "v1", "kind": "Pod",
             "metadata": {"name": "bare-%d" % i, "labels": {"b": "bare"}},
             "spec": {"restartPolicy": "Never",
                      "containers": [container()]}} for i in range(n)]
    pod_s = timed_burst(srv, client, "/api/v1/namespaces/%s/pods" % NS, pods,
                        "/api/v1/namespaces/%s/pods" % NS,
                        lambda p: p.get("status", {}).get("phase") ==
                        "Succeeded", 600)
    srv.settle()
    job_objs = [{"apiVersion": "batch/v1", "kind": "Job",
                 "metadata": {"name": "job-%d" % i},
                 "spec": {"template": {"spec": {
                     "restartPolicy": "Never",
                     "containers": [container()]}}}} for i in range(n)]
    cpu0 = srv.cpu_s()
    job_s = timed_burst(srv, client, "/apis/batch/v1/namespaces/%s/jobs" % NS,
                        job_objs, "/apis/batch/v1/namespaces/%s/jobs" % NS,
                        lambda j: condition_true(j, "Complete"), 600)
    cpu = srv.cpu_s() - cpu0
    table.add("%s Jobs of one completion: all Complete" % scale.fmt_count(n),
              n / job_s, "Jobs/s", n / pod_s, "bare pods to Succeeded")
    table.add("%s Jobs: kubemock CPU" % scale.fmt_count(n), cpu, "s CPU")
    table.raw["workloads-jobs"] = {"jobs": n, "job_s": job_s, "pod_s": pod_s,
                                   "cpu_s": cpu}
    client.close()


def wait_object(client, path, pred, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status, obj = client.request("GET", path)
        if status == 200 and pred(obj):
            return time.monotonic()
        time.sleep(0.05)
    raise scale.Failed("%s: not there after %.0f s" % (path, timeout))


def rollout(client, kind, name, n, template_image, update_image):
    """Seconds to all n pods available, then to all updated and available
    after the image changes."""
    labels = {"app": name}
    spec = {"selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels},
                         "spec": {"containers": [{"name": "c",
                                                  "image": template_image}],
                                  "tolerations": [{"operator": "Exists"}]}}}
    if kind == "DaemonSet":
        plural = "daemonsets"
        spec["updateStrategy"] = {"type": "RollingUpdate", "rollingUpdate": {
            "maxUnavailable": "10%"}}

        def available(o):
            st = o.get("status", {})
            return st.get("numberAvailable", 0) >= n and \
                st.get("updatedNumberScheduled", 0) >= n and \
                st.get("observedGeneration") == o["metadata"]["generation"]
    else:
        plural = "deployments"
        spec["replicas"] = n
        spec["strategy"] = {"type": "RollingUpdate", "rollingUpdate": {
            "maxUnavailable": "10%", "maxSurge": 0}}

        def available(o):
            st = o.get("status", {})
            return st.get("availableReplicas", 0) >= n and \
                st.get("updatedReplicas", 0) >= n and \
                st.get("replicas", 0) == n and \
                st.get("observedGeneration") == o["metadata"]["generation"]
    base = "/apis/apps/v1/namespaces/%s/%s" % (NS, plural)
    t0 = time.monotonic()
    post(client, base, {"apiVersion": "apps/v1", "kind": kind,
                        "metadata": {"name": name}, "spec": spec})
    up = wait_object(client, base + "/" + name, available, 900) - t0
    status, obj = client.request("GET", base + "/" + name)
    obj["spec"]["template"]["spec"]["containers"][0]["image"] = update_image
    t1 = time.monotonic()
    status, _ = client.request("PUT", base + "/" + name, obj)
    if status != 200:
        raise scale.Failed("PUT %s: %s" % (name, status))
    rolled = wait_object(client, base + "/" + name, available, 900) - t1
    return up, rolled


def daemonset(ctx, table):
    nodes = 50 if ctx.quick else 5000
    d = ctx.workdir("workloads-ds")
    cf = scale.cluster_file(os.path.join(d, "cluster.yaml"), nodes, 110)
    ctx.log("workloads: kubemock with %s nodes" % scale.fmt_count(nodes))
    srv = scale.Server(ctx, "kubemock-ds", ["--cluster", cf],
                       start_timeout=600)
    try:
        srv.settle(timeout_s=300)
        client = srv.client()
        dep_up, dep_roll = rollout(client, "Deployment", "spread", nodes,
                                   "nginx:1.25", "nginx:1.27")
        srv.settle(timeout_s=300)
        ds_up, ds_roll = rollout(client, "DaemonSet", "agent", nodes,
                                 "nginx:1.25", "nginx:1.27")
        label = "DaemonSet across %s nodes" % scale.fmt_count(nodes)
        table.add(label + ": all pods available", ds_up, "s wall", dep_up,
                  "Deployment of as many")
        table.add(label + ": new image rolled out (maxUnavailable 10%)",
                  ds_roll, "s wall", dep_roll, "Deployment of as many")
        table.raw["workloads-daemonset"] = {
            "nodes": nodes, "ds_up_s": ds_up, "ds_roll_s": ds_roll,
            "deployment_up_s": dep_up, "deployment_roll_s": dep_roll}
        client.close()
    finally:
        srv.stop()


def kubectl(srv, *args, timeout=600):
    kc = os.path.join(srv.dir, "kc")
    t0 = time.monotonic()
    p = subprocess.run([KUBECTL, "--kubeconfig", kc,
                        "--cache-dir", os.path.join(srv.dir, "cache")] +
                       list(args), capture_output=True, text=True,
                       timeout=timeout)
    if p.returncode != 0:
        raise scale.Failed("kubectl %s: %s" % (" ".join(args),
                                               p.stderr[-300:]))
    return time.monotonic() - t0


def pinned(client, name, node, n):
    labels = {"app": name}
    post(client, "/apis/apps/v1/namespaces/%s/deployments" % NS, {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {"replicas": n, "selector": {"matchLabels": labels},
                 "template": {"metadata": {"labels": labels},
                              "spec": {"nodeSelector": {
                                  "kubernetes.io/hostname": node},
                                  "containers": [{"name": "c",
                                                  "image": "nginx"}]}}}})
    wait_object(client, "/apis/apps/v1/namespaces/%s/deployments/%s" %
                (NS, name),
                lambda o: o.get("status", {}).get("availableReplicas", 0) >=
                n, 300)


def drain(ctx, table):
    pods = 110
    d = ctx.workdir("workloads-drain")
    cf = scale.cluster_file(os.path.join(d, "cluster.yaml"), 3, pods + 5)
    srv = scale.Server(ctx, "kubemock-drain", ["--cluster", cf])
    try:
        client = srv.client()
        # node-0 runs the control plane; the other two have room for 110.
        pinned(client, "deleted", "node-2", pods)
        delete_s = kubectl(srv, "delete", "pods", "-l", "app=deleted")
        pinned(client, "drained", "node-1", pods)
        srv.settle()
        drain_s = kubectl(srv, "drain", "node-1", "--ignore-daemonsets",
                          "--delete-emptydir-data", "--timeout=300s")
        table.add("drain of a node with %d pods" % pods, drain_s, "s wall",
                  delete_s, "kubectl delete of %d pods" % pods)
        table.raw["workloads-drain"] = {"pods": pods, "drain_s": drain_s,
                                        "delete_s": delete_s}
        client.close()
    finally:
        srv.stop()


def workloads(ctx, table):
    d = ctx.workdir("workloads-jobs")
    n = 100 if ctx.quick else 1000
    cf = scale.cluster_file(os.path.join(d, "cluster.yaml"),
                            density.workers_for(n), density.MAX_PODS)
    srv = scale.Server(ctx, "kubemock-jobs", ["--cluster", cf])
    try:
        srv.settle()
        jobs(ctx, table, srv)
    finally:
        srv.stop()
    drain(ctx, table)
    daemonset(ctx, table)
