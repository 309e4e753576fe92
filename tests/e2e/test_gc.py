"""The garbage collector through kubectl delete: background (the default),
--cascade=foreground (the owner stays, with a deletionTimestamp, until its
blocking dependents are gone), --cascade=orphan (the ReplicaSet stays
without an ownerReference), and dependents of an owner that does not
exist."""

import json
import time
import unittest

import harness

HOLD = "e2e.kubemock.io/hold"


class GarbageCollectorTest(harness.ServerTestCase):

    def get_json(self, *args, check=True):
        p = self.kubectl.run("get", *args, "-o", "json", check=check)
        return json.loads(p.stdout) if p.returncode == 0 else None

    def items(self, kind, selector):
        return self.get_json(kind, "-l", selector)["items"]

    def create(self, name, replicas=2):
        p = self.kubectl.run("create", "deployment", name, "--image=nginx",
                             "--replicas=%d" % replicas)
        self.assertEqual(p.stdout, "deployment.apps/%s created\n" % name)
        p = self.kubectl.run("rollout", "status", "deployment/" + name,
                             timeout=20)
        self.assertEqual(p.stdout.splitlines()[-1],
                         'deployment "%s" successfully rolled out' % name)
        self.assertEqual(len(self.items("rs", "app=" + name)), 1)
        self.assertEqual(len(self.items("pods", "app=" + name)), replicas)

    def assert_gone(self, name):
        self.assertTrue(harness.wait_until(
            lambda: not self.items("rs", "app=" + name) and
            not self.items("pods", "app=" + name), 10),
            self.kubectl.run("get", "rs,pods", "-l", "app=" + name).stdout)

    def test_1_background(self):
        self.create("web")
        p = self.kubectl.run("delete", "deployment", "web")
        self.assertEqual(p.stdout, 'deployment.apps "web" deleted\n')
        self.assert_gone("web")
        p = self.kubectl.run("get", "pods")
        self.assertEqual(p.stdout, "")
        self.assertEqual(p.stderr,
                         "No resources found in default namespace.\n")

    def test_2_foreground(self):
        self.create("fg")
        p = self.kubectl.run("delete", "deployment", "fg",
                             "--cascade=foreground", timeout=30)
        self.assertEqual(p.stdout, 'deployment.apps "fg" deleted\n')
        # kubectl waited for the Deployment, which waited for its
        # dependents: nothing is left when it returns.
        self.assertEqual(self.items("rs", "app=fg"), [])
        self.assertEqual(self.items("pods", "app=fg"), [])
        p = self.kubectl.run("get", "pods")
        self.assertEqual(p.stderr,
                         "No resources found in default namespace.\n")

    def test_3_foreground_waits_for_dependents(self):
        # A pod held by a finalizer keeps its ReplicaSet, which keeps the
        # Deployment, each with a deletionTimestamp.
        self.create("held")
        pod = self.items("pods", "app=held")[0]["metadata"]["name"]
        self.kubectl.run("patch", "pod", pod, "--type=merge", "-p",
                         json.dumps({"metadata": {"finalizers": [HOLD]}}))
        p = self.kubectl.run("delete", "deployment", "held",
                             "--cascade=foreground", "--wait=false")
        self.assertEqual(p.stdout, 'deployment.apps "held" deleted\n')

        def deleting_pod_only():
            pods = self.items("pods", "app=held")
            return (len(pods) == 1 and pods[0]["metadata"]["name"] == pod and
                    "deletionTimestamp" in pods[0]["metadata"])

        self.assertTrue(harness.wait_until(deleting_pod_only, 10),
                        self.kubectl.run("get", "pods").stdout)
        time.sleep(0.3)
        dep = self.get_json("deployment", "held")
        self.assertIn("deletionTimestamp", dep["metadata"])
        self.assertEqual(dep["metadata"]["finalizers"], ["foregroundDeletion"])
        rs = self.items("rs", "app=held")
        self.assertEqual(len(rs), 1)
        self.assertIn("deletionTimestamp", rs[0]["metadata"])
        self.assertEqual(rs[0]["metadata"]["finalizers"],
                         ["foregroundDeletion"])
        # Its containers stopped (nginx exits 0 on the stop signal), so since
        # 1.27 the kubelet gives it a terminal phase and the row says
        # Completed rather than Terminating.
        p = self.kubectl.run("get", "pod", pod)
        harness.match_golden(
            self, p.stdout,
            "NAME  READY   STATUS      RESTARTS   AGE\n"
            "%s   0/1   Completed   0   <age>" % pod)

        self.kubectl.run("patch", "pod", pod, "--type=json", "-p",
                         '[{"op":"remove","path":"/metadata/finalizers"}]')
        self.assertTrue(harness.wait_until(
            lambda: self.get_json("deployment", "held", check=False) is None,
            10))
        self.assert_gone("held")

    def test_4_orphan(self):
        self.create("orph")
        rs_name = self.items("rs", "app=orph")[0]["metadata"]["name"]
        p = self.kubectl.run("delete", "deployment", "orph",
                             "--cascade=orphan")
        self.assertEqual(p.stdout, 'deployment.apps "orph" deleted\n')
        p = self.kubectl.run("get", "deployment", "orph", check=False)
        self.assertEqual(p.stderr, 'Error from server (NotFound): '
                         'deployments.apps "orph" not found\n')
        time.sleep(0.5)  # time enough for a collector to do harm
        rs = self.items("rs", "app=orph")
        self.assertEqual([r["metadata"]["name"] for r in rs], [rs_name])
        self.assertNotIn("ownerReferences", rs[0]["metadata"])
        self.assertNotIn("finalizers", rs[0]["metadata"])
        pods = self.items("pods", "app=orph")
        self.assertEqual(len(pods), 2)
        for pod in pods:
            # The pods still belong to the ReplicaSet, which still exists.
            refs = pod["metadata"]["ownerReferences"]
            self.assertEqual([(r["kind"], r["name"]) for r in refs],
                             [("ReplicaSet", rs_name)])
        p = self.kubectl.run("get", "rs", rs_name)
        harness.match_golden(self, p.stdout,
                             "NAME  DESIRED   CURRENT   READY   AGE\n"
                             "%s  2   2   2   <age>" % rs_name)
        p = self.kubectl.run("delete", "rs", rs_name)
        self.assertEqual(p.stdout,
                         'replicaset.apps "%s" deleted\n' % rs_name)
        self.assert_gone("orph")

    def test_5_dangling_owner(self):
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": "orphaned", "ownerReferences": [{
                   "apiVersion": "apps/v1", "kind": "ReplicaSet",
                   "name": "ghost",
                   "uid": "00000000-0000-0000-0000-000000000001"}]},
               "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
        p = self.kubectl.run("create", "-f", "-", input=json.dumps(pod))
        self.assertEqual(p.stdout, "pod/orphaned created\n")
        self.assertTrue(harness.wait_until(
            lambda: self.get_json("pod", "orphaned", check=False) is None,
            10), "a dependent of a missing owner is collected")

if __name__ == "__main__":
    unittest.main()
