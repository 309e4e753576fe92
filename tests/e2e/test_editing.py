"""kubectl's editing commands on one pod: diff, edit, patch (strategic,
merge, json), label, annotate, replace (and --force), delete -l; and the
bad patches and updates a real kube-apiserver refuses, with nothing
stored."""

import json
import os
import subprocess
import unittest

import harness

POD = """apiVersion: v1
kind: Pod
metadata:
  name: ed
  labels:
    app: ed%s
spec:
  containers:
  - name: c
    image: nginx:1.27
"""
CONFLICT = ('Error from server (Conflict): error when replacing "%s": '
            'Operation cannot be fulfilled on pods "ed": the object has been '
            'modified; please apply your changes to the latest version and '
            'try again\n')
FORBIDDEN = (
    'The Pod "ed" is invalid: spec: Forbidden: pod updates may not change '
    "fields other than `spec.containers[*].image`,"
    "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,"
    "`spec.tolerations` (only additions to existing tolerations),"
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was "
    "previously negative)")
REJECTED = ("The request is invalid: the server rejected our request due to "
            "an error in our request\n")


class EditingTest(harness.ServerTestCase):
    """Steps run in name order and share the pod "ed"."""

    def path(self, name):
        return os.path.join(self.workdir, name)

    def write(self, name, text):
        with open(self.path(name), "w") as f:
            f.write(text)
        return self.path(name)

    def ok(self, *args, stdout):
        p = self.kubectl.run(*args)
        self.assertEqual(p.stdout, stdout)
        return p

    def fails(self, *args, stderr):
        p = self.kubectl.run(*args, check=False)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertEqual(p.stdout, "")
        self.assertEqual(p.stderr, stderr)
        return p

    def jsonpath(self, expr, name="ed"):
        return self.kubectl.run("get", "pod", name, "-o",
                                "jsonpath=" + expr).stdout

    def pod(self):
        return json.loads(self.kubectl.run("get", "pod", "ed", "-o",
                                           "json").stdout)

    def edit(self, editor):
        env = dict(self.kubectl.env, EDITOR=editor)
        return subprocess.run(self.kubectl.argv("edit", "pod", "ed"),
                              capture_output=True, text=True, env=env,
                              timeout=harness.KUBECTL_TIMEOUT)

    def assert_unchanged_by(self, args, stderr):
        before = self.pod()["metadata"]["resourceVersion"]
        self.fails(*args, stderr=stderr)
        self.assertEqual(self.pod()["metadata"]["resourceVersion"], before,
                         "a refused write stored something")

    def test_01_diff(self):
        manifest = self.write("ed.yaml", POD % "")
        self.ok("apply", "-f", manifest, stdout="pod/ed created\n")
        self.ok("diff", "-f", manifest, stdout="")
        changed = self.write("ed2.yaml", POD % "\n    tier: web")
        p = self.kubectl.run("diff", "-f", changed, check=False)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(p.stderr, "")
        harness.match_golden(self, p.stdout,
                             harness.golden("diff_pod_label.txt"))
        # diff is a dry run: nothing changed.
        self.assertEqual(self.jsonpath("{.metadata.labels}"), '{"app":"ed"}')

    def test_02_edit(self):
        script = self.write("editor.sh", '#!/bin/sh\nsed -i '
                            '"s/^    app: ed$/    app: edited/" "$1"\n')
        os.chmod(script, 0o755)
        p = self.edit(script)
        self.assertEqual((p.returncode, p.stdout, p.stderr),
                         (0, "pod/ed edited\n", ""))
        self.assertEqual(self.jsonpath("{.metadata.labels.app}"), "edited")
        p = self.edit("true")
        self.assertEqual((p.returncode, p.stdout, p.stderr),
                         (0, "", "Edit cancelled, no changes made.\n"))

    def test_03_patch_types(self):
        strategic = '{"metadata":{"labels":{"tier":"web"}}}'
        self.ok("patch", "pod", "ed", "-p", strategic,
                stdout="pod/ed patched\n")
        self.ok("patch", "pod", "ed", "-p", strategic,
                stdout="pod/ed patched (no change)\n")
        merge = '{"metadata":{"annotations":{"note":"hi"}}}'
        self.ok("patch", "pod", "ed", "--type", "merge", "-p", merge,
                stdout="pod/ed patched\n")
        self.ok("patch", "pod", "ed", "--type", "merge", "-p", merge,
                stdout="pod/ed patched (no change)\n")
        self.ok("patch", "pod", "ed", "--type", "json", "-p",
                '[{"op":"replace","path":"/metadata/labels/tier",'
                '"value":"db"}]', stdout="pod/ed patched\n")
        self.ok("patch", "pod", "ed", "--type", "json", "-p",
                '[{"op":"test","path":"/metadata/labels/tier","value":"db"}]',
                stdout="pod/ed patched (no change)\n")
        # Containers merge by name: the image changes, nothing is added.
        self.ok("patch", "pod", "ed", "-p",
                '{"spec":{"containers":[{"name":"c","image":"nginx:1.28"}]}}',
                stdout="pod/ed patched\n")
        self.assertEqual(
            self.jsonpath("{.metadata.labels} {.metadata.annotations.note} "
                          "{.spec.containers[*].name}="
                          "{.spec.containers[*].image}"),
            '{"app":"edited","tier":"db"} hi c=nginx:1.28')

    def test_04_bad_patches(self):
        self.assert_unchanged_by(
            ["patch", "pod", "ed", "--type", "json", "-p",
             '[{"op":"remove","path":"/spec/nosuch"}]'], REJECTED)
        self.assert_unchanged_by(
            ["patch", "pod", "ed", "--type", "json", "-p",
             '[{"op":"test","path":"/metadata/labels/tier","value":"no"}]'],
            REJECTED)
        self.assert_unchanged_by(
            ["patch", "pod", "ed", "--type", "merge", "-p", "[1]"],
            "Error from server (BadRequest): error decoding patch: json: "
            "cannot unmarshal array into Go value of type "
            "map[string]interface {}\n")
        self.assert_unchanged_by(
            ["patch", "pod", "ed", "-p", '"x"'],
            "Error from server (BadRequest): json: cannot unmarshal string "
            "into Go value of type map[string]interface {}\n")
        # An error the apiserver does not convert: 500 with no reason.
        self.assert_unchanged_by(
            ["patch", "pod", "ed", "--type", "merge", "-p", "null"],
            "Error from server: Invalid JSON Patch\n")

    def test_05_label_annotate(self):
        # kubectl 1.27 itself prints "annotate" where later ones say
        # "annotated".
        annotated = "pod/ed %s\n" % (
            "annotate" if harness.minor(self.kubectl.version) <= 27
            else "annotated")
        self.ok("label", "pod", "ed", "color=blue", stdout="pod/ed labeled\n")
        self.assert_unchanged_by(
            ["label", "pod", "ed", "color=red"],
            "error: 'color' already has a value (blue), and --overwrite is "
            "false\n")
        self.ok("label", "--overwrite", "pod", "ed", "color=red",
                stdout="pod/ed labeled\n")
        self.ok("label", "--overwrite", "pod", "ed", "color=red",
                stdout="pod/ed not labeled\n")
        self.ok("label", "pod", "ed", "color-", stdout="pod/ed unlabeled\n")
        self.ok("annotate", "pod", "ed", "owner=me",
                stdout=annotated)
        self.assert_unchanged_by(
            ["annotate", "pod", "ed", "owner=you"],
            "error: --overwrite is false but found the following declared "
            "annotation(s): 'owner' already has a value (me)\n")
        self.ok("annotate", "--overwrite", "pod", "ed", "owner=you",
                stdout=annotated)
        self.ok("annotate", "pod", "ed", "owner-", "note-",
                stdout=annotated)
        meta = self.pod()["metadata"]
        self.assertEqual(meta["labels"], {"app": "edited", "tier": "db"})
        self.assertNotIn("owner", meta.get("annotations", {}))
        self.assertNotIn("note", meta.get("annotations", {}))

    def live_yaml(self, name, *edits):
        text = self.kubectl.run("get", "pod", "ed", "-o", "yaml").stdout
        for old, new in edits:
            self.assertIn(old, text)
            text = text.replace(old, new, 1)
        return self.write(name, text)

    def test_06_replace(self):
        path = self.live_yaml("replace.yaml",
                              ("\n    app: edited\n", "\n    app: replaced\n"))
        self.ok("replace", "-f", path, stdout="pod/ed replaced\n")
        self.assertEqual(self.jsonpath("{.metadata.labels.app}"), "replaced")
        # The same file again carries a stale resourceVersion.
        self.assert_unchanged_by(["replace", "-f", path], CONFLICT % path)

    def test_07_replace_immutable(self):
        node = self.jsonpath("{.spec.nodeName}")
        other = "worker-3" if node != "worker-3" else "worker-2"
        for name, edit in (
                ("rename.yaml", ("\n    name: c\n", "\n    name: c2\n")),
                ("move.yaml", ("\n  nodeName: %s\n" % node,
                               "\n  nodeName: %s\n" % other))):
            path = self.live_yaml(name, edit)
            before = self.pod()["metadata"]["resourceVersion"]
            p = self.kubectl.run("replace", "-f", path, check=False)
            self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
            self.assertEqual(p.stdout, "")
            self.assertEqual(p.stderr.split("\n")[0], FORBIDDEN, name)
            self.assertEqual(self.pod()["metadata"]["resourceVersion"],
                             before)

    def test_08_replace_force(self):
        uid = self.jsonpath("{.metadata.uid}")
        path = self.live_yaml("force.yaml",
                              ("\n    app: replaced\n", "\n    app: forced\n"))
        self.ok("replace", "--force", "-f", path,
                stdout='pod "ed" deleted\npod/ed replaced\n')
        self.assertEqual(self.jsonpath("{.metadata.labels.app}"), "forced")
        self.assertNotEqual(self.jsonpath("{.metadata.uid}"), uid)

    def test_09_delete_by_label(self):
        for name in ("del-b", "del-a", "keep"):
            self.kubectl.run("run", name, "--image=nginx",
                             "--labels=group=" + name.split("-")[0])
        self.ok("delete", "pod", "-l", "group=del",
                stdout='pod "del-a" deleted\npod "del-b" deleted\n')
        self.ok("get", "pods", "-o", "name", stdout="pod/ed\npod/keep\n")
        p = self.kubectl.run("delete", "pod", "-l", "group=none")
        self.assertEqual((p.stdout, p.stderr), ("No resources found\n", ""))


if __name__ == "__main__":
    unittest.main()
