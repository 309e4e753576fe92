"""The official Python client (Debian's python3-kubernetes) against
kubemock: a Deployment created with AppsV1Api, its pods streamed with
watch.Watch().stream() until three are Running, then a Foreground delete
that takes the pods with it; and what the client's own end-to-end suite
does with configuration kinds: ConfigMap CRUD, a multi-document YAML
through utils.create_from_yaml, RBAC objects from YAML and an APIService
created twice (the second a 409 the utility reports); and the workload
kinds as the client's own suite drives them: a DaemonSet (AppsV1Api) that
puts a pod on each node it fits, a Job (BatchV1Api) read back until it
completes, a ReplicationController (CoreV1Api) whose pods come and go with
it. Skipped where `import kubernetes` fails."""

import os
import select
import tempfile
import time
import unittest

import harness

try:
    from kubernetes import client, config, utils, watch
    from kubernetes.client.rest import ApiException
    from kubernetes.stream import portforward, stream
except ImportError:  # not installed: the class below skips
    client = None

NS = "default"
NAME = "py"
SELECTOR = "app=py"
WATCH_SECONDS = 20


def deployment():
    labels = {"app": NAME}
    return client.V1Deployment(
        api_version="apps/v1", kind="Deployment",
        metadata=client.V1ObjectMeta(name=NAME, labels=labels),
        spec=client.V1DeploymentSpec(
            replicas=3,
            selector=client.V1LabelSelector(match_labels=labels),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels=labels),
                spec=client.V1PodSpec(containers=[
                    client.V1Container(name="nginx", image="nginx:1.27")]))))


class PythonClientTest(harness.ServerTestCase):

    @classmethod
    def setUpClass(cls):
        if client is None:
            raise unittest.SkipTest("python3-kubernetes is not installed")
        super().setUpClass()
        api = config.new_client_from_config(
            config_file=cls.server.kubeconfig)
        cls.api = api
        cls.apps = client.AppsV1Api(api)
        cls.core = client.CoreV1Api(api)
        cls.batch = client.BatchV1Api(api)

    def yaml_file(self, text):
        fd, path = tempfile.mkstemp(suffix=".yaml", dir=self.workdir)
        with os.fdopen(fd, "w") as f:
            f.write(text)
        return path

    def running_pod(self, name, command):
        self.core.create_namespaced_pod(NS, {
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": name, "image": "busybox",
                                     "command": command}]}})
        self.assertTrue(harness.wait_until(
            lambda: self.core.read_namespaced_pod(name, NS).status.phase ==
            "Running", 60))

    def test_exec_output_and_exit_code(self):
        # The client's own e2e test: exec a command, read its output, and
        # get a failing command's exit code (WebSocket, v4.channel.k8s.io).
        self.running_pod("busybox-test", ["sleep", "3600"])
        out = stream(self.core.connect_get_namespaced_pod_exec,
                     "busybox-test", NS,
                     command=["/bin/sh", "-c", "echo This message goes to "
                              "stderr >&2; echo This message goes to stdout"],
                     stderr=False, stdin=False, stdout=True, tty=False)
        self.assertEqual(out, "This message goes to stdout\n")
        resp = stream(self.core.connect_get_namespaced_pod_exec,
                      "busybox-test", NS, command=["/bin/sh", "-c", "exit 3"],
                      stderr=True, stdin=False, stdout=True, tty=False,
                      _preload_content=False)
        resp.run_forever(timeout=10)
        self.assertEqual(resp.returncode, 3)
        resp = stream(self.core.connect_get_namespaced_pod_exec,
                      "busybox-test", NS, command=["/bin/sh"],
                      stderr=True, stdin=True, stdout=True, tty=False,
                      _preload_content=False)
        resp.write_stdin("echo $HOSTNAME\n")
        got = ""
        deadline = 10
        while resp.is_open() and "busybox-test" not in got and deadline > 0:
            resp.update(timeout=1)
            got += resp.read_stdout()
            deadline -= 1
        resp.close()
        self.assertEqual(got, "busybox-test\n")

    def ready_pod(self, name, image):
        self.core.create_namespaced_pod(NS, {
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": name, "image": image}]}})
        self.assertTrue(harness.wait_until(
            lambda: self.core.read_namespaced_pod(name, NS).status.phase ==
            "Running", 60))

    @staticmethod
    def read_all(sock, timeout=20):
        got = b""
        deadline = time.monotonic() + harness.budget(timeout)
        while time.monotonic() < deadline:
            ready, _, _ = select.select([sock], [], [], 0.2)
            if not ready:
                continue
            data = sock.recv(65536)
            if not data:
                break
            got += data
        return got

    def test_portforward_http_raw_and_refused(self):
        # The client's own e2e tests: HTTP to nginx through a forwarded
        # socket (WebSocket channels, v4.channel.k8s.io), raw bytes to a
        # server, and the error of a port nothing listens on.
        self.ready_pod("portforward-http", "nginx")
        pf = portforward(self.core.connect_get_namespaced_pod_portforward,
                         "portforward-http", NS, ports="80")
        sock = pf.socket(80)
        sock.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\n"
                     b"Connection: close\r\n\r\n")
        reply = self.read_all(sock).decode()
        self.assertTrue(reply.startswith("HTTP/1.1 200 OK\r\n"), reply)
        self.assertIn("<h1>Welcome to nginx!</h1>", reply)
        self.assertIsNone(pf.error(80))
        sock.close()

        self.ready_pod("portforward-raw", "redis")
        pf = portforward(self.core.connect_get_namespaced_pod_portforward,
                         "portforward-raw", NS, ports="6379,6380")
        sock = pf.socket(6379)
        sock.sendall(b"*1\r\n$4\r\nPING\r\n")
        sock.settimeout(20)
        self.assertEqual(sock.recv(100), b"+PONG\r\n")
        self.assertTrue(harness.wait_until(
            lambda: pf.error(6380) is not None, 20))
        self.assertIn("error forwarding port 6380 to pod ", pf.error(6380))
        self.assertIn("connect: connection refused", pf.error(6380))
        pf.close()

    def test_logs_of_a_container(self):
        self.running_pod("logger", ["sh", "-c", "echo one; echo two; "
                                    "sleep 3600"])
        self.assertEqual(self.core.read_namespaced_pod_log("logger", NS),
                         "one\ntwo\n")
        self.assertEqual(self.core.read_namespaced_pod_log(
            "logger", NS, tail_lines=1), "two\n")

    def test_configmap_apis(self):
        body = {"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "test-configmap"},
                "data": {"config.json": "{\"command\":\"/usr/bin/mysqld\"}",
                         "frontend.cnf": "[mysqld]\nbind-address = 10.0.0.3\n"}}
        made = self.core.create_namespaced_config_map(NS, body)
        self.assertEqual(made.metadata.name, "test-configmap")
        got = self.core.read_namespaced_config_map("test-configmap", NS)
        self.assertEqual(got.data, body["data"])
        got.data["config.json"] = "{}"
        self.core.replace_namespaced_config_map("test-configmap", NS, got)
        patched = self.core.patch_namespaced_config_map(
            "test-configmap", NS, {"data": {"extra": "1"}})
        self.assertEqual(patched.data["config.json"], "{}")
        self.assertEqual(patched.data["extra"], "1")
        names = [c.metadata.name for c in
                 self.core.list_namespaced_config_map(NS).items]
        self.assertIn("test-configmap", names)
        self.core.delete_namespaced_config_map("test-configmap", NS)
        with self.assertRaises(ApiException) as caught:
            self.core.read_namespaced_config_map("test-configmap", NS)
        self.assertEqual(caught.exception.status, 404)

    def test_create_from_multi_resource_yaml(self):
        path = self.yaml_file("""\
apiVersion: v1
kind: Service
metadata:
  name: mock
  labels: {app: mock}
spec:
  ports: [{port: 99, protocol: TCP, targetPort: 9949}]
  selector: {app: mock}
---
apiVersion: v1
kind: ReplicationController
metadata:
  name: mock
spec:
  replicas: 1
  selector: {app: mock}
  template:
    metadata:
      labels: {app: mock}
    spec:
      containers:
      - name: mock-container
        image: registry.k8s.io/pause:2.0
        ports: [{containerPort: 9949, protocol: TCP}]
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: mock-config
data:
  mode: fast
""")
        created = utils.create_from_yaml(self.api, path, namespace=NS)
        kinds = [objs[0].kind for objs in created]
        self.assertEqual(kinds, ["Service", "ReplicationController",
                                 "ConfigMap"])
        svc = self.core.read_namespaced_service("mock", NS)
        self.assertEqual(svc.spec.ports[0].port, 99)
        rc = self.core.read_namespaced_replication_controller("mock", NS)
        self.assertEqual(rc.spec.replicas, 1)
        self.core.delete_namespaced_service("mock", NS)
        self.core.delete_namespaced_replication_controller("mock", NS)
        self.core.delete_namespaced_config_map("mock-config", NS)

    def test_create_rbac_role_and_binding_from_yaml(self):
        path = self.yaml_file("""\
kind: Role
apiVersion: rbac.authorization.k8s.io/v1
metadata:
  name: pod-reader
rules:
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "watch", "list"]
---
kind: RoleBinding
apiVersion: rbac.authorization.k8s.io/v1
metadata:
  name: read-pods
subjects:
- kind: User
  name: jane
  apiGroup: rbac.authorization.k8s.io
roleRef:
  kind: Role
  name: pod-reader
  apiGroup: rbac.authorization.k8s.io
""")
        utils.create_from_yaml(self.api, path, namespace=NS)
        rbac = client.RbacAuthorizationV1Api(self.api)
        role = rbac.read_namespaced_role("pod-reader", NS)
        self.assertEqual(role.rules[0].verbs, ["get", "watch", "list"])
        binding = rbac.read_namespaced_role_binding("read-pods", NS)
        self.assertEqual(binding.role_ref.name, "pod-reader")
        self.assertEqual(binding.subjects[0].name, "jane")
        rbac.delete_namespaced_role("pod-reader", NS)
        rbac.delete_namespaced_role_binding("read-pods", NS)

    def test_create_apiservice_from_yaml_with_conflict(self):
        path = self.yaml_file("""\
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: v1alpha1.wardle.example.com
spec:
  service:
    name: api
    namespace: wardle
  group: wardle.example.com
  version: v1alpha1
  insecureSkipTLSVerify: true
  groupPriorityMinimum: 1000
  versionPriority: 15
""")
        utils.create_from_yaml(self.api, path)
        registration = client.ApiregistrationV1Api(self.api)
        made = registration.read_api_service("v1alpha1.wardle.example.com")
        self.assertEqual(made.spec.group, "wardle.example.com")
        with self.assertRaises(utils.FailToCreateError) as caught:
            utils.create_from_yaml(self.api, path)
        self.assertEqual(caught.exception.api_exceptions[0].status, 409)
        registration.delete_api_service("v1alpha1.wardle.example.com")

    def test_deployment_watch_and_foreground_delete(self):
        created = self.apps.create_namespaced_deployment(NS, deployment())
        self.assertEqual(created.metadata.name, NAME)
        self.assertEqual(created.metadata.generation, 1)
        self.assertEqual(created.spec.strategy.type, "RollingUpdate")
        self.assertEqual(created.spec.strategy.rolling_update.max_surge, "25%")
        self.assertEqual(created.spec.revision_history_limit, 10)
        self.assertEqual(created.spec.progress_deadline_seconds, 600)

        # Stream pods until three are Running.
        phases, seen_types, first_log = {}, set(), []
        w = watch.Watch()
        for event in w.stream(self.core.list_namespaced_pod, NS,
                              label_selector=SELECTOR,
                              timeout_seconds=WATCH_SECONDS):
            pod = event["object"]
            self.assertIsInstance(pod, client.V1Pod)
            first_log.append((event["type"], pod.metadata.name,
                              pod.metadata.resource_version, pod.status.phase))
            seen_types.add(event["type"])
            if event["type"] == "DELETED":
                phases.pop(pod.metadata.name, None)
            else:
                phases[pod.metadata.name] = pod.status.phase
            if sum(1 for p in phases.values() if p == "Running") == 3:
                w.stop()
        self.assertEqual(sorted(phases.values()), ["Running"] * 3, first_log)
        self.assertIn("ADDED", seen_types)
        for name in phases:
            self.assertRegex(name, r"^py-[456789bcdf]{1,10}-%s$" %
                             harness.PLACEHOLDERS["suffix"])
        self.assertTrue(harness.wait_until(
            lambda: self.apps.read_namespaced_deployment_status(
                NAME, NS).status.available_replicas == 3, 5))

        # Foreground delete: the pods go, then the Deployment.
        listed = self.core.list_namespaced_pod(NS, label_selector=SELECTOR)
        self.assertEqual(len(listed.items), 3)
        self.apps.delete_namespaced_deployment(
            NAME, NS, propagation_policy="Foreground")
        try:
            dep = self.apps.read_namespaced_deployment(NAME, NS)
            self.assertIsNotNone(dep.metadata.deletion_timestamp)
            self.assertIn("foregroundDeletion", dep.metadata.finalizers)
        except ApiException as e:  # already gone: dependents went quickly
            self.assertEqual(e.status, 404)
        gone, log = set(), []
        w = watch.Watch()
        for event in w.stream(self.core.list_namespaced_pod, NS,
                              label_selector=SELECTOR,
                              resource_version=listed.metadata.resource_version,
                              timeout_seconds=WATCH_SECONDS):
            meta = event["object"].metadata
            log.append((event["type"], meta.name, meta.resource_version))
            if event["type"] == "DELETED":
                gone.add(meta.name)
            if gone >= set(phases):
                w.stop()
        self.assertEqual(gone, set(phases), (listed.metadata.resource_version,
                                             log))
        self.assertEqual(
            self.core.list_namespaced_pod(NS, label_selector=SELECTOR).items,
            [])
        self.assertTrue(harness.wait_until(
            lambda: not self.apps.list_namespaced_deployment(NS).items, 5))
        self.assertEqual(
            self.apps.list_namespaced_replica_set(NS).items, [])
        with self.assertRaises(ApiException) as cm:
            self.apps.read_namespaced_deployment(NAME, NS)
        self.assertEqual(cm.exception.status, 404)


    def pods_of(self, selector):
        return [p for p in self.core.list_namespaced_pod(
            NS, label_selector=selector).items
            if p.metadata.deletion_timestamp is None]

    def test_daemonset_apis(self):
        name = "py-agent"
        labels = {"app": name}
        body = {
            "apiVersion": "apps/v1", "kind": "DaemonSet",
            "metadata": {"name": name},
            "spec": {"selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"containers": [
                                      {"name": "agent", "image": "nginx"}]}}}}
        resp = self.apps.create_namespaced_daemon_set(NS, body)
        self.assertEqual(resp.metadata.name, name)
        self.assertEqual(resp.spec.update_strategy.type, "RollingUpdate")
        self.assertTrue(harness.wait_until(
            lambda: getattr(self.apps.read_namespaced_daemon_set(
                name, NS).status, "number_ready", 0) == 4, 60))
        nodes = sorted(p.spec.node_name for p in self.pods_of("app=" + name))
        self.assertEqual(nodes, ["manage-2", "worker-1", "worker-2",
                                 "worker-3"])
        self.apps.delete_namespaced_daemon_set(name, NS)
        self.assertTrue(harness.wait_until(
            lambda: not self.pods_of("app=" + name), 60))

    def test_job_apis(self):
        name = "py-job"
        body = {
            "apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": name},
            "spec": {"template": {"spec": {
                "restartPolicy": "Never",
                "containers": [{"name": "pi", "image": "perl:5.34.0",
                                "command": ["perl", "-Mbignum=bpi", "-wle",
                                            "print bpi(100)"]}]}}}}
        resp = self.batch.create_namespaced_job(NS, body)
        self.assertEqual(resp.metadata.name, name)
        self.assertEqual(resp.spec.completions, 1)
        self.assertEqual(resp.spec.backoff_limit, 6)
        self.assertTrue(harness.wait_until(
            lambda: getattr(self.batch.read_namespaced_job(
                name, NS).status, "succeeded", 0) == 1, 60))
        job = self.batch.read_namespaced_job(name, NS)
        self.assertEqual([c.type for c in job.status.conditions],
                         ["SuccessCriteriaMet", "Complete"])
        self.batch.delete_namespaced_job(name, NS,
                                         propagation_policy="Background")
        self.assertTrue(harness.wait_until(
            lambda: not self.core.list_namespaced_pod(
                NS, label_selector="job-name=" + name).items, 60))

    def test_replication_controller_apis(self):
        name = "py-frontend"
        body = {
            "apiVersion": "v1", "kind": "ReplicationController",
            "metadata": {"labels": {"name": name}, "name": name},
            "spec": {"replicas": 2, "selector": {"name": name},
                     "template": {"metadata": {"labels": {"name": name}},
                                  "spec": {"containers": [{
                                      "image": "nginx", "name": "nginx",
                                      "ports": [{"containerPort": 80,
                                                 "protocol": "TCP"}]}]}}}}
        resp = self.core.create_namespaced_replication_controller(NS, body)
        self.assertEqual((resp.metadata.name, resp.spec.replicas), (name, 2))
        self.assertTrue(harness.wait_until(
            lambda: getattr(self.core.read_namespaced_replication_controller(
                name, NS).status, "ready_replicas", 0) == 2, 60))
        self.assertEqual(len(self.pods_of("name=" + name)), 2)
        self.core.patch_namespaced_replication_controller_scale(
            name, NS, {"spec": {"replicas": 1}})
        self.assertTrue(harness.wait_until(
            lambda: len(self.pods_of("name=" + name)) == 1, 60))
        self.core.delete_namespaced_replication_controller(
            name, NS, propagation_policy="Background")
        self.assertTrue(harness.wait_until(
            lambda: not self.pods_of("name=" + name), 60))


if __name__ == "__main__":
    unittest.main()
