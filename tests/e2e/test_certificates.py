"""The "create a user" tutorial, end to end: a key and a signing request
made with openssl, sent as a CertificateSigningRequest, approved with
`kubectl certificate approve`, signed by the cluster CA, and the issued
certificate logs in as the user; a denied request gets no certificate and
a request that is not PEM is refused with kube-apiserver's message."""

import base64
import json
import os
import subprocess
import unittest

import harness


class CertificatesTest(harness.ServerTestCase):

    def openssl_request(self, name, subject):
        key = os.path.join(self.workdir, name + ".key")
        csr = os.path.join(self.workdir, name + ".csr")
        subprocess.run(["openssl", "genrsa", "-out", key, "2048"],
                       check=True, capture_output=True)
        subprocess.run(["openssl", "req", "-new", "-key", key, "-out", csr,
                        "-subj", subject], check=True, capture_output=True)
        with open(csr, "rb") as f:
            return key, base64.b64encode(f.read()).decode()

    def submit(self, name, request, usages=("client auth",)):
        manifest = {
            "apiVersion": "certificates.k8s.io/v1",
            "kind": "CertificateSigningRequest",
            "metadata": {"name": name},
            "spec": {"request": request,
                     "signerName": "kubernetes.io/kube-apiserver-client",
                     "expirationSeconds": 86400,
                     "usages": list(usages)},
        }
        return self.kubectl.run("apply", "-f", "-", check=False,
                                input=json.dumps(manifest))

    def condition(self, name):
        rows = self.kubectl.run("get", "csr", name).stdout.splitlines()
        return rows[1].split()[-1]

    def test_approved_request_gives_a_certificate_that_logs_in(self):
        key, request = self.openssl_request("myuser", "/CN=myuser/O=dev")
        p = self.submit("myuser", request)
        self.assertEqual(p.stdout, "certificatesigningrequest.certificates."
                         "k8s.io/myuser created\n", p.stderr)
        p = self.kubectl.run("get", "csr", "myuser")
        header, row = p.stdout.splitlines()
        self.assertEqual(header.split(), ["NAME", "AGE", "SIGNERNAME",
                                          "REQUESTOR", "REQUESTEDDURATION",
                                          "CONDITION"])
        self.assertEqual(row.split()[2:], [
            "kubernetes.io/kube-apiserver-client", "kubernetes-admin", "24h",
            "Pending"])

        p = self.kubectl.run("certificate", "approve", "myuser")
        self.assertEqual(p.stdout, "certificatesigningrequest.certificates."
                         "k8s.io/myuser approved\n")
        self.assertTrue(harness.wait_until(
            lambda: self.condition("myuser") == "Approved,Issued", 10),
            self.condition("myuser"))
        p = self.kubectl.run("get", "csr", "myuser", "-o",
                             "jsonpath={.status.certificate}")
        cert = os.path.join(self.workdir, "myuser.crt")
        with open(cert, "wb") as f:
            f.write(base64.b64decode(p.stdout))
        p = self.kubectl.run("get", "csr", "myuser", "-o", "json")
        approved = json.loads(p.stdout)["status"]["conditions"][0]
        self.assertEqual((approved["type"], approved["reason"]),
                         ("Approved", "KubectlApprove"))
        # kubectl sends lastUpdateTime; the server adds lastTransitionTime.
        for field in ("lastUpdateTime", "lastTransitionTime"):
            self.assertRegex(approved.get(field, ""),
                             r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")

        # The tutorial's kubeconfig: the new user beside the admin.
        kubeconfig = os.path.join(self.workdir, "myuser.kubeconfig")
        with open(self.server.kubeconfig) as f, open(kubeconfig, "w") as g:
            g.write(f.read())
        self.kubectl.run("config", "--kubeconfig=" + kubeconfig,
                         "set-credentials", "myuser",
                         "--client-key=" + key, "--client-certificate=" + cert,
                         "--embed-certs=true")
        context = self.kubectl.run("config", "--kubeconfig=" + kubeconfig,
                                   "current-context").stdout.strip()
        cluster = self.kubectl.run(
            "config", "--kubeconfig=" + kubeconfig, "view", "-o",
            "jsonpath={.contexts[?(@.name==\"%s\")].context.cluster}"
            % context).stdout
        self.kubectl.run("config", "--kubeconfig=" + kubeconfig,
                         "set-context", "myuser", "--cluster=" + cluster,
                         "--user=myuser")
        p = self.kubectl.run("--kubeconfig=" + kubeconfig, "--context=myuser",
                             "auth", "whoami", "-o", "json")
        user = json.loads(p.stdout)["status"]["userInfo"]
        self.assertEqual(user["username"], "myuser")
        self.assertIn("dev", user["groups"])

        # Approving again changes nothing; denying an approved one is
        # refused by kubectl itself.
        p = self.kubectl.run("certificate", "deny", "myuser", check=False)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr, 'error: certificate signing request "myuser" '
                         'is already Approved\n')
        self.kubectl.run("delete", "csr", "myuser")

    def test_denied_request_gets_no_certificate(self):
        _, request = self.openssl_request("nobody", "/CN=nobody")
        self.submit("nobody", request)
        p = self.kubectl.run("certificate", "deny", "nobody")
        self.assertEqual(p.stdout, "certificatesigningrequest.certificates."
                         "k8s.io/nobody denied\n")
        self.assertEqual(self.condition("nobody"), "Denied")
        p = self.kubectl.run("get", "csr", "nobody", "-o",
                             "jsonpath={.status.certificate}")
        self.assertEqual(p.stdout, "")
        p = self.kubectl.run("certificate", "approve", "nobody", check=False)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr, 'error: certificate signing request "nobody" '
                         'is already Denied\n')
        self.kubectl.run("delete", "csr", "nobody")

    def test_signer_refusal_is_a_failed_condition(self):
        _, request = self.openssl_request("web", "/CN=web")
        self.submit("web", request, usages=("server auth",))
        self.kubectl.run("certificate", "approve", "web")
        self.assertTrue(harness.wait_until(
            lambda: self.condition("web") == "Approved,Failed", 10),
            self.condition("web"))
        self.kubectl.run("delete", "csr", "web")

    def test_bad_request_is_refused(self):
        p = self.submit("bad", base64.b64encode(b"hello").decode())
        self.assertEqual(p.returncode, 1)
        self.assertIn('The CertificateSigningRequest "bad" is invalid: '
                      'spec.request: Invalid value: []byte{0x68, 0x65, 0x6c, '
                      '0x6c, 0x6f}: PEM block type must be CERTIFICATE '
                      'REQUEST', p.stderr)
        p = self.kubectl.run("get", "csr", "bad", check=False)
        self.assertEqual(p.returncode, 1)


if __name__ == "__main__":
    unittest.main()
