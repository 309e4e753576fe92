"""Raw HTTPS requests kubectl cannot make: oversized bodies, malformed
JSON, no credentials, a client certificate from another CA. Independent
of the kubectl version."""

import json
import os
import ssl
import subprocess
import unittest

import harness

PODS = "/api/v1/namespaces/default/pods"
POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "raw"},
       "spec": {"containers": [{"name": "c", "image": "nginx"}]}}


class RawRequestTest(harness.ServerTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.creds = harness.Credentials(cls.server.kubeconfig, cls.workdir)

    def request(self, method, path, body=None, headers=None, cert=True):
        return harness.https_request(
            self.server, method, path, body=body, headers=headers,
            cafile=self.creds.ca, cert=self.creds.cert if cert else None,
            key=self.creds.key if cert else None)

    def pod_names(self):
        status, _, body = self.request("GET", PODS)
        self.assertEqual(status, 200, body)
        return [p["metadata"]["name"] for p in json.loads(body)["items"]]

    def test_admin_certificate_works(self):
        status, headers, body = self.request("GET", PODS)
        self.assertEqual(status, 200, body)
        self.assertEqual(json.loads(body)["kind"], "PodList")

    def test_malformed_json(self):
        body = b'{"kind":"Pod",'
        status, headers, out = self.request(
            "POST", PODS, body, {"Content-Type": "application/json"})
        self.assertEqual(status, 400, out)
        st = harness.status_body(self, out)
        self.assertEqual(st["reason"], "BadRequest")
        self.assertEqual(st["code"], 400)
        self.assertEqual(
            st["message"],
            "the object provided is unrecognized (must be of type Pod): "
            "couldn't get version/kind; json parse error: unexpected end of "
            'JSON input ({"kind":"Pod",)')
        self.assertEqual(self.pod_names(), [])

    def test_body_over_3mib(self):
        pod = json.loads(json.dumps(POD))
        pod["metadata"]["annotations"] = {"big": "x" * (3 * 1024 * 1024)}
        body = json.dumps(pod).encode()
        self.assertGreater(len(body), 3145728)
        try:
            status, _, out = self.request(
                "POST", PODS, body, {"Content-Type": "application/json"})
        except (BrokenPipeError, ConnectionResetError) as e:
            self.fail("server dropped the connection instead of a 413: %r" % e)
        self.assertEqual(status, 413, out[:300])
        st = harness.status_body(self, out)
        self.assertEqual(st["reason"], "RequestEntityTooLarge")
        self.assertEqual(st["code"], 413)
        self.assertEqual(st["message"],
                         "Request entity too large: limit is 3145728")
        self.assertEqual(self.pod_names(), [])

    def test_no_credentials(self):
        status, headers, out = self.request(
            "POST", PODS, json.dumps(POD).encode(),
            {"Content-Type": "application/json"}, cert=False)
        self.assertEqual(status, 401, out)
        self.assertTrue(headers.get("Content-Type", "").startswith(
            "application/json"), headers)
        st = harness.status_body(self, out)
        self.assertEqual(st["message"], "Unauthorized")
        self.assertEqual(st["reason"], "Unauthorized")
        self.assertEqual(st["code"], 401)
        self.assertEqual(self.pod_names(), [])

    def test_wrong_bearer_token(self):
        status, _, out = self.request(
            "GET", PODS, headers={"Authorization": "Bearer not-the-token"},
            cert=False)
        self.assertEqual(status, 401, out)
        self.assertEqual(harness.status_body(self, out)["reason"],
                         "Unauthorized")

    def test_certificate_from_another_ca(self):
        d = os.path.join(self.workdir, "other-ca")
        os.mkdir(d)

        def openssl(*args):
            subprocess.run(["openssl"] + list(args), cwd=d, check=True,
                           capture_output=True, timeout=30)

        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt",
                "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ca.key",
                "-out", "ca.crt", "-subj", "/CN=other-ca", "-days", "1")
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                "-nodes", "-keyout", "client.key", "-out", "client.csr",
                "-subj", "/O=system:masters/CN=kubernetes-admin")
        openssl("x509", "-req", "-in", "client.csr", "-CA", "ca.crt",
                "-CAkey", "ca.key", "-CAcreateserial", "-out", "client.crt",
                "-days", "1")
        # Same subject as the admin, wrong issuer: the handshake succeeds,
        # as with kube-apiserver, and authentication answers 401.
        status, _, out = harness.https_request(
            self.server, "POST", PODS, json.dumps(POD).encode(),
            {"Content-Type": "application/json"}, cafile=self.creds.ca,
            cert=os.path.join(d, "client.crt"),
            key=os.path.join(d, "client.key"))
        self.assertEqual(status, 401, out)
        body = harness.status_body(self, out)
        self.assertEqual(body["reason"], "Unauthorized")
        self.assertEqual(body["message"], "Unauthorized")
        # Not even the public paths: the credentials presented are bad.
        status, _, _ = harness.https_request(
            self.server, "GET", "/version", None, {}, cafile=self.creds.ca,
            cert=os.path.join(d, "client.crt"),
            key=os.path.join(d, "client.key"))
        self.assertEqual(status, 401)
        self.assertEqual(self.pod_names(), [])


if __name__ == "__main__":
    unittest.main()
