"""Storage as a cluster on the cloud gives it: the default StorageClass gp2,
a claim without a class gets it and waits for its first pod, the volume is
provisioned in the zone of the node the pod lands on, the pod runs with it,
and the volume goes with the claim; a claim in use that is deleted stays
Terminating until its pod goes (kubernetes.io/pvc-protection), its volume
keeps kubernetes.io/pv-protection until it is no longer Bound; a pod whose
claim does not exist is not scheduled, with kube-scheduler's message."""

import json
import time
import unittest

import harness

CLAIM_AND_POD = """
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 4Gi
---
apiVersion: v1
kind: Pod
metadata:
  name: db
spec:
  containers:
  - name: db
    image: nginx
    volumeMounts:
    - {name: data, mountPath: /var/lib/data}
  volumes:
  - name: data
    persistentVolumeClaim:
      claimName: %s
"""


class StorageTest(harness.ServerTestCase):

    def get(self, *args):
        return json.loads(self.kubectl.run("get", *args, "-o", "json").stdout)

    def test_default_class_is_the_clouds(self):
        p = self.kubectl.run("get", "storageclass")
        header, row = p.stdout.splitlines()
        self.assertEqual(header.split(), [
            "NAME", "PROVISIONER", "RECLAIMPOLICY", "VOLUMEBINDINGMODE",
            "ALLOWVOLUMEEXPANSION", "AGE"])
        self.assertEqual(row.split()[:6], [
            "gp2", "(default)", "kubernetes.io/aws-ebs", "Delete",
            "WaitForFirstConsumer", "false"])

    def test_claim_binds_when_its_pod_is_scheduled(self):
        claim = CLAIM_AND_POD.split("---")[0]
        self.kubectl.run("apply", "-f", "-", input=claim)
        pvc = self.get("pvc", "data")
        self.assertEqual(pvc["spec"]["storageClassName"], "gp2")
        self.assertEqual(pvc["status"]["phase"], "Pending")
        self.assertTrue(harness.wait_until(
            lambda: "waiting for first consumer to be created before binding"
            in self.kubectl.run("describe", "pvc", "data").stdout, 10))

        self.kubectl.run("apply", "-f", "-", input=CLAIM_AND_POD % "data")
        self.assertTrue(harness.wait_until(
            lambda: self.get("pod", "db")["status"].get("phase") == "Running",
            30))
        pvc = self.get("pvc", "data")
        self.assertEqual(pvc["status"]["phase"], "Bound")
        volume = pvc["spec"]["volumeName"]
        self.assertEqual(volume, "pvc-" + pvc["metadata"]["uid"])
        row = self.kubectl.run("get", "pvc", "data").stdout.splitlines()[1]
        self.assertEqual(row.split()[:6],
                         ["data", "Bound", volume, "4Gi", "RWO", "gp2"])
        row = self.kubectl.run("get", "pv", volume).stdout.splitlines()[1]
        self.assertEqual(row.split()[:7], [volume, "4Gi", "RWO", "Delete",
                                           "Bound", "default/data", "gp2"])

        # The volume lives in the zone of the pod's node.
        pv = self.get("pv", volume)
        self.assertEqual(pv["spec"]["csi"]["driver"], "ebs.csi.aws.com")
        zone = (pv["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"][0]
                ["matchExpressions"][0]["values"][0])
        node = self.get("pod", "db")["spec"]["nodeName"]
        self.assertEqual(
            self.get("node", node)["metadata"]["labels"]
            ["topology.kubernetes.io/zone"], zone)
        events = self.kubectl.run("describe", "pvc", "data").stdout
        self.assertIn("ProvisioningSucceeded", events)
        self.assertIn("Successfully provisioned volume " + volume, events)

        # The claim goes after its pod; the volume goes with it.
        self.kubectl.run("delete", "pod", "db")
        self.kubectl.run("delete", "pvc", "data")
        self.assertTrue(harness.wait_until(
            lambda: self.kubectl.run("get", "pv", volume,
                                     check=False).returncode == 1, 10))

    def test_claim_in_use_waits_for_its_pod(self):
        manifest = (CLAIM_AND_POD % "held").replace(
            "name: data\nspec", "name: held\nspec").replace(
            "name: db\nspec", "name: user\nspec")
        self.kubectl.run("apply", "-f", "-", input=manifest)
        self.assertTrue(harness.wait_until(
            lambda: self.get("pod", "user")["status"].get("phase")
            == "Running", 30))
        pvc = self.get("pvc", "held")
        self.assertEqual(pvc["metadata"]["finalizers"],
                         ["kubernetes.io/pvc-protection"])
        volume = pvc["spec"]["volumeName"]
        self.assertEqual(self.get("pv", volume)["metadata"]["finalizers"],
                         ["kubernetes.io/pv-protection"])

        p = self.kubectl.run("delete", "pvc", "held", "--wait=false")
        self.assertEqual(p.stdout.strip(),
                         'persistentvolumeclaim "held" deleted')
        rows = self.kubectl.run("get", "pvc", "held").stdout.splitlines()
        self.assertEqual(rows[1].split()[:3], ["held", "Terminating", volume])
        described = self.kubectl.run("describe", "pvc", "held").stdout
        self.assertRegex(described, r"(?m)^Status:\s+Terminating \(lasts ")
        self.assertRegex(described,
                         r"(?m)^Finalizers:\s+\[kubernetes.io/pvc-protection\]$")
        self.assertRegex(described, r"(?m)^Used By:\s+user$")
        # It stays while the pod runs: deleting it is not using it up.
        self.assertFalse(harness.wait_until(
            lambda: self.kubectl.run("get", "pvc", "held",
                                     check=False).returncode != 0, 1))
        row = self.kubectl.run("get", "pv", volume).stdout.splitlines()[1]
        self.assertEqual(row.split()[4], "Bound")

        # The pod goes: the claim goes, and its volume (reclaim Delete)
        # after it.
        self.kubectl.run("delete", "pod", "user")
        self.assertTrue(harness.wait_until(
            lambda: self.kubectl.run("get", "pvc", "held",
                                     check=False).returncode == 1, 10))
        self.assertTrue(harness.wait_until(
            lambda: self.kubectl.run("get", "pv", volume,
                                     check=False).returncode == 1, 10))

    def test_unused_claim_goes_at_once(self):
        claim = CLAIM_AND_POD.split("---")[0].replace("name: data",
                                                      "name: spare")
        self.kubectl.run("apply", "-f", "-", input=claim)
        started = time.monotonic()
        p = self.kubectl.run("delete", "pvc", "spare")
        self.assertEqual(p.stdout.strip(),
                         'persistentvolumeclaim "spare" deleted')
        self.assertLess(time.monotonic() - started, 5)
        self.assertEqual(
            self.kubectl.run("get", "pvc", "spare", check=False).returncode, 1)

    def test_namespace_with_claim_in_use_goes(self):
        self.kubectl.run("create", "namespace", "stateful")
        self.kubectl.run("apply", "-n", "stateful", "-f", "-",
                         input=CLAIM_AND_POD % "data")
        self.assertTrue(harness.wait_until(
            lambda: self.get("pod", "db", "-n", "stateful")["status"].get(
                "phase") == "Running", 30))
        volume = self.get("pvc", "data", "-n", "stateful")["spec"][
            "volumeName"]
        # The namespace controller deletes the pod and the claim; the claim
        # goes once the pod has, and its volume after it.
        p = self.kubectl.run("delete", "namespace", "stateful", timeout=90)
        self.assertEqual(p.stdout, 'namespace "stateful" deleted\n')
        self.assertTrue(harness.wait_until(
            lambda: self.kubectl.run("get", "pv", volume,
                                     check=False).returncode == 1, 10))

    def test_pod_without_its_claim_is_not_scheduled(self):
        pod = CLAIM_AND_POD.split("---")[1] % "missing"
        self.kubectl.run("apply", "-f", "-",
                         input=pod.replace("name: db", "name: orphan"))
        expected = ('0/5 nodes are available: persistentvolumeclaim '
                    '"missing" not found. preemption: 0/5 nodes are '
                    'available: 5 Preemption is not helpful for scheduling.')
        self.assertTrue(harness.wait_until(
            lambda: expected in self.kubectl.run(
                "describe", "pod", "orphan").stdout, 10))
        self.kubectl.run("delete", "pod", "orphan", "--wait=false")


if __name__ == "__main__":
    unittest.main()
