"""Server-side apply through kubectl: create and re-apply, a second field
manager's conflict (refused with kubectl's message, then forced), the
managers `get --show-managed-fields` lists, and switching between
client-side and server-side apply on the same object in both directions."""

import json
import os
import re
import unittest

import harness

DEPLOY = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: %(name)s
spec:
  replicas: %(replicas)d
  selector:
    matchLabels:
      app: %(name)s
  template:
    metadata:
      labels:
        app: %(name)s
    spec:
      containers:
      - name: c
        image: %(image)s
"""
POD = """apiVersion: v1
kind: Pod
metadata:
  name: mig
  labels:
%(labels)s
spec:
  containers:
  - name: c
    image: nginx:1.27
"""
# What kubectl appends to every apply conflict the server reports.
GUIDANCE = """Please review the fields above--they currently have other managers. Here
are the ways you can resolve this warning:
* If you intend to manage all of these fields, please re-run the apply
  command with the `--force-conflicts` flag.
* If you do not intend to manage all of the fields, please edit your
  manifest to remove references to the fields that should keep their
  current managers.
* You may co-own fields by updating your manifest to match the existing
  value; in this case, you'll become the manager if the other manager(s)
  stop managing the field (remove it from their configuration).
See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts
"""
MISSING_ANNOTATION = (
    "Warning: resource deployments/%s is missing the "
    "kubectl.kubernetes.io/last-applied-configuration annotation which is "
    "required by kubectl apply. kubectl apply should only be used on "
    "resources created declaratively by either kubectl create --save-config "
    "or kubectl apply. The missing annotation will be patched "
    "automatically.\n")
CONTROLLER_TIMEOUT = 15

_ENTRY_RE = re.compile(r"^  - apiVersion: ")
_KEY_RE = re.compile(r"^    (manager|operation|subresource): (\S+)$")


def managers_in_yaml(text):
    """(manager, operation, subresource or None) of each managedFields
    entry, in order, read from `-o yaml` text."""
    entries, inside = [], False
    for line in text.split("\n"):
        if line == "  managedFields:":
            inside = True
            continue
        if inside and line and not line.startswith("  "):
            break
        if inside and re.match(r"^  [a-zA-Z]", line):
            break  # the next metadata field
        if not inside:
            continue
        if _ENTRY_RE.match(line):
            entries.append({})
            continue
        m = _KEY_RE.match(line)
        if m and entries:
            entries[-1][m.group(1)] = m.group(2)
    return [(e.get("manager"), e.get("operation"), e.get("subresource"))
            for e in entries]


def managers_in(obj):
    return [(e["manager"], e["operation"], e.get("subresource"))
            for e in obj["metadata"].get("managedFields", [])]


def fields_of(obj, manager, operation="Apply"):
    for e in obj["metadata"].get("managedFields", []):
        if e["manager"] == manager and e["operation"] == operation:
            return e["fieldsV1"]
    raise AssertionError("no %s entry of %s in %s" %
                         (operation, manager, managers_in(obj)))


class ServerSideApplyTest(harness.ServerTestCase):
    """Steps run in name order and share the deployment "ssa"."""

    def write(self, name, text):
        path = os.path.join(self.workdir, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def deploy_file(self, name, replicas=2, image="nginx:1.27", file=None):
        return self.write(file or "%s-%d-%s.yaml" % (name, replicas, image),
                          DEPLOY % {"name": name, "replicas": replicas,
                                    "image": image})

    def ok(self, *args, stdout, stderr=""):
        p = self.kubectl.run(*args)
        self.assertEqual((p.stdout, p.stderr), (stdout, stderr))
        return p

    def get(self, kind, name, managed=True):
        args = ["get", kind, name, "-o", "json"]
        if managed:
            args.append("--show-managed-fields")
        return json.loads(self.kubectl.run(*args).stdout)

    def applied_state(self, kind, name):
        """What an apply can change; the controllers keep writing status
        (and so resourceVersion) meanwhile."""
        obj = self.get(kind, name)
        return (obj["metadata"]["generation"], obj["spec"],
                [e for e in obj["metadata"]["managedFields"]
                 if e["operation"] == "Apply"])

    def assert_conflict(self, args, stderr, kind="deploy", name="ssa"):
        before = self.applied_state(kind, name)
        p = self.kubectl.run(*args, check=False)
        self.assertEqual((p.returncode, p.stdout, p.stderr), (1, "", stderr))
        self.assertEqual(self.applied_state(kind, name), before,
                         "a refused apply stored something")

    def test_01_create_and_reapply(self):
        path = self.deploy_file("ssa")
        self.ok("apply", "--server-side", "-f", path,
                stdout="deployment.apps/ssa serverside-applied\n")
        # Applying the same configuration again is not an error and prints
        # the same line.
        self.ok("apply", "--server-side", "-f", path,
                stdout="deployment.apps/ssa serverside-applied\n")
        obj = self.get("deploy", "ssa")
        self.assertEqual(obj["spec"]["replicas"], 2)
        self.assertNotIn("kubectl.kubernetes.io/last-applied-configuration",
                         obj["metadata"].get("annotations", {}))
        self.assertIn(("kubectl", "Apply", None), managers_in(obj))
        self.assertIn("f:replicas", fields_of(obj, "kubectl")["f:spec"])

    def test_02_second_manager_conflicts(self):
        path = self.deploy_file("ssa", replicas=3)
        self.assert_conflict(
            ["apply", "--server-side", "--field-manager=other", "-f", path],
            'error: Apply failed with 1 conflict: conflict with "kubectl": '
            ".spec.replicas\n" + GUIDANCE)
        self.assertEqual(self.get("deploy", "ssa")["spec"]["replicas"], 2)

    def test_03_force_conflicts(self):
        path = self.deploy_file("ssa", replicas=3)
        self.ok("apply", "--server-side", "--field-manager=other",
                "--force-conflicts", "-f", path,
                stdout="deployment.apps/ssa serverside-applied\n")
        obj = self.get("deploy", "ssa")
        self.assertEqual(obj["spec"]["replicas"], 3)
        # other took .spec.replicas from kubectl; the rest of the two
        # configurations is equal, so both own it.
        kubectl = fields_of(obj, "kubectl")["f:spec"]
        other = fields_of(obj, "other")["f:spec"]
        self.assertNotIn("f:replicas", kubectl)
        self.assertIn("f:replicas", other)
        self.assertEqual(kubectl["f:template"], other["f:template"])
        self.assertIn('k:{"name":"c"}',
                      other["f:template"]["f:spec"]["f:containers"])
        # kubectl, still applying replicas 2, now conflicts with other.
        self.assert_conflict(
            ["apply", "--server-side", "-f", self.deploy_file("ssa")],
            'error: Apply failed with 1 conflict: conflict with "other": '
            ".spec.replicas\n" + GUIDANCE)

    def test_04_show_managed_fields(self):
        want = [("kubectl", "Apply", None), ("other", "Apply", None),
                ("kube-controller-manager", "Update", "status")]

        def settled():
            obj = self.get("deploy", "ssa")
            status, spec = obj.get("status", {}), obj["spec"]
            return (managers_in(obj) == want and
                    status.get("observedGeneration") ==
                    obj["metadata"]["generation"] and
                    status.get("availableReplicas") == spec["replicas"] and
                    status.get("updatedReplicas") == spec["replicas"])

        self.assertTrue(harness.wait_until(settled, CONTROLLER_TIMEOUT),
                        managers_in(self.get("deploy", "ssa")))
        text = self.kubectl.run("get", "deploy", "ssa", "-o", "yaml",
                                "--show-managed-fields").stdout
        self.assertEqual(managers_in_yaml(text), want, text)
        block = re.search(r"^  managedFields:\n(?:  [ -].*\n)+", text,
                          re.M)
        self.assertTrue(block, text)
        harness.match_golden(self, block.group(0),
                             harness.golden("ssa_deploy_managed_fields.txt"))
        # The controller's status entry owns status, not spec.
        status = fields_of(self.get("deploy", "ssa"),
                           "kube-controller-manager", "Update")
        self.assertIn("f:status", status)
        self.assertNotIn("f:spec", status)
        # Without the flag kubectl hides managedFields.
        plain = self.kubectl.run("get", "deploy", "ssa", "-o", "yaml").stdout
        self.assertNotIn("managedFields", plain)
        self.assertEqual(managers_in_yaml(plain), [])

    def test_05_server_side_then_client_side(self):
        # The object was never client-side applied, so kubectl warns that
        # the annotation is missing and adds it.
        path = self.deploy_file("ssa", replicas=3, image="nginx:1.28")
        self.ok("apply", "-f", path,
                stdout="deployment.apps/ssa configured\n",
                stderr=MISSING_ANNOTATION % "ssa")
        self.ok("apply", "-f", path,
                stdout="deployment.apps/ssa unchanged\n")
        obj = self.get("deploy", "ssa")
        self.assertEqual(obj["spec"]["template"]["spec"]["containers"][0]
                         ["image"], "nginx:1.28")
        self.assertIn("kubectl.kubernetes.io/last-applied-configuration",
                      obj["metadata"]["annotations"])
        self.assertIn(("kubectl-client-side-apply", "Update", None),
                      managers_in(obj))
        # And back: kubectl moves the client-side entry into its own Apply
        # entry first, so its own earlier client-side change is no conflict.
        self.ok("apply", "--server-side", "-f", path,
                stdout="deployment.apps/ssa serverside-applied\n")
        obj = self.get("deploy", "ssa")
        self.assertNotIn("kubectl-client-side-apply",
                         [m for m, _, _ in managers_in(obj)])

    def test_06_migration_pod(self):
        both = self.write("mig.yaml",
                          POD % {"labels": "    app: mig\n    tier: web"})
        self.ok("apply", "-f", both, stdout="pod/mig created\n")
        self.assertIn(("kubectl-client-side-apply", "Update", None),
                      managers_in(self.get("pod", "mig")))
        self.ok("apply", "--server-side", "-f", both,
                stdout="pod/mig serverside-applied\n")
        obj = self.get("pod", "mig")
        managers = [m for m, _, _ in managers_in(obj)]
        self.assertNotIn("kubectl-client-side-apply", managers)
        self.assertIn(("kubectl", "Apply", None), managers_in(obj))
        self.assertEqual(obj["metadata"]["labels"],
                         {"app": "mig", "tier": "web"})
        # kubectl now owns what client-side apply set, so a label it stops
        # applying is removed.
        one = self.write("mig1.yaml", POD % {"labels": "    app: mig"})
        self.ok("apply", "--server-side", "-f", one,
                stdout="pod/mig serverside-applied\n")
        self.assertEqual(self.get("pod", "mig")["metadata"]["labels"],
                         {"app": "mig"})
        # Back to client-side apply: the annotation kept up to date by the
        # server-side applies means no warning.
        relabel = self.write("mig2.yaml", POD % {"labels": "    app: mig2"})
        self.ok("apply", "-f", relabel, stdout="pod/mig configured\n")
        self.assertEqual(self.get("pod", "mig")["metadata"]["labels"],
                         {"app": "mig2"})

    def test_07_migration_deployment(self):
        path = self.deploy_file("mig")
        self.ok("apply", "-f", path, stdout="deployment.apps/mig created\n")
        # Before the migration the client-side applier is an Update manager:
        # the server names it with its API version.
        self.assert_conflict(
            ["apply", "--server-side", "--field-manager=other", "-f",
             self.deploy_file("mig", replicas=3)],
            'error: Apply failed with 1 conflict: conflict with '
            '"kubectl-client-side-apply" using apps/v1: .spec.replicas\n' +
            GUIDANCE, name="mig")
        self.ok("apply", "--server-side", "-f", path,
                stdout="deployment.apps/mig serverside-applied\n")
        # After it, kubectl's Apply entry owns the fields.
        self.assert_conflict(
            ["apply", "--server-side", "--field-manager=other", "-f",
             self.deploy_file("mig", replicas=3, image="nginx:1.29")],
            'error: Apply failed with 2 conflicts: conflicts with "kubectl":\n'
            "- .spec.replicas\n"
            '- .spec.template.spec.containers[name="c"].image\n' + GUIDANCE,
            name="mig")


if __name__ == "__main__":
    unittest.main()
