"""Disruption budgets and node drains as on a real cluster: a budget's
status counts the healthy pods of its selector, `kubectl drain` evicts
through pods/eviction, waits while the budget forbids it (kube-apiserver's
429 and kubectl's retry message) and goes through once it allows it; the
DaemonSet-managed kube-proxy pods are left with kubectl's warning; a
malformed budget is refused with kube-apiserver's message."""

import json
import unittest

import harness

BAD_BUDGET = """
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: bad
spec:
  minAvailable: -1
  selector:
    matchLabels: {app: web}
"""


class DisruptionTest(harness.ServerTestCase):

    def get(self, *args):
        return json.loads(self.kubectl.run("get", *args, "-o", "json").stdout)

    def budget_allows(self, name, n):
        def check():
            st = self.get("pdb", name).get("status", {})
            return st.get("disruptionsAllowed") == n and \
                st.get("observedGeneration") == \
                self.get("pdb", name)["metadata"]["generation"]
        return harness.wait_until(check, 20)

    def running_pods(self, app):
        pods = self.get("pods", "-l", "app=" + app)["items"]
        return [p for p in pods if p["status"].get("phase") == "Running"
                and "deletionTimestamp" not in p["metadata"]]

    def test_kube_proxy_and_the_cloud_controller_are_daemonsets(self):
        p = self.kubectl.run("get", "ds", "-n", "kube-system")
        header, ccm, proxy = p.stdout.splitlines()
        self.assertEqual(header.split()[:6], [
            "NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE"])
        self.assertEqual(ccm.split()[:7], [
            "aws-cloud-controller-manager", "1", "1", "1", "1", "1",
            "node-role.kubernetes.io/control-plane="])
        self.assertEqual(proxy.split()[:7], [
            "kube-proxy", "5", "5", "5", "5", "5", "kubernetes.io/os=linux"])
        for app, count in (("kube-proxy", 5),
                           ("aws-cloud-controller-manager", 1)):
            pods = self.get("pods", "-n", "kube-system",
                            "-l", "k8s-app=" + app)["items"]
            self.assertEqual(len(pods), count)
            for pod in pods:
                owner = pod["metadata"]["ownerReferences"][0]
                self.assertEqual((owner["kind"], owner["name"]),
                                 ("DaemonSet", app))

    def test_drain_waits_for_the_budget(self):
        self.kubectl.run("create", "deployment", "web", "--image=nginx",
                         "--replicas=3")
        self.kubectl.run("create", "pdb", "web", "--selector=app=web",
                         "--min-available=3")
        self.assertTrue(harness.wait_until(
            lambda: len(self.running_pods("web")) == 3, 20))
        self.assertTrue(self.budget_allows("web", 0))
        p = self.kubectl.run("get", "pdb", "web")
        self.assertEqual(p.stdout.split()[:10], [
            "NAME", "MIN", "AVAILABLE", "MAX", "UNAVAILABLE", "ALLOWED",
            "DISRUPTIONS", "AGE", "web", "3"])
        self.assertEqual(p.stdout.splitlines()[1].split()[2:4], ["N/A", "0"])

        victim = self.running_pods("web")[0]
        node = victim["spec"]["nodeName"]
        name = victim["metadata"]["name"]
        p = self.kubectl.run("drain", node, "--ignore-daemonsets",
                             "--timeout=7s", check=False)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("node/%s cordoned" % node, p.stdout)
        self.assertIn("evicting pod default/%s" % name, p.stdout)
        self.assertIn("Warning: ignoring DaemonSet-managed Pods: "
                      "kube-system/kube-proxy-", p.stderr)
        self.assertIn('error when evicting pods/"%s" -n "default" (will retry '
                      "after 5s): Cannot evict pod as it would violate the "
                      "pod's disruption budget." % name, p.stderr)
        self.assertIn("global timeout reached: 7s", p.stderr)
        self.assertEqual(len(self.running_pods("web")), 3)

        self.kubectl.run("patch", "pdb", "web", "--type=merge",
                         "-p", '{"spec":{"minAvailable":2}}')
        self.assertTrue(self.budget_allows("web", 1))
        p = self.kubectl.run("drain", node, "--ignore-daemonsets",
                             "--timeout=30s")
        self.assertIn("pod/%s evicted" % name, p.stdout)
        self.assertIn("node/%s drained" % node, p.stdout)
        # The ReplicaSet replaces it on another node.
        self.assertTrue(harness.wait_until(
            lambda: len(self.running_pods("web")) == 3 and all(
                q["spec"]["nodeName"] != node
                for q in self.running_pods("web")), 20))
        self.kubectl.run("uncordon", node)

    def test_drain_of_the_control_plane_node_needs_no_force(self):
        # manage-2 runs mirror pods (left alone by drain), kube-proxy and the
        # cloud-controller-manager, both DaemonSet pods, as on a real cluster.
        p = self.kubectl.run("drain", "manage-2", "--ignore-daemonsets",
                             "--timeout=60s")
        self.assertIn("node/manage-2 drained", p.stdout)
        self.assertRegex(p.stderr, r"Warning: ignoring DaemonSet-managed "
                         r"Pods: kube-system/aws-cloud-controller-manager-")
        self.kubectl.run("uncordon", "manage-2")

    def test_bad_budget_is_refused(self):
        p = self.kubectl.run("apply", "-f", "-", input=BAD_BUDGET, check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn('The PodDisruptionBudget "bad" is invalid: '
                      "spec.minAvailable: Invalid value: -1: must be greater "
                      "than or equal to 0", p.stderr)


if __name__ == "__main__":
    unittest.main()
