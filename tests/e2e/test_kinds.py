"""Every built-in kind through kubectl: discovery lists the resources of a
real 1.33 cluster that are served so far, and for each kind a sample
manifest (manifests/kinds/<plural>.<group>.yaml) applies, reads back as a
Table, YAML and `describe`, and deletes; the imperative `create`
commands of the configuration kinds work."""

import base64
import glob
import json
import os
import subprocess
import unittest

import harness

KINDS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                         "manifests", "kinds")

# Samples the apply/get/delete walk does not fit: computed reads
# (componentstatuses, which test_component_statuses checks) and create-only
# kinds (tokenreviews, which test_services.py checks).
NOT_WALKED = {"componentstatuses.core",
              "tokenreviews.authentication.k8s.io"}

# `kubectl api-resources -o name` of a real v1.33 cluster with
# metrics-server (metrics.k8s.io, which `kubectl top` reads).
EXPECTED_RESOURCES = """
bindings componentstatuses configmaps endpoints events limitranges
namespaces nodes
persistentvolumeclaims persistentvolumes pods podtemplates
replicationcontrollers resourcequotas secrets serviceaccounts services
mutatingwebhookconfigurations.admissionregistration.k8s.io
validatingadmissionpolicies.admissionregistration.k8s.io
validatingadmissionpolicybindings.admissionregistration.k8s.io
validatingwebhookconfigurations.admissionregistration.k8s.io
customresourcedefinitions.apiextensions.k8s.io
apiservices.apiregistration.k8s.io
controllerrevisions.apps daemonsets.apps deployments.apps replicasets.apps
statefulsets.apps
selfsubjectreviews.authentication.k8s.io
tokenreviews.authentication.k8s.io
localsubjectaccessreviews.authorization.k8s.io
selfsubjectaccessreviews.authorization.k8s.io
selfsubjectrulesreviews.authorization.k8s.io
subjectaccessreviews.authorization.k8s.io
horizontalpodautoscalers.autoscaling
cronjobs.batch jobs.batch
certificatesigningrequests.certificates.k8s.io
leases.coordination.k8s.io
nodes.metrics.k8s.io pods.metrics.k8s.io
endpointslices.discovery.k8s.io
events.events.k8s.io
flowschemas.flowcontrol.apiserver.k8s.io
prioritylevelconfigurations.flowcontrol.apiserver.k8s.io
ingressclasses.networking.k8s.io ingresses.networking.k8s.io
ipaddresses.networking.k8s.io networkpolicies.networking.k8s.io
servicecidrs.networking.k8s.io
runtimeclasses.node.k8s.io
poddisruptionbudgets.policy
clusterrolebindings.rbac.authorization.k8s.io
clusterroles.rbac.authorization.k8s.io
rolebindings.rbac.authorization.k8s.io roles.rbac.authorization.k8s.io
priorityclasses.scheduling.k8s.io
csidrivers.storage.k8s.io csinodes.storage.k8s.io
csistoragecapacities.storage.k8s.io storageclasses.storage.k8s.io
volumeattachments.storage.k8s.io
""".split()


# Samples whose second client-side apply always sends a patch against a real
# server too, so kubectl says "configured": a PDB's selector has patch
# strategy "replace" (the diff always carries it); a StatefulSet's claim
# templates, a policy's resourceRules and a webhook's rules are atomic lists
# whose elements the server defaults (volumeMode, scope), so they never equal
# the manifest's; a Secret's stringData is folded into data and never read
# back, so the patch always carries it.
REAPPLY_DIFFERS = {"poddisruptionbudgets.policy", "secrets.core",
                   "statefulsets.apps",
                   "validatingadmissionpolicies.admissionregistration.k8s.io",
                   "validatingwebhookconfigurations."
                   "admissionregistration.k8s.io"}


# kubectl's describers for these kinds read a fixed pre-GA version
# (IPAddress from 1.27, ServiceCIDR from 1.29, both v1 from 1.33) that a
# 1.33 server does not serve by default, so those kubectl versions fail
# against a real cluster too, with NotFound.
DESCRIBER_READS_PRE_GA = {"ipaddresses.networking.k8s.io": range(27, 33),
                          "servicecidrs.networking.k8s.io": range(29, 33)}


def samples():
    for path in sorted(glob.glob(os.path.join(KINDS_DIR, "*.yaml"))):
        name = os.path.basename(path)[:-len(".yaml")]
        if name not in NOT_WALKED:
            yield name, path


# What a server of an older version does not serve yet: resource -> the
# first minor version that serves it (by default).
SERVED_FROM = {
    "ipaddresses.networking.k8s.io": 33,
    "servicecidrs.networking.k8s.io": 33,
    "validatingadmissionpolicies.admissionregistration.k8s.io": 30,
    "validatingadmissionpolicybindings.admissionregistration.k8s.io": 30,
}


class ServedVersionTest(harness.ServerTestCase):
    """A server started as the version of the kubectl under test serves
    that version's API, as the dispatcher in /usr/bin/kubectl expects."""

    server_args = ("--kubernetes-version", harness.kubectl_version())

    def test_api_resources_and_versions_of_the_version(self):
        minor = harness.minor(harness.kubectl_version())
        p = self.kubectl.run("version", "-o", "json")
        self.assertEqual(json.loads(p.stdout)["serverVersion"]["gitVersion"],
                         "v1.%d.0" % minor)
        p = self.kubectl.run("api-resources", "-o", "name")
        expected = [r for r in EXPECTED_RESOURCES
                    if SERVED_FROM.get(r, 0) <= minor]
        self.assertEqual(sorted(p.stdout.split()), sorted(expected))
        p = self.kubectl.run("api-versions")
        versions = p.stdout.split()
        self.assertIn("authentication.k8s.io/v1beta1", versions)
        self.assertIn("networking.k8s.io/v1", versions)
        p = self.kubectl.run("get", "--raw", "/apis/authentication.k8s.io/v1")
        names = [r["name"] for r in json.loads(p.stdout)["resources"]]
        self.assertEqual("selfsubjectreviews" in names, minor >= 28)
        # API Priority and Fairness: v1 from 1.29, v1beta3 until 1.31,
        # v1beta2 until 1.28; the bootstrap configuration in the preferred
        # version, its FlowSchemas in matching order.
        flow = sorted(v.split("/")[1] for v in versions
                      if v.startswith("flowcontrol.apiserver.k8s.io/"))
        self.assertEqual(flow, sorted(
            (["v1"] if minor >= 29 else []) +
            (["v1beta3"] if minor <= 31 else []) +
            (["v1beta2"] if minor <= 28 else [])))
        rows = harness.wait_until(
            lambda: self.kubectl.run("get", "flowschemas").stdout
            .splitlines()[1:], 10)
        self.assertEqual(rows[0].split()[:3], ["exempt", "exempt", "1"])
        precedences = [int(r.split()[2]) for r in rows]
        self.assertEqual(precedences, sorted(precedences))
        self.assertGreater(len(rows), 10)
        if minor <= 28:
            p = self.kubectl.run(
                "get", "prioritylevelconfigurations.v1beta2.flowcontrol."
                "apiserver.k8s.io", "workload-low", "-o", "json")
            limited = json.loads(p.stdout)["spec"]["limited"]
            self.assertEqual(limited["assuredConcurrencyShares"], 100)
            self.assertNotIn("nominalConcurrencyShares", limited)
            self.assertIn("is deprecated in v1.26+", p.stderr)
        # A kind the version does not serve is not there to create.
        if minor < 33:
            p = self.kubectl.run("get", "servicecidrs", check=False)
            self.assertEqual(p.returncode, 1)
            self.assertIn('the server doesn\'t have a resource type '
                          '"servicecidrs"', p.stderr)


class KindsTest(harness.ServerTestCase):

    def test_api_resources(self):
        p = self.kubectl.run("api-resources", "-o", "name")
        self.assertEqual(sorted(p.stdout.split()), sorted(EXPECTED_RESOURCES))

    def test_every_sample_applies_reads_and_deletes(self):
        for name, path in samples():
            plural, _, group = name.partition(".")
            resource = plural if group == "core" else name
            with self.subTest(resource=resource):
                p = self.kubectl.run("apply", "-f", path)
                lines = p.stdout.splitlines()
                self.assertTrue(lines, name)
                for line in lines:
                    self.assertTrue(line.endswith(" created"), line)
                objects = [line.split(" ")[0] for line in lines]
                p = self.kubectl.run("get", "-f", path)
                table = p.stdout.splitlines()
                self.assertTrue(table[0].startswith("NAME"), p.stdout)
                self.assertEqual(len(table), 1 + len(objects), p.stdout)
                p = self.kubectl.run("get", "-f", path, "-o", "wide")
                self.assertTrue(p.stdout.startswith("NAME"), p.stdout)
                p = self.kubectl.run("get", "-f", path, "-o", "json")
                got = json.loads(p.stdout)
                items = got["items"] if got["kind"] == "List" else [got]
                for item in items:
                    self.assertTrue(item["metadata"]["uid"])
                    self.assertTrue(item["metadata"]["resourceVersion"])
                kubectl_minor = harness.minor(harness.kubectl_version())
                if kubectl_minor in DESCRIBER_READS_PRE_GA.get(name, ()):
                    p = self.kubectl.run("describe", "-f", path, check=False)
                    self.assertEqual(p.returncode, 1, p.stdout)
                    self.assertIn("could not find the requested resource",
                                  p.stderr)
                else:
                    p = self.kubectl.run("describe", "-f", path)
                    self.assertIn("Name:", p.stdout)
                # A second apply changes nothing.
                p = self.kubectl.run("apply", "-f", path)
                for line in p.stdout.splitlines():
                    if name in REAPPLY_DIFFERS:
                        self.assertTrue(line.endswith(" configured"), line)
                    else:
                        self.assertTrue(line.endswith(" unchanged"), line)
                p = self.kubectl.run("delete", "-f", path, "--wait=false")
                self.assertEqual(len(p.stdout.splitlines()), len(objects))
                p = self.kubectl.run("get", "-f", path, check=False)
                self.assertEqual(p.returncode, 1, p.stdout)
                self.assertIn("NotFound", p.stderr)

    def test_component_statuses(self):
        p = self.kubectl.run("get", "componentstatuses")
        self.assertEqual(p.stderr,
                         "Warning: v1 ComponentStatus is deprecated in v1.19+\n")
        header, *rows = p.stdout.splitlines()
        self.assertEqual(header.split(), ["NAME", "STATUS", "MESSAGE", "ERROR"])
        self.assertEqual(sorted(r.split() for r in rows), [
            ["controller-manager", "Healthy", "ok"],
            ["etcd-0", "Healthy", "ok"],
            ["scheduler", "Healthy", "ok"]])
        p = self.kubectl.run("get", "cs", "scheduler", "-o", "json")
        cs = json.loads(p.stdout)
        self.assertEqual(cs["conditions"], [
            {"type": "Healthy", "status": "True", "message": "ok"}])
        p = self.kubectl.run("get", "cs", "kube-proxy", check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn("Error from server: Component not found: kube-proxy",
                      p.stderr)

    def test_local_api_services(self):
        def listed():
            p = self.kubectl.run("get", "apiservices")
            return {r.split()[0]: r.split()[1:3]
                    for r in p.stdout.splitlines()[1:]}
        self.assertTrue(harness.wait_until(
            lambda: "v1.apps" in listed(), 10))
        rows = listed()
        for name in ("v1.", "v1.apps", "v2.autoscaling", "v1.policy",
                     "v1.flowcontrol.apiserver.k8s.io"):
            self.assertEqual(rows.get(name), ["Local", "True"], name)
        p = self.kubectl.run("get", "apiservice", "v1.apps", "-o", "json")
        spec = json.loads(p.stdout)["spec"]
        self.assertEqual((spec["groupPriorityMinimum"],
                          spec["versionPriority"]), (17800, 15))

    def test_apf_bootstrap_configuration(self):
        # `kubectl get flowschemas` and `kubectl get
        # prioritylevelconfigurations` of a fresh 1.33 cluster (other tests
        # of this server may add their own objects).
        schemas = [
            ["exempt", "exempt", "1", "<none>", "False"],
            ["probes", "exempt", "2", "<none>", "False"],
            ["system-leader-election", "leader-election", "100", "ByUser",
             "False"],
            ["endpoint-controller", "workload-high", "150", "ByUser",
             "False"],
            ["workload-leader-election", "leader-election", "200", "ByUser",
             "False"],
            ["system-node-high", "node-high", "400", "ByUser", "False"],
            ["system-nodes", "system", "500", "ByUser", "False"],
            ["kube-controller-manager", "workload-high", "800",
             "ByNamespace", "False"],
            ["kube-scheduler", "workload-high", "800", "ByNamespace",
             "False"],
            ["kube-system-service-accounts", "workload-high", "900",
             "ByNamespace", "False"],
            ["service-accounts", "workload-low", "9000", "ByUser", "False"],
            ["global-default", "global-default", "9900", "ByUser", "False"],
            ["catch-all", "catch-all", "10000", "ByUser", "False"],
        ]
        levels = [
            ["catch-all", "Limited", "5", "<none>", "<none>", "<none>"],
            ["exempt", "Exempt", "<none>", "<none>", "<none>", "<none>"],
            ["global-default", "Limited", "20", "128", "6", "50"],
            ["leader-election", "Limited", "10", "16", "4", "50"],
            ["node-high", "Limited", "40", "64", "6", "50"],
            ["system", "Limited", "30", "64", "6", "50"],
            ["workload-high", "Limited", "40", "128", "6", "50"],
            ["workload-low", "Limited", "100", "128", "6", "50"],
        ]

        def table(resource, names):
            p = self.kubectl.run("get", resource)
            header, *rows = p.stdout.splitlines()
            rows = [r.split() for r in rows]
            return header.split(), [r for r in rows if r[0] in names]

        names = {s[0] for s in schemas}
        # MISSINGPL comes from the Dangling condition, written after the
        # objects. The rows come by matchingPrecedence, then name, as
        # kube-apiserver prints them and as listed above.
        self.assertTrue(harness.wait_until(
            lambda: [r[:4] + r[5:] for r in
                     table("flowschemas", names)[1]] == schemas, 10),
            self.kubectl.run("get", "flowschemas").stdout)
        header, _ = table("flowschemas", names)
        self.assertEqual(header, ["NAME", "PRIORITYLEVEL",
                                  "MATCHINGPRECEDENCE", "DISTINGUISHERMETHOD",
                                  "AGE", "MISSINGPL"])
        header, rows = table("prioritylevelconfigurations",
                             {lv[0] for lv in levels})
        self.assertEqual(header, ["NAME", "TYPE", "NOMINALCONCURRENCYSHARES",
                                  "QUEUES", "HANDSIZE", "QUEUELENGTHLIMIT",
                                  "AGE"])
        self.assertEqual([r[:6] for r in rows], levels)

        p = self.kubectl.run("get", "flowschema", "probes", "-o", "json",
                             "--show-managed-fields")
        probes = json.loads(p.stdout)
        self.assertEqual(probes["metadata"]["annotations"],
                         {"apf.kubernetes.io/autoupdate-spec": "true"})
        self.assertEqual(probes["spec"]["rules"], [{
            "subjects": [
                {"kind": "Group", "group": {"name": "system:unauthenticated"}},
                {"kind": "Group", "group": {"name": "system:authenticated"}}],
            "nonResourceRules": [{
                "verbs": ["get"],
                "nonResourceURLs": ["/healthz", "/readyz", "/livez"]}]}])
        dangling = probes["status"]["conditions"][0]
        self.assertEqual((dangling["type"], dangling["status"],
                          dangling["reason"], dangling["message"]),
                         ("Dangling", "False", "Found",
                          "This FlowSchema references the "
                          "PriorityLevelConfiguration object named "
                          "\"exempt\" and it exists"))
        managers = {m["manager"] for m in probes["metadata"]["managedFields"]}
        self.assertEqual(managers,
                         {"api-priority-and-fairness-config-producer-v1",
                          "api-priority-and-fairness-config-consumer-v1"})
        p = self.kubectl.run("get", "prioritylevelconfiguration",
                             "workload-low", "-o", "json")
        self.assertEqual(json.loads(p.stdout)["spec"], {
            "type": "Limited",
            "limited": {"nominalConcurrencyShares": 100,
                        "lendablePercent": 90,
                        "limitResponse": {"type": "Queue", "queuing": {
                            "queues": 128, "handSize": 6,
                            "queueLengthLimit": 50}}}})

    def test_system_priority_classes_exist(self):
        p = self.kubectl.run("get", "priorityclasses")
        header, *rows = p.stdout.splitlines()
        self.assertEqual(header.split()[:3], ["NAME", "VALUE",
                                              "GLOBAL-DEFAULT"])
        # Other tests of this server add their own classes.
        system = [r.split()[:3] for r in rows if r.startswith("system-")]
        self.assertEqual(system,
                         [["system-cluster-critical", "2000000000", "false"],
                          ["system-node-critical", "2000001000", "false"]])

    def test_subject_access_reviews_answer_for_the_spec_user(self):
        review = {"apiVersion": "authorization.k8s.io/v1",
                  "kind": "SubjectAccessReview",
                  "spec": {"user": "jane",
                           "resourceAttributes": {"verb": "list",
                                                  "resource": "pods",
                                                  "namespace": "default"}}}
        p = self.kubectl.run("create", "-f", "-", "-o", "json",
                             input=json.dumps(review))
        self.assertEqual(json.loads(p.stdout)["status"], {"allowed": True})
        review["kind"] = "LocalSubjectAccessReview"
        review["spec"]["resourceAttributes"]["namespace"] = "kube-system"
        p = self.kubectl.run("create", "-f", "-", "-o", "json",
                             input=json.dumps(review), check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn('spec.resourceAttributes.namespace: Invalid value: '
                      '"kube-system": must match metadata.namespace',
                      p.stderr)

    def test_quota_counts_and_refuses(self):
        self.kubectl.run("create", "namespace", "quota-team")
        self.kubectl.run("create", "quota", "small", "-n", "quota-team",
                         "--hard=pods=2,configmaps=2")
        self.assertTrue(harness.wait_until(
            lambda: "configmaps: 1/2, pods: 0/2" in self.kubectl.run(
                "get", "quota", "small", "-n", "quota-team").stdout, 10))
        for name in ("a", "b"):
            self.kubectl.run("run", name, "--image=nginx", "-n", "quota-team")
        p = self.kubectl.run("run", "c", "--image=nginx", "-n", "quota-team",
                             check=False)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr, 'Error from server (Forbidden): pods "c" '
                         'is forbidden: exceeded quota: small, requested: '
                         'pods=1, used: pods=2, limited: pods=2\n')
        p = self.kubectl.run("describe", "quota", "small", "-n", "quota-team")
        self.assertIn("pods        2     2", p.stdout)
        # A deleted pod's share comes back.
        self.kubectl.run("delete", "pod", "a", "-n", "quota-team",
                         "--grace-period=0", "--force")
        self.assertTrue(harness.wait_until(
            lambda: "pods: 1/2" in self.kubectl.run(
                "get", "quota", "small", "-n", "quota-team").stdout, 10))
        self.kubectl.run("run", "c", "--image=nginx", "-n", "quota-team")
        self.kubectl.run("delete", "namespace", "quota-team", "--wait=false")

    def test_limit_range_defaults_and_refuses(self):
        self.kubectl.run("create", "namespace", "limited")
        limits = {"apiVersion": "v1", "kind": "LimitRange",
                  "metadata": {"name": "cpu", "namespace": "limited"},
                  "spec": {"limits": [{"type": "Container",
                                       "default": {"cpu": "500m"},
                                       "max": {"cpu": "800m"}}]}}
        self.kubectl.run("apply", "-f", "-", input=json.dumps(limits))
        p = self.kubectl.run("get", "limitrange", "cpu", "-n", "limited",
                             "-o", "json")
        item = json.loads(p.stdout)["spec"]["limits"][0]
        self.assertEqual(item["defaultRequest"], {"cpu": "500m"})
        self.kubectl.run("run", "web", "--image=nginx", "-n", "limited")
        p = self.kubectl.run("get", "pod", "web", "-n", "limited", "-o",
                             "json")
        pod = json.loads(p.stdout)
        self.assertEqual(pod["spec"]["containers"][0]["resources"],
                         {"limits": {"cpu": "500m"},
                          "requests": {"cpu": "500m"}})
        self.assertEqual(
            pod["metadata"]["annotations"]["kubernetes.io/limit-ranger"],
            "LimitRanger plugin set: cpu request for container web; cpu "
            "limit for container web")
        big = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": "big", "namespace": "limited"},
               "spec": {"containers": [{"name": "big", "image": "nginx",
                                        "resources": {"limits":
                                                      {"cpu": "1500m"}}}]}}
        p = self.kubectl.run("apply", "-f", "-", input=json.dumps(big),
                             check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn('pods "big" is forbidden: maximum cpu usage per '
                      'Container is 800m, but limit is 1500m\n', p.stderr)
        self.kubectl.run("delete", "namespace", "limited", "--wait=false")

    def test_create_the_other_imperative_kinds(self):
        # secret tls, from a key pair made here.
        key = os.path.join(self.workdir, "tls.key")
        crt = os.path.join(self.workdir, "tls.crt")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec",
                        "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                        "-keyout", key, "-out", crt, "-days", "1",
                        "-subj", "/CN=web.example.com"],
                       check=True, capture_output=True)
        p = self.kubectl.run("create", "secret", "tls", "web-tls",
                             "--cert=" + crt, "--key=" + key)
        self.assertEqual(p.stdout, "secret/web-tls created\n")
        p = self.kubectl.run("get", "secret", "web-tls")
        self.assertRegex(p.stdout,
                         r"(?m)^web-tls +kubernetes.io/tls +2 +\d+s$")
        p = self.kubectl.run("create", "secret", "docker-registry", "pull",
                             "--docker-server=registry.example.com",
                             "--docker-username=me", "--docker-password=pw")
        self.assertEqual(p.stdout, "secret/pull created\n")
        p = self.kubectl.run("get", "secret", "pull", "-o",
                             "jsonpath={.type}")
        self.assertEqual(p.stdout, "kubernetes.io/dockerconfigjson")
        p = self.kubectl.run("get", "secret", "pull", "-o",
                             "jsonpath={.data.\\.dockerconfigjson}")
        auths = json.loads(base64.b64decode(p.stdout))["auths"]
        self.assertEqual(auths["registry.example.com"]["username"], "me")
        # A tls secret without its key is refused with the real cause.
        p = self.kubectl.run("create", "-f", "-", check=False, input=json.dumps(
            {"apiVersion": "v1", "kind": "Secret",
             "metadata": {"name": "half"}, "type": "kubernetes.io/tls",
             "data": {"tls.crt": ""}}))
        self.assertEqual(p.returncode, 1)
        self.assertIn('Secret "half" is invalid: data[tls.key]: Required '
                      'value', p.stderr)

        p = self.kubectl.run("create", "service", "nodeport", "np",
                             "--tcp=80:8080")
        self.assertEqual(p.stdout, "service/np created\n")
        p = self.kubectl.run("get", "service", "np")
        self.assertRegex(p.stdout, r"(?m)^np +NodePort +10\.\d+\.\d+\.\d+ "
                         r"+<none> +80:3\d{4}/TCP +\d+s$")
        p = self.kubectl.run("create", "service", "nodeport", "taken",
                             "--tcp=80:8080", "--node-port=30080")
        self.assertEqual(p.stdout, "service/taken created\n")
        p = self.kubectl.run("create", "service", "nodeport", "again",
                             "--tcp=80:8080", "--node-port=30080",
                             check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn('Service "again" is invalid: spec.ports[0].nodePort: '
                      'Invalid value: 30080: provided port is already '
                      'allocated', p.stderr)

        p = self.kubectl.run("create", "clusterrole", "node-reader",
                             "--verb=get,list,watch", "--resource=nodes")
        self.assertEqual(
            p.stdout,
            "clusterrole.rbac.authorization.k8s.io/node-reader created\n")
        p = self.kubectl.run("create", "clusterrolebinding", "ops-reads",
                             "--clusterrole=node-reader", "--group=ops")
        self.assertEqual(
            p.stdout, "clusterrolebinding.rbac.authorization.k8s.io/"
            "ops-reads created\n")
        p = self.kubectl.run("get", "clusterrolebinding", "ops-reads", "-o",
                             "wide")
        header, row = p.stdout.splitlines()
        self.assertEqual(header.split()[:3], ["NAME", "ROLE", "AGE"])
        self.assertEqual(row.split()[1], "ClusterRole/node-reader")
        self.assertIn("ops", row.split())
        p = self.kubectl.run("describe", "clusterrole", "node-reader")
        self.assertRegex(p.stdout, r"(?m)^  nodes +\[\] +\[\] +"
                         r"\[get list watch\]$")
        for kind, name in (("secret", "web-tls"), ("secret", "pull"),
                           ("service", "np"), ("service", "taken"),
                           ("clusterrolebinding", "ops-reads"),
                           ("clusterrole", "node-reader")):
            self.kubectl.run("delete", kind, name)

    def test_create_configmap_and_secret(self):
        p = self.kubectl.run("create", "configmap", "app",
                             "--from-literal=mode=fast",
                             "--from-literal=level=3")
        self.assertEqual(p.stdout, "configmap/app created\n")
        p = self.kubectl.run("get", "configmap", "app")
        header, row = p.stdout.splitlines()
        self.assertEqual(header.split(), ["NAME", "DATA", "AGE"])
        self.assertEqual(row.split()[:2], ["app", "2"])
        p = self.kubectl.run("create", "secret", "generic", "db",
                             "--from-literal=password=s3cret")
        self.assertEqual(p.stdout, "secret/db created\n")
        p = self.kubectl.run("get", "secret", "db", "-o",
                             "jsonpath={.data.password}")
        self.assertEqual(base64.b64decode(p.stdout), b"s3cret")
        p = self.kubectl.run("get", "secret", "db")
        header, row = p.stdout.splitlines()
        self.assertEqual(header.split(), ["NAME", "TYPE", "DATA", "AGE"])
        self.assertEqual(row.split()[:3], ["db", "Opaque", "1"])
        p = self.kubectl.run("get", "secrets",
                             "--field-selector=type=Opaque", "-o", "name")
        self.assertIn("secret/db", p.stdout.split())
        p = self.kubectl.run("create", "serviceaccount", "robot")
        self.assertEqual(p.stdout, "serviceaccount/robot created\n")
        p = self.kubectl.run("create", "role", "reader", "--verb=get,list",
                             "--resource=pods")
        self.assertEqual(p.stdout,
                         "role.rbac.authorization.k8s.io/reader created\n")
        p = self.kubectl.run("create", "rolebinding", "robot-reads",
                             "--role=reader",
                             "--serviceaccount=default:robot")
        self.assertEqual(
            p.stdout,
            "rolebinding.rbac.authorization.k8s.io/robot-reads created\n")
        p = self.kubectl.run("get", "rolebinding", "robot-reads", "-o", "wide")
        header, row = p.stdout.splitlines()
        self.assertEqual(header.split()[:3], ["NAME", "ROLE", "AGE"])
        self.assertEqual(row.split()[1], "Role/reader")
        self.assertEqual(row.split()[-1], "default/robot")
        p = self.kubectl.run("create", "priorityclass", "high",
                             "--value=1000")
        self.assertEqual(p.stdout,
                         "priorityclass.scheduling.k8s.io/high created\n")
        # Priority admission: a pod of the class takes its value; a class
        # that does not exist is refused.
        self.kubectl.run("run", "important", "--image=nginx",
                         "--overrides={\"spec\":{\"priorityClassName\":"
                         "\"high\"}}")
        p = self.kubectl.run("get", "pod", "important", "-o",
                             "jsonpath={.spec.priority}")
        self.assertEqual(p.stdout, "1000")
        p = self.kubectl.run("run", "lost", "--image=nginx",
                             "--overrides={\"spec\":{\"priorityClassName\":"
                             "\"nope\"}}", check=False)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr, 'Error from server (Forbidden): pods "lost" '
                         'is forbidden: no PriorityClass with name nope was '
                         'found\n')
        self.kubectl.run("delete", "pod", "important", "--wait=false")
        p = self.kubectl.run("create", "poddisruptionbudget", "web",
                             "--selector=app=web", "--min-available=1")
        self.assertEqual(p.stdout,
                         "poddisruptionbudget.policy/web created\n")
        p = self.kubectl.run("create", "quota", "small", "--hard=pods=10")
        self.assertEqual(p.stdout, "resourcequota/small created\n")


if __name__ == "__main__":
    unittest.main()
