"""Namespace lifecycle through kubectl: create, delete with everything in
it, Terminating while a pod's finalizer holds it (creating there gets
403), the namespaces a real server refuses to delete, and `kubectl delete
-f` of a manifest that lists its Namespace first (the namespace controller
waits kube-controller-manager's 5 s before it empties a namespace, so the
objects after it are still there to delete)."""

import json
import os
import unittest

import harness

HOLD = "e2e.kubemock.io/hold"
TERMINATING = ("unable to create new content in namespace hold because it "
               "is being terminated")


class NamespaceLifecycleTest(harness.ServerTestCase):

    def get_json(self, *args, check=True):
        p = self.kubectl.run("get", *args, "-o", "json", check=check)
        return json.loads(p.stdout) if p.returncode == 0 else None

    def test_1_delete_namespace_with_deployment(self):
        p = self.kubectl.run("create", "namespace", "lab")
        self.assertEqual(p.stdout, "namespace/lab created\n")
        p = self.kubectl.run("create", "deployment", "web", "-n", "lab",
                             "--image=nginx", "--replicas=2")
        self.assertEqual(p.stdout, "deployment.apps/web created\n")
        p = self.kubectl.run("rollout", "status", "-n", "lab",
                             "deployment/web", timeout=20)
        self.assertEqual(p.stdout.splitlines()[-1],
                         'deployment "web" successfully rolled out')
        p = self.kubectl.run("create", "service", "clusterip", "db", "-n",
                             "lab", "--tcp=5432")
        self.assertEqual(p.stdout, "service/db created\n")
        self.assertEqual(len(self.get_json("pods", "-n", "lab")["items"]), 2)

        p = self.kubectl.run("delete", "namespace", "lab", timeout=60)
        self.assertEqual(p.stdout, 'namespace "lab" deleted\n')
        # kubectl returned once the namespace, and so all in it, was gone.
        p = self.kubectl.run("get", "namespace", "lab", check=False)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr, 'Error from server (NotFound): '
                         'namespaces "lab" not found\n')
        for kind in ("pods", "rs", "deployments", "services"):
            p = self.kubectl.run("get", kind, "-n", "lab")
            self.assertEqual(p.stdout, "", kind)
            self.assertEqual(p.stderr, "No resources found in lab namespace.\n",
                             kind)

    def test_2_terminating_namespace_refuses_content(self):
        self.kubectl.run("create", "namespace", "hold")
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": "held", "namespace": "hold",
                            "finalizers": [HOLD]},
               "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
        self.kubectl.run("create", "-f", "-", input=json.dumps(pod))
        self.kubectl.run("create", "service", "clusterip", "db", "-n", "hold",
                         "--tcp=5432")
        p = self.kubectl.run("delete", "namespace", "hold", "--wait=false")
        self.assertEqual(p.stdout, 'namespace "hold" deleted\n')

        def terminating():
            ns = self.get_json("namespace", "hold", check=False)
            return ns and ns["status"].get("phase") == "Terminating"

        self.assertTrue(harness.wait_until(terminating, 5))
        p = self.kubectl.run("get", "namespace", "hold")
        harness.match_golden(self, p.stdout,
                             "NAME   STATUS        AGE\n"
                             "hold   Terminating   <age>")
        # Everything without a finalizer is gone; the held pod stays,
        # Terminating.
        # The namespace controller starts 5 s after the delete (its
        # deletion grace period), as kube-controller-manager's.
        self.assertTrue(harness.wait_until(
            lambda: not self.get_json("services", "-n", "hold")["items"], 20),
            self.kubectl.run("get", "services", "-n", "hold").stdout)
        held = self.get_json("pod", "held", "-n", "hold")
        self.assertIn("deletionTimestamp", held["metadata"])
        # The namespace controller's conditions say what holds it. (A real
        # cluster goes on with "No resource quota." and "No LimitRange
        # resource."; kubemock serves neither kind, so kubectl prints
        # nothing for them.)
        def described():
            out = self.kubectl.run("describe", "namespace", "hold").stdout
            return out if "NamespaceFinalizersRemaining" in out else None

        out = harness.wait_until(described, 10)
        self.assertTrue(out)
        lines = harness.normalise_lines(out)
        harness.match_golden(
            self, "\n".join(lines[:12]),
            harness.golden("describe_namespace_terminating.txt"))

        p = self.kubectl.run("create", "deployment", "new", "-n", "hold",
                             "--image=nginx", check=False)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr, 'error: failed to create deployment: '
                         'deployments.apps "new" is forbidden: %s\n' %
                         TERMINATING)
        pod = os.path.join(self.workdir, "pod.yaml")
        with open(pod, "w") as f:
            f.write("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n"
                    "  namespace: hold\nspec:\n  containers:\n  - name: c\n"
                    "    image: nginx\n")
        p = self.kubectl.run("apply", "-f", pod, check=False)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr, 'Error from server (Forbidden): error when '
                         'creating "%s": pods "p" is forbidden: %s\n' %
                         (pod, TERMINATING))

        creds = harness.Credentials(self.server.kubeconfig, self.workdir)
        status, _, body = harness.https_request(
            self.server, "POST", "/api/v1/namespaces/hold/services",
            json.dumps({"apiVersion": "v1", "kind": "Service",
                        "metadata": {"name": "raw"},
                        "spec": {"ports": [{"port": 80}]}}).encode(),
            {"Content-Type": "application/json"}, cafile=creds.ca,
            cert=creds.cert, key=creds.key)
        self.assertEqual(status, 403, body)
        st = harness.status_body(self, body)
        self.assertEqual(st["reason"], "Forbidden")
        self.assertEqual(st["message"],
                         'services "raw" is forbidden: ' + TERMINATING)
        self.assertEqual(st["details"], {
            "name": "raw", "kind": "services",
            "causes": [{"reason": "NamespaceTerminating",
                        "message": "namespace hold is being terminated",
                        "field": "metadata.namespace"}]})
        self.assertEqual(self.get_json("services", "-n", "hold")["items"], [])
        self.assertEqual(self.get_json("deployments", "-n", "hold")["items"],
                         [])

        self.kubectl.run("patch", "pod", "held", "-n", "hold",
                         "--type=json", "-p",
                         '[{"op":"remove","path":"/metadata/finalizers"}]')
        self.assertTrue(harness.wait_until(
            lambda: self.get_json("namespace", "hold", check=False) is None,
            10), "the namespace goes once its last object is gone")

    def test_3_immortal_namespaces(self):
        for name in ("default", "kube-system", "kube-public"):
            p = self.kubectl.run("delete", "namespace", name, check=False)
            self.assertEqual(p.returncode, 1, name)
            self.assertEqual(p.stdout, "")
            self.assertEqual(
                p.stderr, 'Error from server (Forbidden): namespaces "%s" is '
                'forbidden: this namespace may not be deleted\n' % name)
            ns = self.get_json("namespace", name)
            self.assertNotIn("deletionTimestamp", ns["metadata"])
            self.assertEqual(ns["status"]["phase"], "Active")


MANIFEST = """apiVersion: v1
kind: Namespace
metadata:
  name: demo
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: demo
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: nginx
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: demo
spec:
  selector:
    app: web
  ports:
  - port: 80
"""


class DeleteManifestWithNamespaceTest(harness.ServerTestCase):
    """kubectl deletes a manifest's objects one by one in its order, the
    Namespace first: on a real cluster the namespace controller waits 5 s
    before it empties the namespace, so the Deployment and the Service are
    still there for kubectl to delete and the command succeeds. Without the
    wait kubectl got NotFound on them in most runs, so this runs thrice."""

    VERSION = "1.33"
    ROUNDS = 3

    def test_delete_f_namespace_then_its_objects(self):
        kubectl = harness.Kubectl(self.workdir, self.server.kubeconfig,
                                  self.VERSION)
        path = os.path.join(self.workdir, "demo.yaml")
        with open(path, "w") as f:
            f.write(MANIFEST)
        for i in range(self.ROUNDS):
            p = kubectl.run("apply", "-f", path)
            self.assertEqual(p.stdout, "namespace/demo created\n"
                             "deployment.apps/web created\n"
                             "service/web created\n", "round %d" % i)
            p = kubectl.run("rollout", "status", "-n", "demo",
                            "deployment/web", timeout=30)
            p = kubectl.run("delete", "-f", path, timeout=90, check=False)
            self.assertEqual((p.returncode, p.stderr), (0, ""),
                             "round %d: %s" % (i, p.stdout))
            self.assertEqual(p.stdout, 'namespace "demo" deleted\n'
                             'deployment.apps "web" deleted\n'
                             'service "web" deleted\n', "round %d" % i)
            # kubectl waited for all three: the namespace is gone.
            p = kubectl.run("get", "namespace", "demo", check=False)
            self.assertEqual(p.returncode, 1, "round %d" % i)
            self.assertEqual(p.stderr, 'Error from server (NotFound): '
                             'namespaces "demo" not found\n')


if __name__ == "__main__":
    unittest.main()
