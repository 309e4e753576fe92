"""The workload controllers as kubectl sees them on a real cluster.

DaemonSets: kube-proxy's pods are the DaemonSet controller's (a
ControllerRevision, the revision hash and the node's affinity on every
pod); a user's DaemonSet runs one pod on every node it fits (not on the
tainted control-plane node), `kubectl rollout status/history/undo/restart`
work on it through its ControllerRevisions, and a bad update strategy is
refused with kube-apiserver's message."""

import json
import unittest

import harness

AGENT = """
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels: {app: agent}
  template:
    metadata:
      labels: {app: agent}
    spec:
      containers:
      - name: agent
        image: nginx:1.25
"""

BAD_AGENT = AGENT.replace("  selector:", """  updateStrategy:
    rollingUpdate: {maxUnavailable: 0}
  selector:""")


class DaemonSetTest(harness.ServerTestCase):

    def get(self, *args):
        return json.loads(self.kubectl.run("get", *args, "-o", "json").stdout)

    def agent_pods(self):
        return [p for p in self.get("pods", "-l", "app=agent")["items"]
                if "deletionTimestamp" not in p["metadata"]]

    def test_kube_proxy_pods_belong_to_the_controller(self):
        revisions = self.get("controllerrevisions", "-n", "kube-system",
                             "-l", "k8s-app=kube-proxy")["items"]
        self.assertEqual(len(revisions), 1)
        rev = revisions[0]
        self.assertEqual(rev["revision"], 1)
        pod_hash = rev["metadata"]["labels"]["controller-revision-hash"]
        self.assertEqual(rev["metadata"]["name"], "kube-proxy-" + pod_hash)
        pods = self.get("pods", "-n", "kube-system",
                        "-l", "k8s-app=kube-proxy")["items"]
        self.assertEqual(len(pods), 5)
        for pod in pods:
            labels = pod["metadata"]["labels"]
            self.assertEqual(labels["controller-revision-hash"], pod_hash)
            self.assertEqual(labels["pod-template-generation"], "1")
            terms = pod["spec"]["affinity"]["nodeAffinity"][
                "requiredDuringSchedulingIgnoredDuringExecution"][
                "nodeSelectorTerms"]
            self.assertEqual(terms[0]["matchFields"][0]["values"],
                             [pod["spec"]["nodeName"]])

    def test_rollout_of_a_daemonset(self):
        self.kubectl.run("apply", "-f", "-", input=AGENT)
        p = self.kubectl.run("rollout", "status", "ds/agent", "--timeout=60s")
        self.assertIn('daemon set "agent" successfully rolled out', p.stdout)
        pods = self.agent_pods()
        # Every node but manage-1, whose control-plane taint it does not
        # tolerate.
        self.assertEqual(sorted(p["spec"]["nodeName"] for p in pods),
                         ["manage-2", "worker-1", "worker-2", "worker-3"])
        row = self.kubectl.run("get", "ds", "agent").stdout.splitlines()[1]
        self.assertEqual(row.split()[:7],
                         ["agent", "4", "4", "4", "4", "4", "<none>"])

        self.kubectl.run("set", "image", "ds/agent", "agent=nginx:1.27")
        p = self.kubectl.run("rollout", "status", "ds/agent", "--timeout=90s")
        self.assertIn('daemon set "agent" successfully rolled out', p.stdout)
        images = {p["spec"]["containers"][0]["image"]
                  for p in self.agent_pods()}
        self.assertEqual(images, {"nginx:1.27"})
        p = self.kubectl.run("rollout", "history", "ds/agent")
        self.assertEqual(
            [line.split()[0] for line in p.stdout.strip().splitlines()[1:]],
            ["REVISION", "1", "2"])
        p = self.kubectl.run("rollout", "history", "ds/agent", "--revision=1")
        self.assertIn("nginx:1.25", p.stdout)

        p = self.kubectl.run("rollout", "undo", "ds/agent")
        self.assertEqual(p.stdout.strip(), "daemonset.apps/agent rolled back")
        self.kubectl.run("rollout", "status", "ds/agent", "--timeout=90s")
        self.assertEqual({p["spec"]["containers"][0]["image"]
                          for p in self.agent_pods()}, {"nginx:1.25"})
        p = self.kubectl.run("rollout", "history", "ds/agent")
        self.assertEqual(
            [line.split()[0] for line in p.stdout.strip().splitlines()[1:]],
            ["REVISION", "2", "3"])

        before = {p["metadata"]["name"] for p in self.agent_pods()}
        p = self.kubectl.run("rollout", "restart", "ds/agent")
        self.assertEqual(p.stdout.strip(), "daemonset.apps/agent restarted")
        self.kubectl.run("rollout", "status", "ds/agent", "--timeout=90s")
        after = {p["metadata"]["name"] for p in self.agent_pods()}
        self.assertEqual(len(after), 4)
        self.assertFalse(before & after)
        self.kubectl.run("delete", "ds", "agent")

    def test_bad_update_strategy_is_refused(self):
        p = self.kubectl.run("apply", "-f", "-", input=BAD_AGENT, check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn(
            'The DaemonSet "agent" is invalid: '
            "spec.updateStrategy.rollingUpdate.maxUnavailable: Required "
            "value: cannot be 0 when maxSurge is 0", p.stderr)


if __name__ == "__main__":
    unittest.main()
