"""Bad input through kubectl gets kube-apiserver's code and message, and
nothing is stored."""

import json
import os
import unittest

import harness

POD = """apiVersion: v1
kind: Pod
metadata:
  name: %(name)s
%(ns)sspec:
%(spec)s"""
ONE_CONTAINER = "  containers:\n  - name: c\n    image: nginx\n"


class BadInputTest(harness.ServerTestCase):

    def write(self, filename, text):
        path = os.path.join(self.workdir, filename)
        with open(path, "w") as f:
            f.write(text)
        return path

    def manifest(self, filename, name="x", ns="", spec=ONE_CONTAINER):
        ns_line = "  namespace: %s\n" % ns if ns else ""
        return self.write(filename, POD % {"name": name, "ns": ns_line,
                                           "spec": spec})

    def assert_fails(self, args, stderr):
        p = self.kubectl.run(*args, check=False)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertEqual(p.stdout, "")
        self.assertEqual(p.stderr, stderr + "\n")

    def assert_not_stored(self, name, ns="default"):
        p = self.kubectl.run("get", "pod", name, "-n", ns, check=False)
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertEqual(p.stderr, 'Error from server (NotFound): pods "%s" '
                         'not found\n' % name)

    def test_malformed_json(self):
        # 32 bytes, cut off inside the object: the summary shows 30 of them.
        path = self.write("bad.json", '{"apiVersion":"v1","kind":"Pod",')
        self.assert_fails(
            ["create", "--raw", "/api/v1/namespaces/default/pods", "-f", path],
            "Error from server (BadRequest): the object provided is "
            "unrecognized (must be of type Pod): couldn't get version/kind; "
            "json parse error: unexpected end of JSON input "
            '({"apiVersion":"v1","kind":"Pod ...)')
        p = self.kubectl.run("get", "pods")
        self.assertEqual(p.stdout, "")

    def test_no_containers(self):
        path = self.manifest("nocontainers.yaml", spec="  containers: []\n")
        self.assert_fails(["apply", "-f", path],
                          'The Pod "x" is invalid: spec.containers: '
                          "Required value")
        self.assert_not_stored("x")

    def test_invalid_name(self):
        path = self.manifest("badname.yaml", name="Bad_Name")
        self.assert_fails(
            ["apply", "-f", path],
            'The Pod "Bad_Name" is invalid: metadata.name: Invalid value: '
            '"Bad_Name": a lowercase RFC 1123 subdomain must consist of lower '
            "case alphanumeric characters, '-' or '.', and must start and end "
            "with an alphanumeric character (e.g. 'example.com', regex used "
            "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]"
            "([-a-z0-9]*[a-z0-9])?)*')")
        p = self.kubectl.run("get", "pods", "-o", "name")
        self.assertEqual(p.stdout, "")

    def test_unknown_field_strict(self):
        path = self.manifest("unknown.yaml", spec="  foo: 1\n" + ONE_CONTAINER)
        self.assert_fails(
            ["apply", "-f", path],
            'Error from server (BadRequest): error when creating "%s": Pod in '
            'version "v1" cannot be handled as a Pod: strict decoding error: '
            'unknown field "spec.foo"' % path)
        self.assert_not_stored("x")

    def test_unknown_field_not_validated_is_dropped(self):
        # --validate=false (fieldValidation=Ignore) and --validate=warn:
        # the server drops what its schema does not know, stores and
        # records none of it, as a real server's decoder does.
        for flag, name, warning in (
                ("--validate=false", "lax", ""),
                ("--validate=warn", "warned",
                 'Warning: unknown field "spec.foo"\n')):
            with self.subTest(flag=flag):
                path = self.manifest(name + ".yaml", name=name,
                                     spec="  foo: 1\n" + ONE_CONTAINER)
                p = self.kubectl.run("create", flag, "-f", path)
                self.assertEqual(p.stdout, "pod/%s created\n" % name)
                self.assertEqual(p.stderr, warning)
                p = self.kubectl.run("get", "pod", name, "-o", "json",
                                     "--show-managed-fields")
                pod = json.loads(p.stdout)
                self.assertNotIn("foo", pod["spec"])
                self.assertNotIn("f:foo", json.dumps(
                    pod["metadata"]["managedFields"]))
                self.kubectl.run("delete", "pod", name, "--wait=false")

    def test_unknown_field_server_side_apply(self):
        # Structured-merge-diff types the configuration and refuses a field
        # its schema does not declare, whatever the validation: a 500
        # without a reason on a real server.
        path = self.manifest("ssa-unknown.yaml", name="ssa",
                             spec="  foo: 1\n" + ONE_CONTAINER)
        p = self.kubectl.run("apply", "--server-side", "--validate=false",
                             "-f", path, check=False)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertEqual(
            p.stderr,
            "Error from server: failed to create typed patch object "
            "(default/ssa; /v1, Kind=Pod): .spec.foo: field not declared in "
            "schema\n")
        self.assert_not_stored("ssa")

    def test_namespace_not_found(self):
        path = self.manifest("nons.yaml", ns="nosuch")
        self.assert_fails(
            ["apply", "-f", path],
            'Error from server (NotFound): error when creating "%s": '
            'namespaces "nosuch" not found' % path)
        p = self.kubectl.run("get", "pods", "-A", "-o", "name")
        self.assertNotIn("pod/x\n", p.stdout)
        p = self.kubectl.run("get", "namespace", "nosuch", check=False)
        self.assertEqual(p.stderr, 'Error from server (NotFound): namespaces '
                         '"nosuch" not found\n')

    def test_already_exists(self):
        path = self.manifest("dup.yaml", name="dup")
        self.assertEqual(self.kubectl.run("create", "-f", path).stdout,
                         "pod/dup created\n")
        self.assert_fails(
            ["create", "-f", path],
            'Error from server (AlreadyExists): error when creating "%s": '
            'pods "dup" already exists' % path)
        self.kubectl.run("delete", "pod", "dup", "--wait=false")


if __name__ == "__main__":
    unittest.main()
