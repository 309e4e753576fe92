"""Storage as a cluster on the cloud gives it: the default StorageClass gp2,
a claim without a class gets it and waits for its first pod, the volume is
provisioned in the zone of the node the pod lands on, the pod runs with it,
and the volume goes with the claim; a pod whose claim does not exist is not
scheduled, with kube-scheduler's message."""

import json
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
