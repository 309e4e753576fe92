"""kubectl get's output options against a few pods, a Deployment and the
kubernetes Service: --sort-by, -o jsonpath|custom-columns|name|yaml|json,
--show-labels, -L, get all, get --raw; and a garbage continue token."""

import json
import re
import unittest
import urllib.parse

import harness


class OutputTest(harness.ServerTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        # Created out of name order; labels sort the other way round.
        for name, app in (("zulu", "aa"), ("alpha", "zz")):
            cls.kubectl.run("run", name, "--image=nginx",
                            "--labels=app=%s,rank=%s" % (app, name[0]))
        cls.kubectl.run("create", "deployment", "web", "--image=nginx")
        cls.kubectl.run("wait", "--for=condition=Ready", "pod", "--all",
                        "--timeout=20s", timeout=30)
        cls.kubectl.run("rollout", "status", "deployment", "web",
                        "--timeout=20s", timeout=30)

    def get(self, *args):
        return self.kubectl.run("get", *args).stdout

    def pods(self, *args):
        """get pods, without the Deployment's pod."""
        return self.get("pods", "-l", "rank", *args)

    def test_sort_by(self):
        harness.match_golden(self, self.pods("--sort-by=.metadata.name"),
                             "NAME    READY   STATUS    RESTARTS   AGE\n"
                             "alpha   1/1     Running   0          <age>\n"
                             "zulu    1/1     Running   0          <age>")
        harness.match_golden(self, self.pods("--sort-by=.metadata.labels.app"),
                             "NAME    READY   STATUS    RESTARTS   AGE\n"
                             "zulu    1/1     Running   0          <age>\n"
                             "alpha   1/1     Running   0          <age>")

    def test_jsonpath(self):
        self.assertEqual(
            self.pods("-o", "jsonpath={.items[*].metadata.name}"),
            "alpha zulu")

    def test_custom_columns(self):
        got = harness.match_golden(
            self, self.pods("-o",
                            "custom-columns=NAME:.metadata.name,"
                            "NODE:.spec.nodeName"),
            "NAME    NODE\nalpha   <node:a>\nzulu    <node:z>")
        self.assertEqual(got["a"], self.get("pod", "alpha", "-o",
                                            "jsonpath={.spec.nodeName}"))

    def test_name(self):
        self.assertEqual(self.pods("-o", "name"), "pod/alpha\npod/zulu\n")
        self.assertEqual(self.get("deployments", "-o", "name"),
                         "deployment.apps/web\n")

    def test_labels(self):
        harness.match_golden(
            self, self.pods("--show-labels"),
            "NAME    READY   STATUS    RESTARTS   AGE     LABELS\n"
            "alpha   1/1     Running   0          <age>   app=zz,rank=a\n"
            "zulu    1/1     Running   0          <age>   app=aa,rank=z")
        harness.match_golden(
            self, self.pods("-L", "app", "-L", "nosuch"),
            "NAME    READY   STATUS    RESTARTS   AGE     APP   NOSUCH\n"
            "alpha   1/1     Running   0          <age>   zz\n"
            "zulu    1/1     Running   0          <age>   aa")

    def test_json_and_yaml(self):
        listed = json.loads(self.pods("-o", "json"))
        self.assertEqual(listed["kind"], "List")
        self.assertEqual(listed["apiVersion"], "v1")
        self.assertEqual(listed["metadata"], {"resourceVersion": ""})
        self.assertEqual([i["metadata"]["name"] for i in listed["items"]],
                         ["alpha", "zulu"])
        self.assertEqual({i["kind"] for i in listed["items"]}, {"Pod"})
        one = json.loads(self.get("pod", "alpha", "-o", "json"))
        self.assertEqual(one, listed["items"][0])
        # kubectl prints JSON indented four spaces, YAML with sorted keys.
        self.assertTrue(self.get("pod", "alpha", "-o", "json").startswith(
            '{\n    "apiVersion": "v1",\n    "kind": "Pod",\n'))
        y = self.get("pod", "alpha", "-o", "yaml")
        top = [l for l in y.split("\n") if re.match(r"^\S", l)]
        self.assertEqual(top, ["apiVersion: v1", "kind: Pod", "metadata:",
                               "spec:", "status:"])
        self.assertIn("\n  name: alpha\n  namespace: default\n", y)
        self.assertIn("\n  phase: Running\n", y)
        ly = self.pods("-o", "yaml")
        self.assertTrue(ly.startswith("apiVersion: v1\nitems:\n- apiVersion: "
                                      "v1\n  kind: Pod\n"), ly[:200])
        self.assertTrue(ly.endswith("kind: List\nmetadata:\n  "
                                    'resourceVersion: ""\n'), ly[-200:])

    def test_get_all(self):
        out = self.get("all")
        m = re.search(r"^replicaset\.apps/web-(\S+) ", out, re.M)
        self.assertTrue(m, out)
        # The pod-template-hash: kube's safe alphabet, up to ten characters.
        self.assertRegex(m.group(1), r"^[bcdfghjklmnpqrstvwxz2456789]{6,10}$")
        harness.match_golden(self, out.replace(m.group(1), "HASH"),
                             harness.golden("get_all.txt"))

    def test_raw(self):
        raw = self.get("--raw", "/api/v1/namespaces/default/pods/alpha")
        # One line of JSON and a newline, as kube-apiserver's encoder writes.
        self.assertEqual(raw.count("\n"), 1)
        self.assertTrue(raw.endswith("}\n"))
        # The raw object carries managedFields, which `get -o json` hides
        # (--show-managed-fields=false), as against a real server.
        raw_obj = json.loads(raw)
        managed = raw_obj["metadata"].pop("managedFields")
        self.assertEqual(managed[0]["operation"], "Update")
        self.assertEqual(managed[0]["fieldsType"], "FieldsV1")
        self.assertEqual(raw_obj,
                         json.loads(self.get("pod", "alpha", "-o", "json")))
        # /version is indented two spaces, in version.Info's field order,
        # without a final newline.
        version = self.get("--raw", "/version")
        keys = re.findall(r'^  "(\w+)": ', version, re.M)
        self.assertEqual(keys, ["major", "minor", "gitVersion", "gitCommit",
                                "gitTreeState", "buildDate", "goVersion",
                                "compiler", "platform"], version)
        self.assertTrue(version.startswith('{\n  "major": "1",\n'))
        self.assertTrue(version.endswith('"\n}'), repr(version[-20:]))
        self.assertEqual(json.loads(version)["gitVersion"][:6], "v1.33.")

    def test_garbage_continue(self):
        creds = harness.Credentials(self.server.kubeconfig, self.workdir)
        base = "/api/v1/namespaces/default/pods?limit=1"

        def get(query):
            return harness.https_request(
                self.server, "GET", base + query, cafile=creds.ca,
                cert=creds.cert, key=creds.key,
                headers={"Accept": "application/json"})

        code, _, body = get("")
        self.assertEqual(code, 200)
        token = json.loads(body)["metadata"]["continue"]
        self.assertTrue(token)
        code, _, body = get("&continue=" + urllib.parse.quote(token))
        self.assertEqual(code, 200)
        for garbage, cause in (
                ("garbage", "invalid character '\\u0081' looking for "
                            "beginning of value"),
                ("abc%3D", "illegal base64 data at input byte 3")):
            code, _, body = get("&continue=" + garbage)
            self.assertEqual(code, 400, body)
            st = harness.status_body(self, body)
            self.assertEqual(st["reason"], "BadRequest")
            self.assertEqual(st["code"], 400)
            self.assertEqual(st["message"], "invalid continue token: continue "
                             "key is not valid: " + cause)
        p = self.kubectl.run("get", "--raw", base + "&continue=garbage",
                             check=False)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr, "Error from server (BadRequest): invalid "
                         "continue token: continue key is not valid: invalid "
                         "character '\\u0081' looking for beginning of "
                         "value\n")


if __name__ == "__main__":
    unittest.main()
