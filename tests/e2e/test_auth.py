"""kubectl auth can-i and auth whoami: the self-review kinds of
authorization.k8s.io and authentication.k8s.io, with the client
certificate the server writes and with a bearer token. kubectl 1.32+ send
these bodies as protobuf."""

import json
import os
import re
import shutil
import tempfile
import unittest

import harness

# `kubectl auth can-i --list` for a member of system:masters on a real
# cluster: cluster-admin, then what every authenticated user holds
# (system:basic-user, system:discovery, system:public-info-viewer; the
# last two both list /healthz and friends, hence the pairs).
CAN_I_LIST = """\
Resources                                       Non-Resource URLs   Resource Names   Verbs
*.*                                             []                  []               [*]
                                                [*]                 []               [*]
selfsubjectreviews.authentication.k8s.io        []                  []               [create]
selfsubjectaccessreviews.authorization.k8s.io   []                  []               [create]
selfsubjectrulesreviews.authorization.k8s.io    []                  []               [create]
                                                [/api/*]            []               [get]
                                                [/api]              []               [get]
                                                [/apis/*]           []               [get]
                                                [/apis]             []               [get]
                                                [/healthz]          []               [get]
                                                [/healthz]          []               [get]
                                                [/livez]            []               [get]
                                                [/livez]            []               [get]
                                                [/openapi/*]        []               [get]
                                                [/openapi]          []               [get]
                                                [/readyz]           []               [get]
                                                [/readyz]           []               [get]
                                                [/version/]         []               [get]
                                                [/version/]         []               [get]
                                                [/version]          []               [get]
                                                [/version]          []               [get]
"""

WHOAMI = """\
ATTRIBUTE   VALUE
Username    kubernetes-admin
Groups      [system:masters system:authenticated]
"""


class AuthChecks:
    """The checks, shared by the certificate and the token test cases."""

    def test_can_i_get_pods(self):
        p = self.kubectl.run("auth", "can-i", "get", "pods")
        self.assertEqual(p.stdout, "yes\n")

    def test_can_i_everything(self):
        p = self.kubectl.run("auth", "can-i", "*", "*")
        self.assertEqual(p.stdout, "yes\n")

    def test_can_i_subresource_and_other_namespace(self):
        p = self.kubectl.run("auth", "can-i", "update", "deployments.apps",
                             "--subresource=scale", "-n", "kube-system")
        self.assertEqual(p.stdout, "yes\n")

    def test_can_i_non_resource_url(self):
        p = self.kubectl.run("auth", "can-i", "get", "/healthz")
        self.assertEqual(p.stdout, "yes\n")

    def test_can_i_quiet(self):
        p = self.kubectl.run("auth", "can-i", "delete", "nodes", "-q")
        self.assertEqual(p.stdout, "")
        self.assertEqual(p.returncode, 0)

    def test_can_i_list(self):
        p = self.kubectl.run("auth", "can-i", "--list")
        harness.match_golden(self, p.stdout, CAN_I_LIST)
        self.assertEqual(p.stderr, "")

    def test_whoami(self):
        p = self.kubectl.run("auth", "whoami")
        harness.match_golden(self, p.stdout, WHOAMI)

    def test_whoami_json(self):
        p = self.kubectl.run("auth", "whoami", "-o", "json")
        review = json.loads(p.stdout)
        # 1.27 asks v1beta1 first; later clients ask v1.
        version = "v1beta1" if harness.minor(self.kubectl.version) <= 27 \
            else "v1"
        self.assertEqual(review["apiVersion"], "authentication.k8s.io/" +
                         version)
        self.assertEqual(review["kind"], "SelfSubjectReview")
        self.assertEqual(review["metadata"], {"creationTimestamp": None})
        self.assertEqual(review["status"]["userInfo"]["username"],
                         "kubernetes-admin")
        self.assertEqual(review["status"]["userInfo"]["groups"],
                         ["system:masters", "system:authenticated"])

    def test_reviews_are_create_only(self):
        p = self.kubectl.run("get", "selfsubjectreviews", check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("MethodNotAllowed", p.stderr)

    def test_discovery_advertises_create(self):
        p = self.kubectl.run("api-resources", "--verbs=create", "-o", "wide")
        rows = [re.split(r" {2,}", line.strip())
                for line in harness.normalise_lines(p.stdout)]
        for name, version in (
                ("selfsubjectreviews", "authentication.k8s.io/v1"),
                ("selfsubjectaccessreviews", "authorization.k8s.io/v1"),
                ("selfsubjectrulesreviews", "authorization.k8s.io/v1")):
            row = next((r for r in rows if r[0] == name), None)
            self.assertIsNotNone(row, p.stdout)
            # An empty SHORTNAMES cell collapses into the gap.
            self.assertEqual(row[1:3], [version, "false"], p.stdout)
            # 1.27 prints the verbs as [create], later clients as create.
            self.assertEqual(row[4].strip("[]"), "create", p.stdout)


class CertificateAuthTest(AuthChecks, harness.ServerTestCase):
    """With the client certificate of the kubeconfig the server writes."""


def token_kubeconfig(kubeconfig, token, path):
    """The server's kubeconfig with its user's certificate swapped for a
    bearer token."""
    with open(kubeconfig) as f:
        text = f.read()
    m = re.search(r"certificate-authority-data:\s*(\S+)", text)
    server = re.search(r"server:\s*(\S+)", text)
    if not m or not server:
        raise AssertionError("unexpected kubeconfig:\n" + text)
    with open(path, "w") as f:
        f.write("\n".join([
            "apiVersion: v1",
            "kind: Config",
            "clusters:",
            "- name: kubemock",
            "  cluster:",
            "    certificate-authority-data: " + m.group(1),
            "    server: " + server.group(1),
            "users:",
            "- name: token-user",
            "  user:",
            "    token: " + token,
            "contexts:",
            "- name: kubemock",
            "  context: {cluster: kubemock, user: token-user}",
            "current-context: kubemock",
            ""]))


class TokenAuthTest(AuthChecks, unittest.TestCase):
    """With the admin bearer token from the data dir's pki/admin.token."""

    @classmethod
    def setUpClass(cls):
        cls.workdir = tempfile.mkdtemp(prefix="kubemock-e2e-")
        data_dir = os.path.join(cls.workdir, "data")
        cls.server = harness.Server(cls.workdir, data_dir=data_dir).start()
        with open(os.path.join(data_dir, "pki", "admin.token")) as f:
            token = f.read().strip()
        path = os.path.join(cls.workdir, "token-kubeconfig")
        token_kubeconfig(cls.server.kubeconfig, token, path)
        cls.kubectl = harness.Kubectl(cls.workdir, path,
                                      harness.kubectl_version())

    @classmethod
    def tearDownClass(cls):
        rc = cls.server.stop()
        if rc == 0 and not os.environ.get("KUBEMOCK_E2E_KEEP"):
            shutil.rmtree(cls.workdir, ignore_errors=True)
        if rc != 0:
            raise AssertionError("kubemock exited %r after SIGTERM:\n%s" %
                                 (rc, cls.server.stderr_tail()))

    def test_kubeconfig_has_no_certificate(self):
        with open(self.kubectl.kubeconfig) as f:
            text = f.read()
        self.assertNotIn("client-certificate", text)
        self.assertIn("token: ", text)


if __name__ == "__main__":
    unittest.main()
