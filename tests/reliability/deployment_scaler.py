"""Keeps the controllers and fake kubelets busy during the crash test: scales
one Deployment up and down through its scale subresource, remembering the
acknowledged replica count and the one in flight, and checks after a
restart that the stored count is one of them and that the Deployment's
pods converge to it.

Thread safety: run_cycle() runs on one thread; the main thread calls the
other methods only after joining it.
"""

import random
import time

import kube_client
from lease_writer import NAMESPACE

NAME = "busy"
DEPLOY = "/apis/apps/v1/namespaces/%s/deployments" % NAMESPACE
PODS = "/api/v1/namespaces/%s/pods" % NAMESPACE


def deployment_body(replicas):
    labels = {"app": NAME}
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": NAME},
            "spec": {"replicas": replicas,
                     "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"containers": [
                                      {"name": "c", "image": "nginx:1.27"}]}}}}


class Scaler:

    def __init__(self, seed, ledger, max_replicas=6):
        self.rng = random.Random(seed)
        self.ledger = ledger
        self.max_replicas = max_replicas
        self.acked = None  # replicas last acknowledged
        self.pending = None  # replicas in flight
        self.scales = 0

    def create(self, client):
        r = client.request("POST", DEPLOY, deployment_body(2))
        if r.status != 201:
            self.ledger.problem("create deployment answered %r" % r)
        self.acked = 2

    def run_cycle(self, client, stop):
        try:
            while not stop.is_set():
                want = self.rng.randint(0, self.max_replicas)
                self.pending = want
                try:
                    r = client.request(
                        "PATCH", "%s/%s/scale" % (DEPLOY, NAME),
                        {"spec": {"replicas": want}},
                        content_type="application/merge-patch+json")
                except kube_client.ConnectionLost as e:
                    if not e.sent:
                        self.pending = None
                    return
                if r.status != 200:
                    self.ledger.problem("scale to %d answered %r" % (want, r))
                    return
                # Scale omits replicas when it is 0, as Kubernetes does.
                got = r.json().get("spec", {}).get("replicas", 0)
                if got != want:
                    self.ledger.problem("scale to %d answered replicas %d" %
                                        (want, got))
                self.acked, self.pending = want, None
                self.scales += 1
                stop.wait(self.rng.uniform(0.02, 0.1))
        finally:
            client.close()

    def check_stored(self, client, problems):
        """After a restart: spec.replicas is the acknowledged count or the
        one in flight. Resolves the in-flight one."""
        r = client.get("%s/%s" % (DEPLOY, NAME))
        if r.status != 200:
            problems.append("deployment %s after restart: %r" % (NAME, r))
            return
        got = r.json()["spec"]["replicas"]
        allowed = {self.acked} | ({self.pending} - {None})
        if got not in allowed:
            problems.append("deployment replicas %d after restart; "
                            "acknowledged %r, in flight %r" %
                            (got, self.acked, self.pending))
        self.acked, self.pending = got, None

    def wait_converged(self, client, timeout):
        """Waits until the Deployment reports its replicas ready and exactly
        that many live Running pods exist. Returns None or a problem."""
        deadline = time.monotonic() + timeout
        last = ""
        while time.monotonic() < deadline:
            dr = client.get("%s/%s" % (DEPLOY, NAME))
            pr = client.get(PODS + "?labelSelector=app%3D" + NAME)
            if dr.status != 200 or pr.status != 200:
                return "deployment or pods unreadable: %r %r" % (dr, pr)
            d, pods = dr.json(), pr.json()
            want = d["spec"]["replicas"]
            st = d.get("status") or {}
            live = [p for p in pods["items"]
                    if not p["metadata"].get("deletionTimestamp")]
            running = [p for p in live
                       if (p.get("status") or {}).get("phase") == "Running"]
            last = ("spec.replicas %d, status %s, %d live pods, %d running" %
                    (want, {k: st.get(k) for k in
                            ("replicas", "readyReplicas", "updatedReplicas",
                             "observedGeneration")}, len(live), len(running)))
            if (st.get("observedGeneration") == d["metadata"]["generation"]
                    and st.get("replicas", 0) == want and
                    st.get("readyReplicas", 0) == want and
                    len(live) == want and len(running) == want):
                return None
            time.sleep(0.05)
        return "deployment did not converge in %ds: %s" % (timeout, last)
