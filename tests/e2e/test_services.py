"""What the control plane does with Services and namespaces: a Service's
Endpoints and EndpointSlice follow the pods its selector picks (kubectl
expose), the `kubernetes` Service's endpoints name the API server, and
every namespace gets the ServiceAccount `default` and the ConfigMap
`kube-root-ca.crt` holding the cluster CA, and `kubectl create token` gives
a token kubectl can log in with until its account goes."""

import base64
import json
import os
import re
import unittest

import harness


class ServicesTest(harness.ServerTestCase):

    def addresses(self, name):
        p = self.kubectl.run("get", "endpoints", name, "-o", "json",
                             check=False)
        if p.returncode != 0:
            return []
        subsets = json.loads(p.stdout).get("subsets") or []
        return sorted(a["ip"] for s in subsets
                      for a in s.get("addresses") or [])

    def pod_ips(self, selector):
        p = self.kubectl.run("get", "pods", "-l", selector, "-o", "json")
        return sorted(pod["status"]["podIP"]
                      for pod in json.loads(p.stdout)["items"]
                      if pod["status"].get("podIP")
                      and "deletionTimestamp" not in pod["metadata"])

    def test_expose_deployment_gets_endpoints_that_follow_the_pods(self):
        self.kubectl.run("create", "deployment", "web", "--image=nginx",
                         "--replicas=3")
        p = self.kubectl.run("expose", "deployment", "web", "--port=80")
        self.assertEqual(p.stdout, "service/web exposed\n")
        self.assertTrue(harness.wait_until(
            lambda: len(self.addresses("web")) == 3, 30),
            self.addresses("web"))
        self.assertEqual(self.addresses("web"), self.pod_ips("app=web"))

        p = self.kubectl.run("get", "endpoints", "web")
        header, row = p.stdout.splitlines()
        self.assertEqual(header.split(), ["NAME", "ENDPOINTS", "AGE"])
        name, endpoints = row.split()[:2]
        self.assertEqual(name, "web")
        self.assertEqual(sorted(e.split(":")[0]
                                for e in endpoints.split(",")),
                         self.addresses("web"))
        self.assertTrue(all(e.endswith(":80") for e in endpoints.split(",")))
        if harness.minor(harness.kubectl_version()) >= 33:
            self.assertIn("v1 Endpoints is deprecated", p.stderr)

        p = self.kubectl.run("get", "endpointslices",
                             "-l", "kubernetes.io/service-name=web",
                             "-o", "json")
        slices = json.loads(p.stdout)["items"]
        self.assertEqual(len(slices), 1)
        slice_ = slices[0]
        self.assertTrue(slice_["metadata"]["name"].startswith("web-"))
        self.assertEqual(slice_["addressType"], "IPv4")
        self.assertEqual(slice_["ports"],
                         [{"name": "", "port": 80, "protocol": "TCP"}])
        self.assertEqual(
            sorted(e["targetRef"]["name"] for e in slice_["endpoints"]),
            sorted(self.kubectl.run("get", "pods", "-l", "app=web", "-o",
                                    "jsonpath={.items[*].metadata.name}")
                   .stdout.split()))
        for e in slice_["endpoints"]:
            self.assertEqual(e["conditions"], {"ready": True, "serving": True,
                                               "terminating": False})
            self.assertTrue(e["nodeName"])
            self.assertTrue(e["zone"])
        owner = slice_["metadata"]["ownerReferences"][0]
        self.assertEqual((owner["kind"], owner["name"], owner["controller"]),
                         ("Service", "web", True))

        # Deleting a pod moves the addresses to its replacement.
        gone = self.kubectl.run("get", "pods", "-l", "app=web", "-o",
                                "jsonpath={.items[0].status.podIP}").stdout
        self.kubectl.run("delete", "pods", "-l", "app=web",
                         "--field-selector=status.podIP=" + gone,
                         "--wait=false")
        self.assertTrue(harness.wait_until(
            lambda: (gone not in self.addresses("web")
                     and len(self.addresses("web")) == 3
                     and self.addresses("web") == self.pod_ips("app=web")),
            30), self.addresses("web"))

        # The Service goes, and its Endpoints and slices with it.
        self.kubectl.run("delete", "service", "web")
        self.assertTrue(harness.wait_until(
            lambda: self.kubectl.run(
                "get", "endpointslices", "-l",
                "kubernetes.io/service-name=web", "-o", "name").stdout == "",
            30))
        p = self.kubectl.run("get", "endpoints", "web", check=False)
        self.assertEqual(p.returncode, 1)
        self.kubectl.run("delete", "deployment", "web")

    def test_load_balancer_gets_an_elb_hostname(self):
        self.kubectl.run("create", "service", "loadbalancer", "lb",
                         "--tcp=80:8080")

        def external():
            row = self.kubectl.run("get", "service", "lb").stdout
            return row.splitlines()[1].split()[3]

        self.assertTrue(harness.wait_until(
            lambda: external().endswith(".us-east-1.elb.amazonaws.com"), 10),
            external())
        p = self.kubectl.run("get", "service", "lb", "-o",
                             "jsonpath={.spec.ports[0].nodePort}")
        self.assertTrue(30000 <= int(p.stdout) <= 32767, p.stdout)
        p = self.kubectl.run("describe", "service", "lb")
        self.assertIn("LoadBalancer Ingress:", p.stdout)
        self.assertIn("EnsuredLoadBalancer", p.stdout)
        self.kubectl.run("delete", "service", "lb")

    def test_kubernetes_service_endpoints_name_the_api_server(self):
        p = self.kubectl.run("get", "endpoints", "kubernetes", "-o", "json")
        subsets = json.loads(p.stdout)["subsets"]
        self.assertEqual(subsets[0]["ports"],
                         [{"name": "https", "port": 6443, "protocol": "TCP"}])
        ip = subsets[0]["addresses"][0]["ip"]
        p = self.kubectl.run("get", "pods", "-n", "kube-system", "-l",
                             "component=kube-apiserver", "-o",
                             "jsonpath={.items[0].status.hostIP}")
        self.assertEqual(ip, p.stdout)
        p = self.kubectl.run("get", "endpointslice", "kubernetes")
        self.assertEqual(p.stdout.splitlines()[1].split()[:4],
                         ["kubernetes", "IPv4", "6443", ip])

    def test_every_namespace_gets_default_account_and_root_ca(self):
        self.kubectl.run("create", "namespace", "team-a")
        self.assertTrue(harness.wait_until(
            lambda: self.kubectl.run("get", "serviceaccount", "default", "-n",
                                     "team-a", check=False).returncode == 0,
            10))
        p = self.kubectl.run("get", "serviceaccounts", "-n", "team-a")
        header, row = p.stdout.splitlines()
        self.assertEqual(header.split(), ["NAME", "SECRETS", "AGE"])
        self.assertEqual(row.split()[:2], ["default", "0"])
        self.assertTrue(harness.wait_until(
            lambda: self.kubectl.run("get", "configmap", "kube-root-ca.crt",
                                     "-n", "team-a",
                                     check=False).returncode == 0, 10))
        p = self.kubectl.run("get", "configmap", "kube-root-ca.crt", "-n",
                             "team-a", "-o", "jsonpath={.data.ca\\.crt}")
        with open(self.server.kubeconfig) as f:
            kubeconfig = f.read()
        ca = None
        for line in kubeconfig.splitlines():
            if "certificate-authority-data:" in line:
                ca = base64.b64decode(line.split(":", 1)[1].strip()).decode()
        self.assertEqual(p.stdout, ca)

        # Deleted, the account comes back.
        self.kubectl.run("delete", "serviceaccount", "default", "-n",
                         "team-a")
        self.assertTrue(harness.wait_until(
            lambda: self.kubectl.run("get", "serviceaccount", "default", "-n",
                                     "team-a", check=False).returncode == 0,
            10))
        self.kubectl.run("delete", "namespace", "team-a", "--wait=false")

    def test_create_token_logs_in_as_the_service_account(self):
        self.kubectl.run("create", "serviceaccount", "robot")
        token = self.kubectl.run("create", "token", "robot").stdout.strip()
        self.assertEqual(token.count("."), 2)
        creds = harness.Credentials(self.server.kubeconfig, self.workdir)
        kubeconfig = os.path.join(self.workdir, "robot.kubeconfig")
        url = "https://%s:%d" % (self.server.host, self.server.port)
        for args in (("set-cluster", "c", "--server=" + url,
                      "--certificate-authority=" + creds.ca,
                      "--embed-certs=true"),
                     ("set-credentials", "robot", "--token=" + token),
                     ("set-context", "robot", "--cluster=c", "--user=robot"),
                     ("use-context", "robot")):
            self.kubectl.run("config", "--kubeconfig=" + kubeconfig, *args)
        p = self.kubectl.run("--kubeconfig=" + kubeconfig, "auth", "whoami",
                             "-o", "jsonpath={.status.userInfo.username}")
        self.assertEqual(p.stdout, "system:serviceaccount:default:robot")

        # TokenReview says the same.
        review = {"apiVersion": "authentication.k8s.io/v1",
                  "kind": "TokenReview", "spec": {"token": token}}
        p = self.kubectl.run("create", "-f", "-", "-o", "json",
                             input=json.dumps(review))
        status = json.loads(p.stdout)["status"]
        self.assertTrue(status["authenticated"])
        self.assertEqual(status["user"]["username"],
                         "system:serviceaccount:default:robot")

        # Too short a token is refused with the real message.
        p = self.kubectl.run("create", "token", "robot", "--duration=10s",
                             check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn('spec.expirationSeconds: Invalid value: 10: may not '
                      'specify a duration less than 10 minutes', p.stderr)

        # Its account deleted, the token no longer logs in.
        self.kubectl.run("delete", "serviceaccount", "robot")
        p = self.kubectl.run("--kubeconfig=" + kubeconfig, "get", "pods",
                             check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn("Unauthorized", p.stderr)

    def test_kube_proxy_rules_of_a_node_name_the_pods(self):
        self.kubectl.run("create", "deployment", "rules", "--image=nginx",
                         "--replicas=2")
        self.kubectl.run("expose", "deployment", "rules", "--port=8080",
                         "--target-port=80", "--type=NodePort")
        self.assertTrue(harness.wait_until(
            lambda: len(self.addresses("rules")) == 2, 30))
        ips = self.pod_ips("app=rules")
        p = self.kubectl.run("get", "--raw",
                             "/api/v1/nodes/worker-1:10249/proxy/proxyMode")
        self.assertEqual(p.stdout, "iptables")
        p = self.kubectl.run("get", "--raw",
                             "/api/v1/nodes/worker-1:10249/proxy/iptables")
        rules = p.stdout
        self.assertTrue(rules.startswith("# Generated by iptables-save"))
        self.assertIn("\n*nat\n", rules)
        cluster_ip = self.kubectl.run(
            "get", "service", "rules", "-o",
            "jsonpath={.spec.clusterIP}").stdout
        node_port = self.kubectl.run(
            "get", "service", "rules", "-o",
            "jsonpath={.spec.ports[0].nodePort}").stdout
        chains = re.findall(
            r"-A KUBE-SERVICES -d %s/32 -p tcp -m comment --comment "
            r'"default/rules cluster IP" -m tcp --dport 8080 -j '
            r"(KUBE-SVC-[A-Z2-7]{16})\n" % re.escape(cluster_ip), rules)
        self.assertEqual(len(chains), 1, rules)
        for ip in ips:
            self.assertIn('--comment "default/rules -> %s:80"' % ip, rules)
            self.assertIn("-j DNAT --to-destination %s:80\n" % ip, rules)
        self.assertIn("--probability 0.50000000000", rules)
        self.assertRegex(rules, r'-A KUBE-NODEPORTS -p tcp -m comment '
                         r'--comment "default/rules" -m tcp --dport %s -j '
                         r"KUBE-EXT-" % node_port)
        # The API server's own Service, with kube-proxy's well-known chain.
        self.assertIn("-j KUBE-SVC-NPX46M4PTMTKRN6Y\n", rules)
        # Nothing listens on other ports of the node.
        p = self.kubectl.run("get", "--raw",
                             "/api/v1/nodes/worker-1:9999/proxy/", check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn("Error from server (ServiceUnavailable): error trying "
                      "to reach service: dial tcp ", p.stderr)


INGRESS_CLUSTER = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                               "manifests", "clusters", "ingress-nginx.yaml")


class IngressControllerTest(harness.ServerTestCase):
    """A cluster file that declares ingress-nginx: its IngressClass is the
    default, its controller runs as a Deployment behind a LoadBalancer
    Service, and an Ingress of its class shows that Service's address."""

    server_args = ("--cluster", INGRESS_CLUSTER)

    def jsonpath(self, *args):
        p = self.kubectl.run("get", *args, check=False)
        return p.stdout if p.returncode == 0 else ""

    def test_an_ingress_gets_the_controllers_address(self):
        p = self.kubectl.run("get", "ingressclass")
        self.assertRegex(p.stdout, r"(?m)^NAME +CONTROLLER +PARAMETERS +AGE$")
        self.assertRegex(p.stdout, r"(?m)^nginx +k8s.io/ingress-nginx +<none> ")
        self.assertTrue(harness.wait_until(
            lambda: self.jsonpath(
                "pods", "-n", "ingress-nginx", "-o",
                "jsonpath={.items[*].status.phase}") == "Running", 30))
        self.assertTrue(harness.wait_until(lambda: self.jsonpath(
            "service", "-n", "ingress-nginx", "ingress-nginx-controller",
            "-o", "jsonpath={.status.loadBalancer.ingress[0].hostname}"), 30))
        hostname = self.jsonpath(
            "service", "-n", "ingress-nginx", "ingress-nginx-controller", "-o",
            "jsonpath={.status.loadBalancer.ingress[0].hostname}")
        self.assertRegex(hostname, r"^a[0-9a-f]{31}-[1-9][0-9]{9}\."
                         r"us-east-1\.elb\.amazonaws\.com$")

        self.kubectl.run("create", "deployment", "web", "--image=nginx")
        self.kubectl.run("expose", "deployment", "web", "--port=80")
        p = self.kubectl.run("create", "ingress", "web",
                             "--rule=web.example.com/*=web:80")
        self.assertEqual(p.stdout, "ingress.networking.k8s.io/web created\n")
        # No --class: the default IngressClass is filled in on create.
        self.assertEqual(self.jsonpath(
            "ingress", "web", "-o", "jsonpath={.spec.ingressClassName}"),
            "nginx")
        self.assertTrue(harness.wait_until(lambda: self.jsonpath(
            "ingress", "web", "-o",
            "jsonpath={.status.loadBalancer.ingress[0].hostname}") ==
            hostname, 30))
        p = self.kubectl.run("get", "ingress", "web")
        self.assertRegex(p.stdout,
                         r"(?m)^NAME +CLASS +HOSTS +ADDRESS +PORTS +AGE$")
        self.assertRegex(p.stdout, r"(?m)^web +nginx +web.example.com +" +
                         hostname.replace(".", r"\.") + r" +80 ")
        self.assertTrue(harness.wait_until(lambda: "Scheduled for sync" in
                                           self.kubectl.run(
                                               "describe", "ingress",
                                               "web").stdout, 30))
        p = self.kubectl.run("describe", "ingress", "web")
        self.assertRegex(p.stdout, r"Normal +Sync +.* +nginx-ingress-controller"
                         r" +Scheduled for sync")

        # An Ingress of a class nobody runs gets no address.
        self.kubectl.run("create", "ingress", "other", "--class=traefik",
                         "--rule=other.example.com/*=web:80")
        self.assertFalse(harness.wait_until(lambda: self.jsonpath(
            "ingress", "other", "-o",
            "jsonpath={.status.loadBalancer.ingress}"), 2))


if __name__ == "__main__":
    unittest.main()
