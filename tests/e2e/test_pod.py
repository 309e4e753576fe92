"""A pod's life through kubectl: apply (created, configured, unchanged),
get -w while it starts, get -o wide, describe, wait, explain, delete."""

import os
import re
import time
import unittest

import harness

HELLO = """apiVersion: v1
kind: Pod
metadata:
  name: hello
  labels:
    app: hello%s
spec:
  containers:
  - name: hello
    image: nginx:1.27
"""
STATUS_ORDER = ["Pending", "ContainerCreating", "Running"]
WIDE_ROW = ("hello   1/1   Running   0   <age>   <ip:ip>   <node:node>   "
            "<none>   <none>")


class PodLifecycleTest(harness.ServerTestCase):
    """Steps run in name order and share the pod."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.manifest = os.path.join(cls.workdir, "hello.yaml")
        cls.watch_rows = None

    def write_manifest(self, extra_labels=""):
        with open(self.manifest, "w") as f:
            f.write(HELLO % extra_labels)

    def pod_cidr(self, node):
        return self.kubectl.run("get", "node", node, "-o",
                                "jsonpath={.spec.podCIDR}").stdout.strip()

    def test_01_apply_while_watching(self):
        p = self.kubectl.run("get", "pods")  # also warms the discovery cache
        self.assertEqual(p.stdout, "")
        self.assertEqual(p.stderr, "No resources found in default namespace.\n")
        watch = self.kubectl.popen("get", "pods", "-w")
        try:
            time.sleep(1.0)  # list + watch established (nothing printed yet)
            self.write_manifest()
            p = self.kubectl.run("apply", "-f", self.manifest)
            applied = time.monotonic()
            self.assertEqual(p.stdout, "pod/hello created\n")

            # Running within a second, on a node that takes user pods, with
            # an IP from that node's podCIDR.
            row = None
            while True:
                out = self.kubectl.run("get", "pod", "hello", "-o",
                                       "wide").stdout
                if re.search(r"^hello +1/1 +Running ", out, re.M):
                    row = out
                    break
                if time.monotonic() - applied > harness.budget(1.0):
                    self.fail("not 1/1 Running within 1s of apply:\n" + out)
            header = ("NAME    READY   STATUS    RESTARTS   AGE   IP   NODE   "
                      "NOMINATED NODE   READINESS GATES")
            got = harness.match_golden(self, row, header + "\n" + WIDE_ROW)
            self.assertNotEqual(got["node"], "manage-1",
                                "manage-1 is tainted NoSchedule")
            cidr = self.pod_cidr(got["node"])
            self.assertTrue(harness.in_cidr(got["ip"], cidr),
                            "%s not in %s's podCIDR %s" %
                            (got["ip"], got["node"], cidr))
            type(self).node, type(self).ip = got["node"], got["ip"]

            harness.wait_until(
                lambda: re.search(r"^hello +1/1 +Running ", watch.output(),
                                  re.M), 5)
        finally:
            watch.stop()
        lines = harness.normalise_lines(watch.output())
        type(self).watch_rows = lines
        harness.match_golden(self, lines[0],
                             harness.golden("get_pods_watch_header.txt"))
        self.assertGreaterEqual(len(lines), 2, lines)
        statuses = []
        for line in lines[1:]:
            m = re.match(r"^hello +(\d)/1 +(\w+) +0 +(\S+)$", line)
            self.assertTrue(m, "unexpected watch row %r in\n%s" %
                            (line, "\n".join(lines)))
            statuses.append((m.group(1), m.group(2)))
        # Rows only move forward: Pending, ContainerCreating, Running.
        order = [STATUS_ORDER.index(s) for _, s in statuses]
        self.assertEqual(order, sorted(order), lines)
        self.assertEqual(statuses[0], ("0", "Pending"), lines)
        self.assertEqual(statuses[-1], ("1", "Running"), lines)

    def test_01b_watch_has_no_unready_running_row(self):
        # A real kubelet reports a container without a readiness probe
        # ready in the same status update that makes it Running, so a real
        # watch goes from 0/1 ContainerCreating straight to 1/1 Running.
        if self.watch_rows is None:
            self.skipTest("no watch output")
        self.assertFalse(
            [r for r in self.watch_rows if re.match(r"^hello +0/1 +Running",
                                                    r)], self.watch_rows)

    def test_02_apply_configured_then_unchanged(self):
        self.write_manifest("\n    tier: web")
        p = self.kubectl.run("apply", "-f", self.manifest)
        self.assertEqual(p.stdout, "pod/hello configured\n")
        p = self.kubectl.run("apply", "-f", self.manifest)
        self.assertEqual(p.stdout, "pod/hello unchanged\n")
        p = self.kubectl.run("get", "pod", "hello", "-o",
                             "jsonpath={.metadata.labels}")
        self.assertEqual(p.stdout, '{"app":"hello","tier":"web"}')

    def test_03_describe(self):
        p = self.kubectl.run("describe", "pod", "hello")
        want = harness.golden("describe_pod_hello.txt")
        if harness.minor(self.kubectl.version) >= 33:
            # 1.33 prints a projected ConfigMap's optional flag this way.
            want = want.replace("    ConfigMapOptional:       <nil>",
                                "    Optional:                false")
        got = harness.match_golden(self, p.stdout, want)
        if getattr(self, "node", None):
            self.assertEqual(got["node"], self.node)
            self.assertEqual(got["pod_ip"], self.ip)
        hostip = self.kubectl.run(
            "get", "node", got["node"], "-o",
            'jsonpath={.status.addresses[?(@.type=="InternalIP")].address}')
        self.assertEqual(got["host_ip"], hostip.stdout.strip())

    def test_04_wait_ready(self):
        p = self.kubectl.run("wait", "--for=condition=Ready", "pod/hello",
                             "--timeout=10s", timeout=20)
        self.assertEqual(p.stdout, "pod/hello condition met\n")

    def test_05_explain(self):
        p = self.kubectl.run("explain", "pod.spec.containers")
        lines = harness.normalise_lines(p.stdout)
        self.assertEqual(lines[0], "KIND:       Pod")
        self.assertEqual(lines[1], "VERSION:    v1")
        self.assertEqual([l for l in lines[2:5] if l],
                         ["FIELD: containers <[]Container>"])
        self.assertIn("DESCRIPTION:", lines)
        self.assertIn("FIELDS:", lines)
        fields = {}
        start = lines.index("FIELDS:") + 1
        current = None
        for line in lines[start:]:
            m = re.match(r"^  (\w+)\t(<.+>)( -required-)?$", line)
            if m:
                current = m.group(1)
                fields[current] = [m.group(2), bool(m.group(3)), ""]
            elif current and line.startswith("    ") and line.strip():
                fields[current][2] += line.strip() + " "
        for name, typ in (("args", "<[]string>"), ("command", "<[]string>"),
                          ("env", "<[]EnvVar>"), ("image", "<string>"),
                          ("imagePullPolicy", "<string>"),
                          ("name", "<string>"),
                          ("ports", "<[]ContainerPort>"),
                          ("resources", "<ResourceRequirements>"),
                          ("volumeMounts", "<[]VolumeMount>"),
                          ("workingDir", "<string>")):
            self.assertIn(name, fields, p.stdout)
            self.assertEqual(fields[name][0], typ, name)
            self.assertTrue(fields[name][2], "%s has no description" % name)
        self.assertTrue(fields["name"][1], "name is -required-")
        self.assertFalse(fields["image"][1])
        self.assertEqual(sorted(fields), list(fields), "fields sorted")

    def test_06_delete(self):
        p = self.kubectl.run("delete", "pod", "hello", timeout=30)
        self.assertEqual(p.stdout, 'pod "hello" deleted\n')
        p = self.kubectl.run("get", "pods")
        self.assertEqual(p.stdout, "")
        self.assertEqual(p.stderr, "No resources found in default namespace.\n")
        p = self.kubectl.run("get", "pod", "hello", check=False)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr,
                         'Error from server (NotFound): pods "hello" not found\n')


if __name__ == "__main__":
    unittest.main()
