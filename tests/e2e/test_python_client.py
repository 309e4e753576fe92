"""The official Python client (Debian's python3-kubernetes) against
kubemock: a Deployment created with AppsV1Api, its pods streamed with
watch.Watch().stream() until three are Running, then a Foreground delete
that takes the pods with it. Skipped where `import kubernetes` fails."""

import unittest

import harness

try:
    from kubernetes import client, config, watch
    from kubernetes.client.rest import ApiException
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
        cls.apps = client.AppsV1Api(api)
        cls.core = client.CoreV1Api(api)

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


if __name__ == "__main__":
    unittest.main()
