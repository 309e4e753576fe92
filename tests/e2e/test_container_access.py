"""What kubectl gets when it reaches into a pod's containers: logs of a
previous instance that does not exist, and attach/exec, which the fake
containers cannot serve yet and which must end at once, cleanly."""

import json
import time
import unittest

import harness


class ContainerAccessTest(harness.ServerTestCase):

    def run_pod(self, name):
        self.kubectl.run("run", name, "--image=busybox", "--restart=Never",
                         "--", "sleep", "3600")
        self.kubectl.run("wait", "--for=condition=Ready", "pod/" + name,
                         "--timeout=60s")

    def test_logs_previous_without_previous_instance(self):
        self.run_pod("hello")
        p = self.kubectl.run("logs", "hello", "--previous", check=False)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertEqual(p.stdout, "")
        self.assertEqual(
            p.stderr,
            'Error from server (BadRequest): previous terminated container '
            '"hello" in pod "hello" not found\n')
        # The current instance's log is still there (empty).
        p = self.kubectl.run("logs", "hello")
        self.assertEqual(p.stdout, "")

    def test_run_rm_interactive_ends_and_removes_its_pod(self):
        # The attach is refused; kubectl falls back to the (empty) log, then
        # waits --pod-running-timeout for a container that, being fake,
        # never exits, gives up with an error and removes its pod.
        start = time.monotonic()
        p = self.kubectl.run("run", "once", "--image=busybox", "--rm", "-i",
                             "--restart=Never", "--pod-running-timeout=5s",
                             "--", "echo", "hi", check=False, timeout=60)
        self.assertLess(time.monotonic() - start, 40)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("couldn't attach to pod/once, falling back to streaming "
                      'logs: attach to container "once" in pod "once" is not '
                      "available", p.stderr)
        self.assertIn('pod "once" deleted', p.stdout)
        # --rm removed the pod it created.
        self.assertTrue(harness.wait_until(
            lambda: self.kubectl.run("get", "pod", "once",
                                     check=False).returncode == 1, 30))

    def test_exec_is_refused_cleanly(self):
        self.run_pod("shell")
        p = self.kubectl.run("exec", "shell", "--", "ls", check=False,
                             timeout=60)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("Error from server (BadRequest): exec to container "
                      '"shell" in pod "shell" is not available', p.stderr)

    def test_discovery_lists_the_stream_subresources(self):
        p = self.kubectl.run("get", "--raw", "/api/v1")
        names = {r["name"]: r for r in json.loads(p.stdout)["resources"]}
        for sub, kind in (("pods/attach", "PodAttachOptions"),
                          ("pods/exec", "PodExecOptions"),
                          ("pods/portforward", "PodPortForwardOptions")):
            self.assertIn(sub, names)
            self.assertEqual(names[sub]["kind"], kind)
            self.assertEqual(sorted(names[sub]["verbs"]), ["create", "get"])


if __name__ == "__main__":
    unittest.main()
