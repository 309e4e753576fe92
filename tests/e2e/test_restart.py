"""Stop and restart on the same data directory: objects survive with their
uid and resourceVersion, and a watch from a resourceVersion taken before
the restart resumes without losing events."""

import json
import os
import shutil
import tempfile
import unittest

import harness

POD = """apiVersion: v1
kind: Pod
metadata:
  name: %s
spec:
  containers:
  - name: c
    image: nginx:1.27
"""
IDS = ("jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name} "
       "{.metadata.uid} {.metadata.resourceVersion}{\"\\n\"}{end}")


class RestartTest(unittest.TestCase):

    def setUp(self):
        self.workdir = tempfile.mkdtemp(prefix="kubemock-e2e-restart-")
        self.data_dir = os.path.join(self.workdir, "data")
        self.server = None

    def tearDown(self):
        if self.server is not None:
            self.server.stop()
        if not os.environ.get("KUBEMOCK_E2E_KEEP"):
            shutil.rmtree(self.workdir, ignore_errors=True)

    def start(self):
        self.server = harness.Server(self.workdir,
                                     data_dir=self.data_dir).start()
        return harness.Kubectl(self.workdir, self.server.kubeconfig,
                               harness.kubectl_version())

    def stop(self):
        rc = self.server.stop()
        self.assertEqual(rc, 0, "kubemock exit code after SIGTERM\n" +
                         self.server.stderr_tail())
        self.server = None

    def apply(self, kubectl, name):
        path = os.path.join(self.workdir, name + ".yaml")
        with open(path, "w") as f:
            f.write(POD % name)
        p = kubectl.run("apply", "-f", path)
        self.assertEqual(p.stdout, "pod/%s created\n" % name)

    def ids(self, kubectl, *what):
        out = kubectl.run("get", *what, "-o", IDS).stdout
        return dict(line.split(" ", 1) for line in out.strip().split("\n"))

    def test_restart_keeps_objects_and_resumes_watch(self):
        kubectl = self.start()
        self.assertTrue(os.path.isdir(os.path.join(self.data_dir, "pki")))
        with open(os.path.join(self.data_dir, "pki", "ca.crt"), "rb") as f:
            ca_before = f.read()
        self.apply(kubectl, "hello")
        kubectl.run("wait", "--for=condition=Ready", "pod/hello",
                    "--timeout=10s", timeout=20)
        rv0 = json.loads(kubectl.run(
            "get", "--raw", "/api/v1/namespaces/default/pods").stdout)[
                "metadata"]["resourceVersion"]
        self.assertRegex(rv0, r"^\d+$")
        # Changes after rv0 that the resumed watch must deliver.
        p = kubectl.run("label", "pod", "hello", "step=two")
        self.assertEqual(p.stdout, "pod/hello labeled\n")
        self.apply(kubectl, "second")
        kubectl.run("wait", "--for=condition=Ready", "pod/second",
                    "--timeout=10s", timeout=20)
        pods_before = self.ids(kubectl, "pods", "-A")
        nodes_before = {k: v.split(" ")[0] for k, v in
                        self.ids(kubectl, "nodes").items()}
        ns_before = {k: v.split(" ")[0] for k, v in
                     self.ids(kubectl, "namespaces").items()}
        self.stop()

        kubectl = self.start()
        with open(os.path.join(self.data_dir, "pki", "ca.crt"), "rb") as f:
            self.assertEqual(f.read(), ca_before, "the CA is reused")
        # Every pod (yours and the system's) with the same uid and
        # resourceVersion; nodes and namespaces with the same uid.
        self.assertEqual(self.ids(kubectl, "pods", "-A"), pods_before)
        self.assertEqual({k: v.split(" ")[0] for k, v in
                          self.ids(kubectl, "nodes").items()}, nodes_before)
        self.assertEqual({k: v.split(" ")[0] for k, v in
                          self.ids(kubectl, "namespaces").items()}, ns_before)
        p = kubectl.run("get", "pod", "hello", "-o",
                        "jsonpath={.metadata.labels.step} {.status.phase}")
        self.assertEqual(p.stdout, "two Running")

        p = kubectl.run(
            "get", "--raw", "/api/v1/namespaces/default/pods?watch=1&"
            "resourceVersion=%s&timeoutSeconds=2" % rv0, timeout=20)
        events = []
        decoder = json.JSONDecoder()
        text, pos = p.stdout, 0
        while True:
            while pos < len(text) and text[pos].isspace():
                pos += 1
            if pos >= len(text):
                break
            ev, pos = decoder.raw_decode(text, pos)
            events.append(ev)
        seen = [(e["type"], e["object"]["metadata"]["name"],
                 int(e["object"]["metadata"]["resourceVersion"]))
                for e in events if e["type"] != "BOOKMARK"]
        self.assertTrue(seen, "no events after rv %s" % rv0)
        rvs = [rv for _, _, rv in seen]
        self.assertEqual(rvs, sorted(rvs), "events in revision order")
        self.assertGreater(rvs[0], int(rv0))
        self.assertEqual(len(set(rvs)), len(rvs), "no duplicates")
        hello_rv = int(pods_before["default/hello"].split(" ")[1])
        second_rv = int(pods_before["default/second"].split(" ")[1])
        self.assertIn(("MODIFIED", "hello", hello_rv), seen)
        self.assertEqual([t for t, n, _ in seen if n == "second"][0], "ADDED")
        self.assertIn(second_rv, [rv for _, n, rv in seen if n == "second"])
        labels = [e["object"]["metadata"].get("labels", {}) for e in events
                  if e["object"]["metadata"]["name"] == "hello"]
        self.assertEqual(labels[0].get("step"), "two")
        self.stop()


if __name__ == "__main__":
    unittest.main()
