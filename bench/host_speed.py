"""How fast the host ran during a benchmark run, so tables can be compared.

On a shared virtual machine the same work can take a third longer in one
hour than in another (other guests, CPU steal), which moves every wall and
CPU figure of a run by the same factor. bench/run records two things beside
its table:

  probe_seconds  CPU seconds one thread takes for a fixed piece of work
                 (decoding and encoding a pod-sized JSON document many times:
                 allocation, hashing and copying, like the server's own
                 work), taken before the first group and after the last
  steal          the share of CPU time the hypervisor took from this
                 machine during the run (/proc/stat), when it reports one

Two tables whose probes differ by 20% were taken on hosts 20% apart; compare
their ratios, or the figures scaled by the probe, not the raw figures.

Thread safety: none needed; call from the main thread while nothing else runs.
"""

import json
import time

# A pod as the benchmarks create them, about 2.5 KB of JSON.
_POD = {
    "kind": "Pod", "apiVersion": "v1",
    "metadata": {
        "name": "probe-7d9f8c6b5-x2k4q", "namespace": "default",
        "uid": "0b3f5a52-3c1e-4f7a-9d59-6f1f3c2a8e41",
        "resourceVersion": "123456", "creationTimestamp": "2026-01-01T00:00:00Z",
        "labels": {"app": "probe", "pod-template-hash": "7d9f8c6b5"},
        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                             "name": "probe-7d9f8c6b5", "controller": True,
                             "blockOwnerDeletion": True,
                             "uid": "5e2f0c1a-9b7d-4e3f-8a6c-2d1b0f9e8c7a"}],
    },
    "spec": {
        "containers": [{
            "name": "app", "image": "registry.k8s.io/pause:3.9",
            "imagePullPolicy": "IfNotPresent",
            "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}},
            "terminationMessagePath": "/dev/termination-log",
            "terminationMessagePolicy": "File",
            "volumeMounts": [{
                "name": "kube-api-access-abcde", "readOnly": True,
                "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}],
        }],
        "restartPolicy": "Always", "terminationGracePeriodSeconds": 30,
        "dnsPolicy": "ClusterFirst", "serviceAccountName": "default",
        "nodeName": "worker-1", "schedulerName": "default-scheduler",
        "tolerations": [
            {"key": "node.kubernetes.io/not-ready", "operator": "Exists",
             "effect": "NoExecute", "tolerationSeconds": 300},
            {"key": "node.kubernetes.io/unreachable", "operator": "Exists",
             "effect": "NoExecute", "tolerationSeconds": 300}],
        "priority": 0, "enableServiceLinks": True,
        "preemptionPolicy": "PreemptLowerPriority",
    },
    "status": {
        "phase": "Running", "hostIP": "10.0.0.11", "podIP": "10.244.1.17",
        "startTime": "2026-01-01T00:00:01Z", "qosClass": "Burstable",
        "conditions": [
            {"type": t, "status": "True", "lastProbeTime": None,
             "lastTransitionTime": "2026-01-01T00:00:02Z"}
            for t in ("PodReadyToStartContainers", "Initialized", "Ready",
                      "ContainersReady", "PodScheduled")],
        "containerStatuses": [{
            "name": "app", "ready": True, "restartCount": 0, "started": True,
            "image": "registry.k8s.io/pause:3.9",
            "imageID": "registry.k8s.io/pause@sha256:" + "7" * 64,
            "containerID": "containerd://" + "a" * 64,
            "state": {"running": {"startedAt": "2026-01-01T00:00:02Z"}}}],
    },
}

DEFAULT_ROUNDS = 10000


def probe_once(rounds):
    """CPU seconds of this process for `rounds` decodes and encodes of the
    probe pod, each decode reading back what the last encode wrote; and the
    last text written."""
    text = json.dumps(_POD)
    start = time.process_time()
    for _ in range(rounds):
        obj = json.loads(text)
        obj["metadata"]["resourceVersion"] = str(len(text))
        text = json.dumps(obj, sort_keys=True)
    return time.process_time() - start, text


def probe_seconds(rounds=DEFAULT_ROUNDS, tries=2):
    """The fastest of `tries` probes (about 0.3 s each at 10,000 rounds): a
    timer interrupt or a page fault only ever adds time."""
    return min(probe_once(rounds)[0] for _ in range(tries))


def parse_cpu_line(stat_text):
    """(steal, total) jiffies from the aggregate line of /proc/stat, or
    None. total is every state's time (guest time is inside user's)."""
    for line in stat_text.splitlines():
        fields = line.split()
        if not fields or fields[0] != "cpu":
            continue
        values = [int(v) for v in fields[1:9]]
        values += [0] * (8 - len(values))
        return values[7], sum(values)
    return None


def steal_share(before, after):
    """Share of the CPU time that passed between two parse_cpu_line results
    which the hypervisor stole, or None when unknown."""
    if before is None or after is None:
        return None
    total = after[1] - before[1]
    if total <= 0:
        return None
    return (after[0] - before[0]) / total


def read_cpu_line(path="/proc/stat"):
    try:
        with open(path) as f:
            return parse_cpu_line(f.read())
    except OSError:
        return None


class HostSpeed:
    """Probes the host at the start of a run and again at its end."""

    def __init__(self, rounds=DEFAULT_ROUNDS):
        self.rounds = rounds
        self.cpu_before = read_cpu_line()
        self.probe_before = probe_seconds(rounds)

    def line(self):
        probe_after = probe_seconds(self.rounds)
        steal = steal_share(self.cpu_before, read_cpu_line())
        steal_text = "unknown" if steal is None else "%.1f%%" % (steal * 100)
        return ("- host speed: a fixed piece of CPU work (%s JSON decodes and "
                "encodes of a pod, one thread) took %.0f ms at the start and "
                "%.0f ms at the end (lower is faster; a table taken on a host "
                "slower by some factor shows times longer by about that "
                "factor); CPU steal during the run %s" % (
                    "{:,}".format(self.rounds), self.probe_before * 1000,
                    probe_after * 1000, steal_text))
