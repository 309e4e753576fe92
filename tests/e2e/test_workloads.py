"""The workload controllers as kubectl sees them on a real cluster.

DaemonSets: kube-proxy's pods are the DaemonSet controller's (a
ControllerRevision, the revision hash and the node's affinity on every
pod); a user's DaemonSet runs one pod on every node it fits (not on the
tainted control-plane node), `kubectl rollout status/history/undo/restart`
work on it through its ControllerRevisions, and a bad update strategy is
refused with kube-apiserver's message.

Jobs: the documentation's pi Job completes (conditions, counts, generated
selector, its pods freed of the tracking finalizer and gone with it), an
Indexed Job runs every index with its hostname and JOB_COMPLETION_INDEX, a
failing Job stops at its backoffLimit, a finished Job goes after its TTL,
and bad Jobs are refused in kube-apiserver's words.

ReplicationControllers: the documentation's nginx controller keeps three
pods, scales and takes its pods when deleted; a selector that does not
match the template is refused."""

import json
import unittest

import harness

AGENT = """
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels: {app: agent}
  template:
    metadata:
      labels: {app: agent}
    spec:
      containers:
      - name: agent
        image: nginx:1.25
"""

BAD_AGENT = AGENT.replace("  selector:", """  updateStrategy:
    rollingUpdate: {maxUnavailable: 0}
  selector:""")


class DaemonSetTest(harness.ServerTestCase):

    def get(self, *args):
        return json.loads(self.kubectl.run("get", *args, "-o", "json").stdout)

    def agent_pods(self):
        return [p for p in self.get("pods", "-l", "app=agent")["items"]
                if "deletionTimestamp" not in p["metadata"]]

    def test_kube_proxy_pods_belong_to_the_controller(self):
        revisions = self.get("controllerrevisions", "-n", "kube-system",
                             "-l", "k8s-app=kube-proxy")["items"]
        self.assertEqual(len(revisions), 1)
        rev = revisions[0]
        self.assertEqual(rev["revision"], 1)
        pod_hash = rev["metadata"]["labels"]["controller-revision-hash"]
        self.assertEqual(rev["metadata"]["name"], "kube-proxy-" + pod_hash)
        pods = self.get("pods", "-n", "kube-system",
                        "-l", "k8s-app=kube-proxy")["items"]
        self.assertEqual(len(pods), 5)
        for pod in pods:
            labels = pod["metadata"]["labels"]
            self.assertEqual(labels["controller-revision-hash"], pod_hash)
            self.assertEqual(labels["pod-template-generation"], "1")
            terms = pod["spec"]["affinity"]["nodeAffinity"][
                "requiredDuringSchedulingIgnoredDuringExecution"][
                "nodeSelectorTerms"]
            self.assertEqual(terms[0]["matchFields"][0]["values"],
                             [pod["spec"]["nodeName"]])

    def test_rollout_of_a_daemonset(self):
        self.kubectl.run("apply", "-f", "-", input=AGENT)
        p = self.kubectl.run("rollout", "status", "ds/agent", "--timeout=60s")
        self.assertIn('daemon set "agent" successfully rolled out', p.stdout)
        pods = self.agent_pods()
        # Every node but manage-1, whose control-plane taint it does not
        # tolerate.
        self.assertEqual(sorted(p["spec"]["nodeName"] for p in pods),
                         ["manage-2", "worker-1", "worker-2", "worker-3"])
        row = self.kubectl.run("get", "ds", "agent").stdout.splitlines()[1]
        self.assertEqual(row.split()[:7],
                         ["agent", "4", "4", "4", "4", "4", "<none>"])

        self.kubectl.run("set", "image", "ds/agent", "agent=nginx:1.27")
        p = self.kubectl.run("rollout", "status", "ds/agent", "--timeout=90s")
        self.assertIn('daemon set "agent" successfully rolled out', p.stdout)
        images = {p["spec"]["containers"][0]["image"]
                  for p in self.agent_pods()}
        self.assertEqual(images, {"nginx:1.27"})
        p = self.kubectl.run("rollout", "history", "ds/agent")
        self.assertEqual(
            [line.split()[0] for line in p.stdout.strip().splitlines()[1:]],
            ["REVISION", "1", "2"])
        p = self.kubectl.run("rollout", "history", "ds/agent", "--revision=1")
        self.assertIn("nginx:1.25", p.stdout)

        p = self.kubectl.run("rollout", "undo", "ds/agent")
        self.assertEqual(p.stdout.strip(), "daemonset.apps/agent rolled back")
        self.kubectl.run("rollout", "status", "ds/agent", "--timeout=90s")
        self.assertEqual({p["spec"]["containers"][0]["image"]
                          for p in self.agent_pods()}, {"nginx:1.25"})
        p = self.kubectl.run("rollout", "history", "ds/agent")
        self.assertEqual(
            [line.split()[0] for line in p.stdout.strip().splitlines()[1:]],
            ["REVISION", "2", "3"])

        before = {p["metadata"]["name"] for p in self.agent_pods()}
        p = self.kubectl.run("rollout", "restart", "ds/agent")
        self.assertEqual(p.stdout.strip(), "daemonset.apps/agent restarted")
        self.kubectl.run("rollout", "status", "ds/agent", "--timeout=90s")
        after = {p["metadata"]["name"] for p in self.agent_pods()}
        self.assertEqual(len(after), 4)
        self.assertFalse(before & after)
        self.kubectl.run("delete", "ds", "agent")

    def test_bad_update_strategy_is_refused(self):
        p = self.kubectl.run("apply", "-f", "-", input=BAD_AGENT, check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn(
            'The DaemonSet "agent" is invalid: '
            "spec.updateStrategy.rollingUpdate.maxUnavailable: Required "
            "value: cannot be 0 when maxSurge is 0", p.stderr)



PI = """
apiVersion: batch/v1
kind: Job
metadata:
  name: pi
spec:
  template:
    spec:
      containers:
      - name: pi
        image: perl:5.34.0
        command: ["perl",  "-Mbignum=bpi", "-wle", "print bpi(2000)"]
      restartPolicy: Never
  backoffLimit: 4
"""

INDEXED = """
apiVersion: batch/v1
kind: Job
metadata:
  name: indexed
spec:
  completions: 5
  parallelism: 2
  completionMode: Indexed
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: worker
        image: busybox
        command: ["sh", "-c", "echo index $JOB_COMPLETION_INDEX"]
"""

NO_COMPLETIONS = INDEXED.replace("  completions: 5\n", "").replace(
    "name: indexed", "name: nocount")


class JobTest(harness.ServerTestCase):

    def get(self, *args):
        return json.loads(self.kubectl.run("get", *args, "-o", "json").stdout)

    def test_the_pi_job_of_the_documentation(self):
        self.kubectl.run("apply", "-f", "-", input=PI)
        p = self.kubectl.run("wait", "--for=condition=complete", "job/pi",
                             "--timeout=60s")
        self.assertEqual(p.stdout, "job.batch/pi condition met\n")
        row = self.kubectl.run("get", "job", "pi").stdout.splitlines()[1]
        self.assertEqual(row.split()[:3], ["pi", "Complete", "1/1"])
        p = self.kubectl.run("logs", "job/pi")
        self.assertTrue(p.stdout.startswith("3.14159265358979"), p.stdout)
        job = self.get("job", "pi")
        self.assertEqual(job["spec"]["selector"]["matchLabels"],
                         {"batch.kubernetes.io/controller-uid":
                          job["metadata"]["uid"]})
        self.assertEqual(job["metadata"]["labels"]["job-name"], "pi")
        st = job["status"]
        self.assertEqual((st["succeeded"], st["ready"], st["terminating"]),
                         (1, 0, 0))
        self.assertEqual(st["uncountedTerminatedPods"], {})
        self.assertEqual([(c["type"], c["reason"]) for c in st["conditions"]],
                         [("SuccessCriteriaMet", "CompletionsReached"),
                          ("Complete", "CompletionsReached")])
        pods = self.get("pods", "-l", "job-name=pi")["items"]
        self.assertEqual(len(pods), 1)
        self.assertNotIn("finalizers", pods[0]["metadata"])
        p = self.kubectl.run("describe", "job", "pi")
        self.assertRegex(p.stdout, r"Normal\s+Completed\s+\S+\s+job-controller"
                         r"\s+Job completed")
        # Deleting the Job takes its pods.
        self.kubectl.run("delete", "job", "pi")
        self.assertTrue(harness.wait_until(
            lambda: not self.get("pods", "-l", "job-name=pi")["items"], 30))

    def test_indexed_job_runs_every_index(self):
        self.kubectl.run("apply", "-f", "-", input=INDEXED)
        self.kubectl.run("wait", "--for=condition=complete", "job/indexed",
                         "--timeout=60s")
        job = self.get("job", "indexed")
        self.assertEqual(job["status"]["completedIndexes"], "0-4")
        self.assertEqual(job["status"]["succeeded"], 5)
        pods = self.get("pods", "-l", "job-name=indexed")["items"]
        index = "batch.kubernetes.io/job-completion-index"
        self.assertEqual(sorted(p["metadata"]["annotations"][index]
                                for p in pods), ["0", "1", "2", "3", "4"])
        for pod in pods:
            i = pod["metadata"]["annotations"][index]
            self.assertEqual(pod["spec"]["hostname"], "indexed-" + i)
            self.assertTrue(pod["metadata"]["name"].startswith(
                "indexed-%s-" % i))
            p = self.kubectl.run("logs", pod["metadata"]["name"])
            self.assertEqual(p.stdout, "index %s\n" % i)

    def test_failing_job_reaches_its_backoff_limit(self):
        self.kubectl.run("create", "job", "fails", "--image=busybox",
                         "--", "sh", "-c", "exit 3")
        self.kubectl.run("patch", "job", "fails", "--type=merge",
                         "-p", '{"spec":{"backoffLimit":0}}')
        p = self.kubectl.run("wait", "--for=condition=failed", "job/fails",
                             "--timeout=60s")
        self.assertEqual(p.stdout, "job.batch/fails condition met\n")
        st = self.get("job", "fails")["status"]
        self.assertEqual(st["failed"], 1)
        failed = [c for c in st["conditions"] if c["type"] == "Failed"][0]
        self.assertEqual((failed["reason"], failed["message"]),
                         ("BackoffLimitExceeded",
                          "Job has reached the specified backoff limit"))
        row = self.kubectl.run("get", "job", "fails").stdout.splitlines()[1]
        self.assertEqual(row.split()[:3], ["fails", "Failed", "0/1"])

    def test_finished_job_goes_after_its_ttl(self):
        self.kubectl.run("create", "job", "brief", "--image=busybox",
                         "--", "true")
        self.kubectl.run("patch", "job", "brief", "--type=merge",
                         "-p", '{"spec":{"ttlSecondsAfterFinished":1}}')
        self.assertTrue(harness.wait_until(
            lambda: self.kubectl.run("get", "job", "brief",
                                     check=False).returncode == 1, 30))

    def test_bad_jobs_are_refused(self):
        p = self.kubectl.run("apply", "-f", "-", input=NO_COMPLETIONS,
                             check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn('The Job "nocount" is invalid: spec.completions: '
                      "Required value: when completion mode is Indexed",
                      p.stderr)
        self.kubectl.run("create", "job", "fixed", "--image=busybox",
                         "--", "sleep", "600")
        p = self.kubectl.run("patch", "job", "fixed", "--type=merge",
                             "-p", '{"spec":{"completions":3}}', check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn('The Job "fixed" is invalid: spec.completions: Invalid '
                      "value: 3: field is immutable", p.stderr)
        self.kubectl.run("delete", "job", "fixed")


RC = """
apiVersion: v1
kind: ReplicationController
metadata:
  name: nginx
spec:
  replicas: 3
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx
        ports:
        - containerPort: 80
"""


class ReplicationControllerTest(harness.ServerTestCase):

    def pods(self):
        items = json.loads(self.kubectl.run(
            "get", "pods", "-l", "app=nginx", "-o", "json").stdout)["items"]
        return [p for p in items if "deletionTimestamp" not in p["metadata"]
                and p["status"].get("phase") == "Running"]

    def test_replication_controller_of_the_documentation(self):
        self.kubectl.run("apply", "-f", "-", input=RC)
        self.assertTrue(harness.wait_until(lambda: len(self.pods()) == 3, 30))
        row = self.kubectl.run("get", "rc", "nginx").stdout.splitlines()[1]
        self.assertEqual(row.split()[:4], ["nginx", "3", "3", "3"])
        for pod in self.pods():
            owner = pod["metadata"]["ownerReferences"][0]
            self.assertEqual((owner["apiVersion"], owner["kind"],
                              owner["name"]),
                             ("v1", "ReplicationController", "nginx"))
        p = self.kubectl.run("describe", "rc", "nginx")
        self.assertRegex(p.stdout, r"Selector:\s+app=nginx")
        self.assertRegex(p.stdout, r"Normal\s+SuccessfulCreate\s+\S+\s+"
                         r"replication-controller\s+Created pod: nginx-")
        p = self.kubectl.run("scale", "rc", "nginx", "--replicas=1")
        self.assertEqual(p.stdout, "replicationcontroller/nginx scaled\n")
        self.assertTrue(harness.wait_until(lambda: len(self.pods()) == 1, 30))
        self.kubectl.run("delete", "rc", "nginx")
        self.assertTrue(harness.wait_until(lambda: not self.pods(), 30))

    def test_selector_must_match_the_template(self):
        bad = RC.replace("  replicas: 3\n",
                         "  replicas: 3\n  selector: {app: other}\n")
        p = self.kubectl.run("apply", "-f", "-", input=bad, check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn('The ReplicationController "nginx" is invalid: '
                      "spec.template.metadata.labels: Invalid value: "
                      'map[string]string{"app":"nginx"}: `selector` does not '
                      "match template `labels`", p.stderr)


if __name__ == "__main__":
    unittest.main()
