"""A Deployment that controllers keep running, through kubectl: create,
rollout status, get -o wide, apply with a rolling update seen by get -w,
a deleted pod replaced, scale, set image, rollout history / undo /
restart / pause / resume, describe, delete, bad input with
kube-apiserver's codes and messages, and a `get -w` that falls behind."""

import json
import os
import re
import subprocess
import time
import unittest

import harness

# kube's pod-template-hash: the decimal FNV-32a of the template, each digit
# mapped through the suffix alphabet ('0' -> '4' ... '9' -> 'f').
HASH_RE = r"[456789bcdf]{1,10}"
harness.PLACEHOLDERS.setdefault("hash", HASH_RE)

WEB_YAML = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: nginx
        image: %s
"""

CONDITIONS = """\
Conditions:
  Type           Status  Reason
  ----           ------  ------
  Available      True    MinimumReplicasAvailable
  Progressing    True    NewReplicaSetAvailable"""

ROLLOUT_DONE = 'deployment "web" successfully rolled out'
ROLLOUT_WAITING = [
    r'Waiting for deployment "web" rollout to finish: \d+ out of \d+ new '
    r"replicas have been updated\.\.\.",
    r'Waiting for deployment "web" rollout to finish: \d+ old replicas are '
    r"pending termination\.\.\.",
    r'Waiting for deployment "web" rollout to finish: \d+ of \d+ updated '
    r"replicas are available\.\.\.",
    r"Waiting for deployment spec update to be observed\.\.\.",
]


def write(workdir, name, text):
    path = os.path.join(workdir, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def check_rollout_status(testcase, stdout):
    """Every line but the last is one of kubectl's waiting lines; the last
    says the rollout succeeded."""
    lines = harness.normalise_lines(stdout)
    testcase.assertEqual(lines[-1], ROLLOUT_DONE, stdout)
    for line in lines[:-1]:
        testcase.assertTrue(
            any(re.fullmatch(p, line) for p in ROLLOUT_WAITING),
            "unexpected rollout status line %r in\n%s" % (line, stdout))


def jsonpath(kubectl, *args):
    return kubectl.run("get", *args).stdout


def pods_of(kubectl, selector="app=web", ns="default"):
    """{name: (phase, ip, node, deleting)} of the pods matching selector."""
    out = kubectl.run("get", "pods", "-n", ns, "-l", selector, "-o",
                      "json").stdout
    pods = {}
    for p in json.loads(out)["items"]:
        pods[p["metadata"]["name"]] = (
            p["status"].get("phase"), p["status"].get("podIP"),
            p["spec"].get("nodeName"),
            "deletionTimestamp" in p["metadata"])
    return pods


def running_pods(kubectl, selector="app=web", ns="default"):
    return {n: v for n, v in pods_of(kubectl, selector, ns).items()
            if v[0] == "Running" and not v[3]}


def replicasets(kubectl, ns="default"):
    """{name: (spec replicas, status replicas, revision annotation)}."""
    out = kubectl.run("get", "rs", "-n", ns, "-o", "json").stdout
    result = {}
    for rs in json.loads(out)["items"]:
        result[rs["metadata"]["name"]] = (
            rs["spec"].get("replicas"), rs["status"].get("replicas", 0),
            rs["metadata"].get("annotations", {}).get(
                "deployment.kubernetes.io/revision"))
    return result


class DeploymentLifecycleTest(harness.ServerTestCase):
    """Steps run in name order and share the Deployment web."""

    def test_01_create_and_rollout_status(self):
        p = self.kubectl.run("get", "deployments")  # warms discovery
        self.assertEqual(p.stderr,
                         "No resources found in default namespace.\n")
        start = time.monotonic()
        self.kubectl.run("version", "--client")
        kubectl_startup = time.monotonic() - start

        p = self.kubectl.run("create", "deployment", "web", "--image=nginx",
                             "--replicas=3")
        self.assertEqual(p.stdout, "deployment.apps/web created\n")
        created = time.monotonic()
        p = self.kubectl.run("rollout", "status", "deployment/web",
                             timeout=20)
        elapsed = time.monotonic() - created
        check_rollout_status(self, p.stdout)
        self.assertLess(elapsed, harness.budget(1.0) + kubectl_startup,
                        "rollout took %.2fs (kubectl alone %.2fs)" %
                        (elapsed, kubectl_startup))

    def test_02_get_wide(self):
        p = self.kubectl.run("get", "deploy,rs,pods", "-o", "wide")
        got = harness.match_golden(
            self, p.stdout, harness.golden("get_deploy_rs_pods_wide.txt"))
        self.assertEqual(got["hash_sel"], got["hash"])
        type(self).hash = got["hash"]
        nodes = re.findall(r"^pod/\S+ .* (\S+) +<none> +<none>$", p.stdout,
                           re.M)
        self.assertEqual(len(nodes), 3, p.stdout)
        self.assertNotIn("manage-1", nodes, "manage-1 is tainted NoSchedule")
        self.assertGreater(len(set(nodes)), 1, "pods spread over nodes")
        # Each pod's IP lies in its node's podCIDR.
        for name, (phase, ip, node, _) in pods_of(self.kubectl).items():
            cidr = self.kubectl.run("get", "node", node, "-o",
                                    "jsonpath={.spec.podCIDR}").stdout
            self.assertTrue(harness.in_cidr(ip, cidr), (name, ip, cidr))
            self.assertTrue(name.startswith("web-%s-" % got["hash"]), name)

    def test_02b_describe(self):
        p = self.kubectl.run("describe", "deployment", "web")
        want = harness.golden("describe_deployment_web.txt")
        if harness.minor(self.kubectl.version) < 30:
            # Older kubectl prints no node selectors and tolerations here.
            want = want.replace("  Node-Selectors:  <none>\n", "")
            want = want.replace("  Tolerations:     <none>\n", "")
        got = harness.match_golden(self, p.stdout, want)
        self.assertEqual(got["hash"], self.hash)

    def test_03_deleted_pod_is_replaced(self):
        before = running_pods(self.kubectl)
        self.assertEqual(len(before), 3, before)
        victim = sorted(before)[0]
        p = self.kubectl.run("delete", "pod", victim)
        self.assertEqual(p.stdout, 'pod "%s" deleted\n' % victim)
        after = harness.wait_until(
            lambda: (lambda r: r if len(r) == 3 and victim not in r else None)(
                running_pods(self.kubectl)), 10)
        self.assertTrue(after, pods_of(self.kubectl))
        new = set(after) - set(before)
        self.assertEqual(len(new), 1, (before, after))
        new_pod = new.pop()
        self.assertRegex(new_pod, r"^web-%s-%s$" %
                         (HASH_RE, harness.PLACEHOLDERS["suffix"]))
        old_ips = {v[1] for v in before.values()}
        self.assertNotIn(after[new_pod][1], old_ips, "the new pod has a new IP")

        p = self.kubectl.run("describe", "rs")
        lines = harness.normalise_lines(p.stdout)
        events = lines[lines.index("Events:"):]
        harness.match_golden(
            self, "\n".join(events[:3]),
            "Events:\n"
            "  Type    Reason            Age   From                   Message\n"
            "  ----    ------            ----  ----                   -------")
        row = harness.line_regex(
            "  Normal  SuccessfulCreate  <age>  replicaset-controller  "
            "Created pod: <any:pod>")
        created = []
        for line in events[3:]:
            m = row.match(line)
            self.assertTrue(m, "unexpected event row %r in\n%s" %
                            (line, p.stdout))
            created.append(m.group("pod"))
        self.assertEqual(sorted(created), sorted(set(before) | {new_pod}),
                         p.stdout)

    def test_04_scale(self):
        p = self.kubectl.run("scale", "deployment", "web", "--replicas=5")
        self.assertEqual(p.stdout, "deployment.apps/web scaled\n")
        self.assertTrue(harness.wait_until(
            lambda: len(running_pods(self.kubectl)) == 5, 10),
            pods_of(self.kubectl))
        p = self.kubectl.run("scale", "deployment", "web", "--replicas=2")
        self.assertEqual(p.stdout, "deployment.apps/web scaled\n")
        self.assertTrue(harness.wait_until(
            lambda: len(pods_of(self.kubectl)) == 2, 10),
            pods_of(self.kubectl))
        p = self.kubectl.run("get", "deployment", "web")
        harness.match_golden(self, p.stdout,
                             "NAME   READY   UP-TO-DATE   AVAILABLE   AGE\n"
                             "web    2/2     2            2           <age>")

    def test_05_set_image_and_history(self):
        p = self.kubectl.run("set", "image", "deployment/web",
                             "nginx=nginx:1.27")
        self.assertEqual(p.stdout, "deployment.apps/web image updated\n")
        p = self.kubectl.run("rollout", "status", "deployment/web",
                             timeout=20)
        check_rollout_status(self, p.stdout)
        p = self.kubectl.run("rollout", "history", "deployment/web")
        harness.match_golden(self, p.stdout,
                             "deployment.apps/web\n"
                             "REVISION  CHANGE-CAUSE\n"
                             "1         <none>\n"
                             "2         <none>")
        p = self.kubectl.run("rollout", "history", "deployment/web",
                             "--revision=2")
        lines = harness.normalise_lines(p.stdout)
        self.assertEqual(lines[0], "deployment.apps/web with revision #2")
        self.assertEqual(lines[1], "Pod Template:")
        self.assertRegex(lines[2], r"^  Labels:\s+app=web$")
        self.assertRegex(lines[3], r"^\s+pod-template-hash=%s$" % HASH_RE)
        self.assertIn("   nginx:", lines)
        self.assertIn("nginx:1.27", [l.split()[-1] for l in lines
                                     if l.strip().startswith("Image:")])
        rs = replicasets(self.kubectl)
        self.assertEqual(sorted(v[2] for v in rs.values()), ["1", "2"], rs)
        self.assertEqual(sorted(v[0] for v in rs.values()), [0, 2], rs)

    def test_06_undo(self):
        p = self.kubectl.run("rollout", "undo", "deployment/web")
        self.assertEqual(p.stdout, "deployment.apps/web rolled back\n")
        p = self.kubectl.run("rollout", "status", "deployment/web",
                             timeout=20)
        check_rollout_status(self, p.stdout)
        image = jsonpath(self.kubectl, "deployment", "web", "-o",
                         "jsonpath={.spec.template.spec.containers[0].image}")
        self.assertEqual(image, "nginx")
        p = self.kubectl.run("rollout", "history", "deployment/web")
        harness.match_golden(self, p.stdout,
                             "deployment.apps/web\n"
                             "REVISION  CHANGE-CAUSE\n"
                             "2         <none>\n"
                             "3         <none>")
        # The first ReplicaSet is reused, now at revision 3.
        rs = replicasets(self.kubectl)
        self.assertEqual(rs.get("web-" + self.hash), (2, 2, "3"), rs)

    def test_07_restart(self):
        p = self.kubectl.run("rollout", "restart", "deployment/web")
        self.assertEqual(p.stdout, "deployment.apps/web restarted\n")
        restarted = jsonpath(
            self.kubectl, "deployment", "web", "-o",
            "jsonpath={.spec.template.metadata.annotations"
            "['kubectl\\.kubernetes\\.io/restartedAt']}")
        self.assertRegex(restarted, r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")
        p = self.kubectl.run("rollout", "status", "deployment/web",
                             timeout=20)
        check_rollout_status(self, p.stdout)
        rs = replicasets(self.kubectl)
        self.assertEqual(len(rs), 3, rs)
        self.assertEqual(sorted(v[2] for v in rs.values()), ["2", "3", "4"])
        self.assertTrue(harness.wait_until(
            lambda: len(pods_of(self.kubectl)) == 2, 10),
            pods_of(self.kubectl))

    def test_08_pause_and_resume(self):
        p = self.kubectl.run("rollout", "pause", "deployment/web")
        self.assertEqual(p.stdout, "deployment.apps/web paused\n")
        p = self.kubectl.run("set", "image", "deployment/web",
                             "nginx=nginx:1.26")
        self.assertEqual(p.stdout, "deployment.apps/web image updated\n")
        time.sleep(0.5)
        self.assertEqual(len(replicasets(self.kubectl)), 3,
                         "a paused deployment starts no rollout")
        p = self.kubectl.run("rollout", "resume", "deployment/web")
        self.assertEqual(p.stdout, "deployment.apps/web resumed\n")
        p = self.kubectl.run("rollout", "status", "deployment/web",
                             timeout=20)
        check_rollout_status(self, p.stdout)
        rs = replicasets(self.kubectl)
        self.assertEqual(len(rs), 4, rs)
        self.assertEqual(max(int(v[2]) for v in rs.values()), 5, rs)

    def test_09_describe(self):
        p = self.kubectl.run("describe", "deployment", "web")
        lines = harness.normalise_lines(p.stdout)
        self.assertIn("Annotations:            deployment.kubernetes.io/"
                      "revision: 5", lines)
        self.assertIn("Replicas:               2 desired | 2 updated | 2 "
                      "total | 2 available | 0 unavailable", lines)
        start = lines.index("Conditions:")
        harness.match_golden(self, "\n".join(lines[start:start + 5]),
                             CONDITIONS)
        events = lines[lines.index("Events:") + 3:]
        # Scalings are listed one by one until nine differ; from the tenth
        # on, the event correlator counts them on one combined event, as
        # client-go does (a message seen again gets a row of its own if its
        # first showing went into the combined count).
        row = re.compile(
            r"  Normal  ScalingReplicaSet  (?P<age>.+)  deployment-controller  "
            r"(?P<combined>\(combined from similar events\): )?"
            r"Scaled (up|down) replica set web-%s from \d+ to \d+$" % HASH_RE)
        self.assertGreaterEqual(len(events), 8, p.stdout)
        combined = []
        for line in events:
            self.assertRegex(line, row)
            if row.match(line).group("combined"):
                combined.append(line)
                self.assertRegex(row.match(line).group("age"),
                                 r"\(x\d+ over ", line)
        self.assertLessEqual(len(combined), 1, p.stdout)

    def test_10_delete(self):
        p = self.kubectl.run("delete", "deployment", "web")
        self.assertEqual(p.stdout, 'deployment.apps "web" deleted\n')
        self.assertTrue(harness.wait_until(
            lambda: not replicasets(self.kubectl) and
            not pods_of(self.kubectl), 10))
        p = self.kubectl.run("get", "pods")
        self.assertEqual(p.stdout, "")
        self.assertEqual(p.stderr,
                         "No resources found in default namespace.\n")


class ApplyRollingUpdateTest(harness.ServerTestCase):
    """Client-side apply of a Deployment, then of a changed image while
    `kubectl get rs -w` watches the rolling update."""

    def test_apply_rolling_update(self):
        manifest = write(self.workdir, "web.yaml", WEB_YAML % "nginx:1.26")
        p = self.kubectl.run("apply", "-f", manifest)
        self.assertEqual(p.stdout, "deployment.apps/web created\n")
        p = self.kubectl.run("rollout", "status", "deployment/web",
                             timeout=20)
        check_rollout_status(self, p.stdout)
        first = list(replicasets(self.kubectl))
        self.assertEqual(len(first), 1, first)
        first = first[0]

        watch = self.kubectl.popen("get", "rs", "-w")
        try:
            time.sleep(1.0)  # list + watch established
            write(self.workdir, "web.yaml", WEB_YAML % "nginx:1.27")
            p = self.kubectl.run("apply", "-f", manifest)
            self.assertEqual(p.stdout, "deployment.apps/web configured\n")
            p = self.kubectl.run("rollout", "status", "deployment/web",
                                 timeout=30)
            check_rollout_status(self, p.stdout)
            rs = replicasets(self.kubectl)
            self.assertEqual(len(rs), 2, rs)
            second = [n for n in rs if n != first][0]
            self.assertRegex(second, "^web-%s$" % HASH_RE)
            self.assertEqual(rs[first][:2], (0, 0), rs)
            self.assertEqual(rs[second], (3, 3, "2"), rs)
            final = re.compile(r"^%s +0 +0 +0 +\S+$" % first, re.M)
            harness.wait_until(lambda: final.search(watch.output()), 5)
        finally:
            watch.stop()
        lines = harness.normalise_lines(watch.output())
        harness.match_golden(self, lines[0],
                             "NAME  DESIRED   CURRENT   READY   AGE")
        rows = []
        for line in lines[1:]:
            m = re.fullmatch(r"(\S+) +(\d+) +(\d+) +(\d+) +(\S+)", line)
            self.assertTrue(m, "unexpected watch row %r in\n%s" %
                            (line, "\n".join(lines)))
            self.assertIn(m.group(1), (first, second), line)
            rows.append((m.group(1), int(m.group(2)), int(m.group(3)),
                         int(m.group(4))))
        # The listed row of the old set, the new set appearing and growing
        # while the old one shrinks, both ending where rollout status saw.
        self.assertEqual(rows[0], (first, 3, 3, 3), lines)
        new_rows = [r for r in rows if r[0] == second]
        old_rows = [r for r in rows if r[0] == first]
        self.assertTrue(new_rows, lines)
        self.assertEqual(new_rows[-1][1:], (3, 3, 3), lines)
        self.assertEqual(old_rows[-1][1:], (0, 0, 0), lines)
        desired_old = [r[1] for r in old_rows]
        desired_new = [r[1] for r in new_rows]
        self.assertEqual(desired_old, sorted(desired_old, reverse=True), lines)
        self.assertEqual(desired_new, sorted(desired_new), lines)
        # maxSurge 25% of 3 rounds up to 1: never more than 4 desired.
        self.assertGreater(len(set(desired_new)), 1, lines)
        p = self.kubectl.run("apply", "-f", manifest)
        self.assertEqual(p.stdout, "deployment.apps/web unchanged\n")


class DeploymentBadInputTest(harness.ServerTestCase):
    """Invalid Deployments and scales: kube-apiserver's codes and messages,
    nothing stored."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.creds = harness.Credentials(cls.server.kubeconfig, cls.workdir)

    def request(self, method, path, body=None, headers=None):
        return harness.https_request(
            self.server, method, path, body=body, headers=headers,
            cafile=self.creds.ca, cert=self.creds.cert, key=self.creds.key)

    def assert_fails(self, args, stderr):
        p = self.kubectl.run(*args, check=False)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertEqual(p.stdout, "")
        self.assertEqual(p.stderr, stderr + "\n")

    def assert_no_deployment(self, name):
        p = self.kubectl.run("get", "deployment", name, check=False)
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertEqual(p.stderr, 'Error from server (NotFound): '
                         'deployments.apps "%s" not found\n' % name)

    def manifest(self, name, replicas=1, selector="app: web",
                 labels="app: web"):
        text = (WEB_YAML % "nginx").replace("name: web\n", "name: %s\n" %
                                            name, 1)
        text = text.replace("replicas: 3", "replicas: %d" % replicas)
        text = text.replace("    matchLabels:\n      app: web",
                            "    matchLabels:\n      " + selector)
        text = text.replace("      labels:\n        app: web",
                            "      labels:\n        " + labels)
        return write(self.workdir, name + ".yaml", text)

    def test_selector_does_not_match_template(self):
        path = self.manifest("mismatch", labels="app: other")
        self.assert_fails(
            ["apply", "-f", path],
            'The Deployment "mismatch" is invalid: '
            'spec.template.metadata.labels: Invalid value: '
            'map[string]string{"app":"other"}: `selector` does not match '
            'template `labels`')
        self.assert_no_deployment("mismatch")

    def test_negative_replicas(self):
        path = self.manifest("negative", replicas=-1)
        self.assert_fails(
            ["apply", "-f", path],
            'The Deployment "negative" is invalid: spec.replicas: Invalid '
            'value: -1: must be greater than or equal to 0')
        self.assert_no_deployment("negative")

    def test_selector_is_immutable_and_scale_not_negative(self):
        path = self.manifest("fixed")
        self.assertEqual(self.kubectl.run("apply", "-f", path).stdout,
                         "deployment.apps/fixed created\n")
        # Settled first: status updates of the rollout change the version.
        self.kubectl.run("rollout", "status", "deployment/fixed")
        rv = jsonpath(self.kubectl, "deployment", "fixed", "-o",
                      "jsonpath={.metadata.resourceVersion}")
        path = self.manifest("fixed", selector="app: web\n      tier: x",
                             labels="app: web\n        tier: x")
        self.assert_fails(
            ["apply", "-f", path],
            'The Deployment "fixed" is invalid: spec.selector: Invalid '
            'value: v1.LabelSelector{MatchLabels:map[string]string{'
            '"app":"web", "tier":"x"}, MatchExpressions:'
            '[]v1.LabelSelectorRequirement(nil)}: field is immutable')

        # kubectl refuses a negative count itself ...
        p = self.kubectl.run("scale", "deployment", "fixed", "--replicas=-1",
                             check=False)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr, "error: The --replicas=COUNT flag is "
                         "required, and COUNT must be greater than or equal "
                         "to 0\n")
        # ... so the scale subresource gets a raw patch.
        status, _, body = self.request(
            "PATCH", "/apis/apps/v1/namespaces/default/deployments/fixed/scale",
            b'{"spec":{"replicas":-1}}',
            {"Content-Type": "application/merge-patch+json"})
        self.assertEqual(status, 422, body)
        st = harness.status_body(self, body)
        self.assertEqual(st["reason"], "Invalid")
        self.assertEqual(st["code"], 422)
        self.assertEqual(st["message"],
                         'Scale.autoscaling "fixed" is invalid: spec.replicas: '
                         'Invalid value: -1: must be greater than or equal '
                         'to 0')
        self.assertEqual(st["details"]["group"], "autoscaling")
        self.assertEqual(st["details"]["kind"], "Scale")
        self.assertEqual(st["details"]["causes"], [{
            "reason": "FieldValueInvalid",
            "message": "Invalid value: -1: must be greater than or equal to 0",
            "field": "spec.replicas"}])
        self.assertEqual(
            jsonpath(self.kubectl, "deployment", "fixed", "-o",
                     "jsonpath={.metadata.resourceVersion} "
                     "{.spec.replicas} {.spec.selector.matchLabels}"),
            rv + ' 1 {"app":"web"}')

    def post_protobuf(self, body):
        return self.request(
            "POST", "/apis/apps/v1/namespaces/default/deployments", body,
            {"Content-Type": "application/vnd.kubernetes.protobuf",
             "Accept": "application/json"})

    @staticmethod
    def envelope(api_version, kind, raw):
        def field(number, data):
            return bytes([number << 3 | 2]) + varint(len(data)) + data

        def varint(n):
            out = b""
            while n > 0x7f:
                out += bytes([n & 0x7f | 0x80])
                n >>= 7
            return out + bytes([n])

        type_meta = field(1, api_version.encode()) + field(2, kind.encode())
        return b"k8s\x00" + field(1, type_meta) + field(2, raw)

    def test_protobuf_truncated(self):
        meta = b"\x0a\x05proto"  # ObjectMeta{name: "proto"}
        body = self.envelope("apps/v1", "Deployment", b"\x0a" + bytes(
            [len(meta)]) + meta)
        cut = body[:-3]
        status, _, out = self.post_protobuf(cut)
        self.assertEqual(status, 400, out)
        st = harness.status_body(self, out)
        self.assertEqual(st["reason"], "BadRequest")
        summary = cut[:30].hex() + (" ..." if len(cut) > 30 else "")
        self.assertEqual(
            st["message"],
            "the object provided is unrecognized (must be of type "
            "Deployment): unexpected EOF (%s)" % summary)
        self.assert_no_deployment("proto")

    def test_protobuf_wrong_kind(self):
        meta = b"\x0a\x05proto"
        body = self.envelope("v1", "Pod", b"\x0a" + bytes([len(meta)]) + meta)
        status, _, out = self.post_protobuf(body)
        self.assertEqual(status, 400, out)
        st = harness.status_body(self, out)
        self.assertEqual(st["reason"], "BadRequest")
        self.assertEqual(
            st["message"],
            'Pod in version "v1" cannot be handled as a Deployment: '
            "converting (v1.Pod) to (apps.Deployment): unknown conversion")
        self.assert_no_deployment("proto")
        p = self.kubectl.run("get", "pod", "proto", check=False)
        self.assertEqual(p.stderr, 'Error from server (NotFound): '
                         'pods "proto" not found\n')



class SlowWatchTest(harness.ServerTestCase):
    """A `kubectl get -w` that stops reading falls behind; kube-apiserver's
    watch cache closes such a watch without an error event, and kubectl
    ends with the pods it saw and nothing else."""

    server_args = ("--watch-queue-limit", "10")

    def ready_replicas(self, name):
        p = self.kubectl.run("get", "deployment", name, "-o",
                             "jsonpath={.status.readyReplicas}", check=False)
        return p.stdout.strip()

    def test_a_watch_that_falls_behind_ends_quietly(self):
        self.kubectl.run("create", "deployment", "crowd", "--image=nginx:1.25",
                         "--replicas=1")
        # A 16 KiB annotation on every pod: the events of 200 pods (about
        # 20 MB as -o json prints them) are far more than the pipe nobody
        # reads and the socket buffers hold, so kubectl blocks on the pipe,
        # stops reading its watch, and the server's queue of ten events for
        # it overflows while the pods come up, however fast the server is.
        self.kubectl.run("patch", "deployment", "crowd", "-p", json.dumps(
            {"spec": {"template": {"metadata": {
                "annotations": {"filler": "x" * 16384}}}}}))
        watch = subprocess.Popen(
            self.kubectl.argv("get", "pods", "-w", "-o", "json"),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL, text=True, env=self.kubectl.env)
        try:
            time.sleep(2)  # kubectl has listed and is watching
            self.kubectl.run("scale", "deployment", "crowd", "--replicas=200")
            self.assertTrue(harness.wait_until(
                lambda: self.ready_replicas("crowd") == "200", 60,
                interval=0.5))
            out, err = watch.communicate(timeout=harness.budget(30))
        finally:
            if watch.poll() is None:
                watch.kill()
                watch.wait()
        self.assertEqual(watch.returncode, 0, err)
        self.assertEqual(err, "")
        self.assertIn('"name": "crowd-', out)
        # An ERROR event would have been printed as a Status object
        # ("too old resource version"); the watch cache sends none.
        self.assertFalse('"kind": "Status"' in out, out[-400:])
        self.kubectl.run("delete", "deployment", "crowd")


class SimilarEventsTest(harness.ServerTestCase):
    """The ReplicaSet controller's events pass through client-go's event
    correlator: from the tenth similar event on, `kubectl describe` shows
    one combined event counted up instead of one row per pod, and the spam
    filter lets 25 writes about the ReplicaSet through (9 events, the
    combined one and 15 counts: x16)."""

    def test_thirty_replicas_make_nine_events_and_one_combined(self):
        self.kubectl.run("create", "deployment", "many", "--image=nginx:1.25",
                         "--replicas=30")
        self.assertTrue(harness.wait_until(
            lambda: self.kubectl.run(
                "get", "deployment", "many", "-o",
                "jsonpath={.status.readyReplicas}",
                check=False).stdout.strip() == "30", 30, interval=0.5))
        p = self.kubectl.run("describe", "rs", "-l", "app=many")
        lines = harness.normalise_lines(p.stdout)
        events = lines[lines.index("Events:") + 3:]
        single = harness.line_regex(
            "  Normal  SuccessfulCreate  <age>  replicaset-controller  "
            "Created pod: <any:pod>")
        combined = harness.line_regex(
            "  Normal  SuccessfulCreate  <age> (x16 over <age>)  "
            "replicaset-controller  (combined from similar events): "
            "Created pod: <any:pod>")
        singles = [line for line in events if single.match(line)]
        combines = [line for line in events if combined.match(line)]
        self.assertEqual(len(singles), 9, p.stdout)
        self.assertEqual(len(combines), 1, p.stdout)
        self.assertEqual(len(events), 10, p.stdout)
        self.kubectl.run("delete", "deployment", "many")


if __name__ == "__main__":
    unittest.main()
