"""Containers that behave like the programs their spec describes: logs,
exits and restarts with the kubelet's back-off, image pulls that fail, pods
that complete, and what kubectl gets when it reaches into them."""

import http.client
import json
import os
import pty
import re
import select
import socket
import tempfile
import time
import unittest

import harness
from test_auth import token_kubeconfig


class ContainerAccessTest(harness.ServerTestCase):

    def pod(self, name):
        return json.loads(self.kubectl.run("get", "pod", name, "-o",
                                           "json").stdout)

    def wait_pod(self, name, predicate, timeout=60):
        last = {}

        def check():
            nonlocal last
            p = self.kubectl.run("get", "pod", name, "-o", "json",
                                 check=False)
            if p.returncode != 0:
                return False
            last = json.loads(p.stdout)
            return predicate(last)
        ok = harness.wait_until(check, timeout)
        self.assertTrue(ok, json.dumps(last.get("status"), indent=1))
        return last

    @staticmethod
    def waiting_reason(pod):
        for cs in pod.get("status", {}).get("containerStatuses", []):
            return cs.get("state", {}).get("waiting", {}).get("reason", "")
        return ""

    def events_of(self, name):
        p = self.kubectl.run("get", "events", "--field-selector",
                             "involvedObject.name=" + name, "-o", "json")
        return [(e["type"], e["reason"], e["message"])
                for e in json.loads(p.stdout)["items"]]

    def test_logs_show_what_the_program_prints(self):
        self.kubectl.run("run", "counter", "--image=busybox", "--", "sh", "-c",
                         'i=0; while true; do echo "$i: tick"; i=$((i+1)); '
                         "sleep 1; done")
        self.wait_pod("counter", lambda p: p["status"].get("phase") ==
                      "Running")
        self.assertTrue(harness.wait_until(
            lambda: "2: tick" in self.kubectl.run("logs", "counter").stdout,
            30))
        out = self.kubectl.run("logs", "counter").stdout
        self.assertTrue(out.startswith("0: tick\n1: tick\n"), out)
        tail = self.kubectl.run("logs", "counter", "--tail=1").stdout
        self.assertRegex(tail, r"^\d+: tick\n$")
        stamped = self.kubectl.run("logs", "counter", "--tail=1",
                                   "--timestamps").stdout
        self.assertRegex(
            stamped, r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z \d+: tick\n$")
        limited = self.kubectl.run("logs", "counter", "--limit-bytes=3").stdout
        self.assertEqual(limited, "0: ")
        # follow streams new lines as they come, until the client leaves.
        bg = self.kubectl.popen("logs", "-f", "counter", "--tail=0")
        try:
            self.assertTrue(harness.wait_until(
                lambda: re.search(r"\d+: tick\n", bg.output()), 10))
        finally:
            bg.stop()

    def test_nginx_prints_its_start_up(self):
        self.kubectl.run("run", "web", "--image=nginx")
        self.kubectl.run("wait", "--for=condition=Ready", "pod/web",
                         "--timeout=60s")
        out = self.kubectl.run("logs", "web").stdout
        self.assertIn("/docker-entrypoint.sh: Configuration complete; ready "
                      "for start up\n", out)
        self.assertRegex(out, r"\[notice\] 1#1: start worker processes\n")

    def test_crashing_container_backs_off(self):
        self.kubectl.run("run", "crash", "--image=busybox", "--", "sh", "-c",
                         "echo dying; exit 1")
        pod = self.wait_pod("crash", lambda p: self.waiting_reason(p) ==
                            "CrashLoopBackOff")
        cs = pod["status"]["containerStatuses"][0]
        self.assertGreaterEqual(cs["restartCount"], 1)
        term = cs["lastState"]["terminated"]
        self.assertEqual((term["exitCode"], term["reason"]), (1, "Error"))
        self.assertRegex(
            cs["state"]["waiting"]["message"],
            r"^back-off (10|20)s restarting failed container=crash "
            r"pod=crash_default\([0-9a-f-]{36}\)$")
        self.assertEqual(pod["status"]["phase"], "Running")
        table = self.kubectl.run("get", "pod", "crash").stdout
        self.assertRegex(table, r"crash\s+0/1\s+CrashLoopBackOff\s+\d+ "
                                r"\(\d+s ago\)")
        self.assertEqual(self.kubectl.run("logs", "crash").stdout, "dying\n")
        self.assertEqual(self.kubectl.run("logs", "crash",
                                          "--previous").stdout, "dying\n")
        self.assertTrue(any(
            e[0] == "Warning" and e[1] == "BackOff" and
            e[2].startswith("Back-off restarting failed container crash in "
                            "pod crash_default(")
            for e in self.events_of("crash")))

    def test_missing_image_tag_fails_to_pull(self):
        self.kubectl.run("run", "bad", "--image=nginx:doesnotexist")
        pod = self.wait_pod("bad", lambda p: self.waiting_reason(p) ==
                            "ImagePullBackOff")
        self.assertEqual(pod["status"]["phase"], "Pending")
        msg = pod["status"]["containerStatuses"][0]["state"]["waiting"][
            "message"]
        self.assertEqual(
            msg, 'Back-off pulling image "nginx:doesnotexist": ErrImagePull: '
            "rpc error: code = NotFound desc = failed to pull and unpack "
            'image "docker.io/library/nginx:doesnotexist": failed to resolve '
            'reference "docker.io/library/nginx:doesnotexist": '
            "docker.io/library/nginx:doesnotexist: not found")
        events = self.events_of("bad")
        self.assertIn(("Warning", "Failed", "Error: ErrImagePull"), events)
        self.assertIn(("Normal", "BackOff",
                       'Back-off pulling image "nginx:doesnotexist"'), events)
        p = self.kubectl.run("logs", "bad", check=False)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(
            p.stderr, 'Error from server (BadRequest): container "bad" in pod '
            '"bad" is waiting to start: trying and failing to pull image\n')

    def test_invalid_image_name(self):
        # kubectl run checks the name itself; a manifest reaches the kubelet.
        self.kubectl.run("apply", "-f", "-", input=json.dumps({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "caps"},
            "spec": {"containers": [{"name": "caps", "image": "Nginx"}]}}))
        pod = self.wait_pod("caps", lambda p: self.waiting_reason(p) ==
                            "InvalidImageName")
        self.assertEqual(
            pod["status"]["containerStatuses"][0]["state"]["waiting"]
            ["message"],
            'Failed to apply default image tag "Nginx": couldn\'t parse image '
            'name "Nginx": invalid reference format: repository name '
            "(library/Nginx) must be lowercase")

    def test_never_restarted_pod_completes(self):
        self.kubectl.run("run", "once", "--image=busybox", "--restart=Never",
                         "--", "sh", "-c", "sleep 2; echo finished")
        pod = self.wait_pod("once", lambda p: p["status"].get("phase") ==
                            "Succeeded")
        term = pod["status"]["containerStatuses"][0]["state"]["terminated"]
        self.assertEqual((term["exitCode"], term["reason"]), (0, "Completed"))
        conds = {c["type"]: c for c in pod["status"]["conditions"]}
        self.assertEqual((conds["Ready"]["status"],
                          conds["Ready"].get("reason")),
                         ("False", "PodCompleted"))
        self.assertRegex(self.kubectl.run("get", "pod", "once").stdout,
                         r"once\s+0/1\s+Completed\s+0")
        self.assertEqual(self.kubectl.run("logs", "once").stdout,
                         "finished\n")

    def test_failing_never_pod_fails(self):
        self.kubectl.run("run", "fails", "--image=busybox", "--restart=Never",
                         "--", "sh", "-c", "exit 3")
        pod = self.wait_pod("fails", lambda p: p["status"].get("phase") ==
                            "Failed")
        term = pod["status"]["containerStatuses"][0]["state"]["terminated"]
        self.assertEqual((term["exitCode"], term["reason"]), (3, "Error"))

    def test_job_tutorial_pod_computes_pi(self):
        self.kubectl.run("run", "pi", "--image=perl:5.34.0", "--restart=Never",
                         "--command", "--", "perl", "-Mbignum=bpi", "-wle",
                         "print bpi(2000)")
        self.wait_pod("pi", lambda p: p["status"].get("phase") == "Succeeded")
        out = self.kubectl.run("logs", "pi").stdout
        self.assertTrue(out.startswith("3.14159265358979323846264338327950"),
                        out[:60])
        self.assertEqual(len(out), 2002)

    def test_run_rm_interactive_prints_and_removes_its_pod(self):
        p = self.kubectl.run("run", "hello", "--image=busybox", "--rm", "-i",
                             "--restart=Never", "--pod-running-timeout=30s",
                             "--", "echo", "hi", check=False, timeout=60)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertTrue(p.stdout.startswith("hi\n"), p.stdout)
        self.assertIn('pod "hello" deleted', p.stdout)
        self.assertTrue(harness.wait_until(
            lambda: self.kubectl.run("get", "pod", "hello",
                                     check=False).returncode == 1, 30))

    def test_logs_previous_without_previous_instance(self):
        self.kubectl.run("run", "sleeper", "--image=busybox", "--restart=Never",
                         "--", "sleep", "3600")
        self.kubectl.run("wait", "--for=condition=Ready", "pod/sleeper",
                         "--timeout=60s")
        p = self.kubectl.run("logs", "sleeper", "--previous", check=False)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertEqual(p.stdout, "")
        self.assertEqual(
            p.stderr,
            'Error from server (BadRequest): previous terminated container '
            '"sleeper" in pod "sleeper" not found\n')
        # The current instance's log is there (sleep prints nothing).
        self.assertEqual(self.kubectl.run("logs", "sleeper").stdout, "")

    def test_bad_log_options_are_refused(self):
        self.kubectl.run("run", "opts", "--image=busybox", "--restart=Never",
                         "--", "sleep", "3600")
        self.kubectl.run("wait", "--for=condition=Ready", "pod/opts",
                         "--timeout=60s")
        base = "/api/v1/namespaces/default/pods/opts/log"
        p = self.kubectl.run("get", "--raw", base + "?tailLines=-2",
                             check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn('PodLogOptions "opts" is invalid: tailLines: Invalid '
                      "value: -2: must be greater than or equal to 0",
                      p.stderr)
        p = self.kubectl.run("get", "--raw", base + "?sinceTime=yesterday",
                             check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn("Error from server (BadRequest)", p.stderr)

    def test_exec_into_a_running_container(self):
        self.kubectl.run("run", "shell", "--image=busybox", "--restart=Never",
                         "--", "sleep", "3600")
        self.kubectl.run("wait", "--for=condition=Ready", "pod/shell",
                         "--timeout=60s")
        p = self.kubectl.run("exec", "shell", "--", "sh", "-c",
                             "echo from-inside; hostname", check=False,
                             timeout=60)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(p.stdout, "from-inside\nshell\n")
        p = self.kubectl.run("exec", "shell", "--", "sh", "-c", "exit 3",
                             check=False, timeout=60)
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertEqual(p.stderr, "command terminated with exit code 3\n")
        p = self.kubectl.run("exec", "-i", "shell", "--", "cat",
                             input="piped in\n", timeout=60)
        self.assertEqual(p.stdout, "piped in\n")
        p = self.kubectl.run("exec", "shell", "--", "ls", "/etc",
                             timeout=60)
        self.assertIn("hostname\nhosts\n", p.stdout)

    def test_volumes_and_environment_inside_the_containers(self):
        self.kubectl.run("apply", "-f", "-", input=json.dumps({
            "apiVersion": "v1", "kind": "List", "items": [
                {"apiVersion": "v1", "kind": "ConfigMap",
                 "metadata": {"name": "app-config"},
                 "data": {"color": "blue", "size": "large"}},
                {"apiVersion": "v1", "kind": "Secret",
                 "metadata": {"name": "app-secret"},
                 "stringData": {"password": "s3cret"}},
                {"apiVersion": "v1", "kind": "Pod",
                 "metadata": {"name": "vols"},
                 "spec": {
                     "containers": [
                         {"name": "writer", "image": "busybox",
                          "command": ["sh", "-c", "echo shared > /data/file; "
                                      "sleep 3600"],
                          "env": [
                              {"name": "COLOR", "valueFrom": {
                                  "configMapKeyRef": {"name": "app-config",
                                                      "key": "color"}}},
                              {"name": "PASS", "valueFrom": {
                                  "secretKeyRef": {"name": "app-secret",
                                                   "key": "password"}}},
                              {"name": "POD_NAME", "valueFrom": {
                                  "fieldRef": {
                                      "fieldPath": "metadata.name"}}}],
                          "volumeMounts": [
                              {"name": "data", "mountPath": "/data"},
                              {"name": "config", "mountPath": "/etc/config"},
                              {"name": "secret", "mountPath": "/etc/secret"}]},
                         {"name": "reader", "image": "busybox",
                          "command": ["sleep", "3600"],
                          "volumeMounts": [
                              {"name": "data", "mountPath": "/data"}]}],
                     "volumes": [
                         {"name": "data", "emptyDir": {}},
                         {"name": "config",
                          "configMap": {"name": "app-config"}},
                         {"name": "secret",
                          "secret": {"secretName": "app-secret"}}]}}]}))
        self.kubectl.run("wait", "--for=condition=Ready", "pod/vols",
                         "--timeout=60s")

        def exec_in(container, script, check=True):
            return self.kubectl.run("exec", "vols", "-c", container, "--",
                                    "sh", "-c", script, check=check,
                                    timeout=60)
        self.assertEqual(exec_in("writer", "ls /etc/config").stdout,
                         "color\nsize\n")
        self.assertEqual(exec_in("writer", "cat /etc/config/color; echo; "
                                 "cat /etc/secret/password").stdout,
                         "blue\ns3cret")
        self.assertEqual(exec_in("writer", "echo $COLOR $PASS $POD_NAME")
                         .stdout, "blue s3cret vols\n")
        self.assertEqual(exec_in("reader", "cat /data/file").stdout,
                         "shared\n")
        p = exec_in("writer", "echo x > /etc/config/new", check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn("Read-only file system", p.stderr)
        hosts = exec_in("reader", "cat /etc/hosts; cat /etc/resolv.conf")
        self.assertRegex(hosts.stdout, r"\d+\.\d+\.\d+\.\d+\tvols\n")
        self.assertIn("search default.svc.cluster.local svc.cluster.local "
                      "cluster.local\n", hosts.stdout)

    def test_interactive_shell_over_a_terminal(self):
        self.kubectl.run("run", "tty", "--image=busybox", "--restart=Never",
                         "--", "sleep", "3600")
        self.kubectl.run("wait", "--for=condition=Ready", "pod/tty",
                         "--timeout=60s")
        send, read_until, finish = self.run_in_pty("exec", "-it", "tty", "--",
                                                   "sh")
        self.assertTrue(read_until(b"/ # "))
        send(b"cd /etc; X=5; echo $X $HOSTNAME\r")
        self.assertTrue(read_until(b"5 tty\r\n/etc # "))
        send(b"exit 4\r")
        code, out = finish()
        self.assertEqual(code, 4, out)
        self.assertIn(b"command terminated with exit code 4", out)

    def run_in_pty(self, *args):
        """kubectl in a terminal: (send, read_until, finish)."""
        pid, fd = pty.fork()
        if pid == 0:
            argv = self.kubectl.argv(*args)
            os.execve(argv[0], argv, self.kubectl.env)
        out = [b""]

        def read_until(text, timeout=20):
            deadline = time.monotonic() + harness.budget(timeout)
            while text not in out[0] and time.monotonic() < deadline:
                ready, _, _ = select.select([fd], [], [], 0.1)
                if ready:
                    try:
                        chunk = os.read(fd, 4096)
                    except OSError:
                        break
                    if not chunk:
                        break
                    out[0] += chunk
            return text in out[0]

        def finish():
            read_until(b"\0", 30)  # everything until kubectl exits
            _, status = os.waitpid(pid, 0)
            os.close(fd)
            return os.WEXITSTATUS(status), out[0]
        return (lambda data: os.write(fd, data)), read_until, finish

    def test_run_it_rm_gives_a_shell_of_the_container(self):
        send, read_until, finish = self.run_in_pty(
            "run", "box", "-it", "--rm", "--image=busybox",
            "--restart=Never", "--", "sh")
        self.assertTrue(read_until(b"/ # ", 60))
        send(b"echo $HOSTNAME; exit 3\r")
        code, out = finish()
        self.assertIn(b"\r\nbox\r\n", out)
        self.assertIn(b'pod "box" deleted', out)
        self.assertEqual(code, 3, out)

    def test_node_debug_pod_lists_the_nodes_processes(self):
        self.kubectl.run("run", "onnode", "--image=nginx", "--overrides",
                         '{"spec": {"nodeName": "worker-1"}}')
        self.kubectl.run("wait", "--for=condition=Ready", "pod/onnode",
                         "--timeout=60s")
        send, read_until, finish = self.run_in_pty(
            "debug", "node/worker-1", "-it", "--image=busybox")
        self.assertTrue(read_until(b"/ # ", 60))
        send(b"ps\r")
        self.assertTrue(read_until(b"nginx -g daemon off;", 20))
        send(b"exit\r")
        _, out = finish()
        text = out.decode(errors="replace")
        self.assertRegex(text, r"\s+1 root +0:00 /sbin/init")
        self.assertIn("/usr/bin/kubelet --bootstrap-kubeconfig", text)
        self.assertIn("/usr/local/bin/kube-proxy", text)

    def test_attach_streams_what_the_program_prints(self):
        self.kubectl.run("run", "talker", "--image=busybox", "--", "sh", "-c",
                         "sleep 2; echo first; sleep 1; echo second; "
                         "sleep 3600")
        self.kubectl.run("wait", "--for=condition=Ready", "pod/talker",
                         "--timeout=60s")
        bg = self.kubectl.popen("attach", "talker")
        try:
            self.assertTrue(harness.wait_until(
                lambda: "second\n" in bg.output(), 30),
                bg.output() + bg.stderr())
        finally:
            bg.stop()

    def test_cp_copies_files_and_directories_both_ways(self):
        self.kubectl.run("run", "files", "--image=busybox", "--restart=Never",
                         "--", "sleep", "3600")
        self.kubectl.run("wait", "--for=condition=Ready", "pod/files",
                         "--timeout=60s")
        src = os.path.join(self.workdir, "cp-src")
        os.makedirs(os.path.join(src, "sub"), exist_ok=True)
        with open(os.path.join(src, "sub", "one.txt"), "w") as f:
            f.write("one\n")
        with open(os.path.join(self.workdir, "note.txt"), "w") as f:
            f.write("a note\n")
        self.kubectl.run("cp", os.path.join(self.workdir, "note.txt"),
                         "files:/tmp/note.txt", timeout=60)
        self.kubectl.run("cp", src, "files:/tmp/tree", timeout=60)
        p = self.kubectl.run("exec", "files", "--", "cat", "/tmp/note.txt",
                             "/tmp/tree/sub/one.txt", timeout=60)
        self.assertEqual(p.stdout, "a note\none\n")
        back = os.path.join(self.workdir, "cp-back")
        self.kubectl.run("cp", "files:/tmp/tree", back, timeout=60)
        with open(os.path.join(back, "sub", "one.txt")) as f:
            self.assertEqual(f.read(), "one\n")
        host = os.path.join(self.workdir, "hostname")
        self.kubectl.run("cp", "files:/etc/hostname", host, timeout=60)
        with open(host) as f:
            self.assertEqual(f.read(), "files\n")

    def test_probes_gate_readiness_and_restart_the_unhealthy(self):
        self.kubectl.run("apply", "-f", "-", input=json.dumps({
            "apiVersion": "v1", "kind": "List", "items": [
                {"apiVersion": "v1", "kind": "Pod",
                 "metadata": {"name": "probe-live"},
                 "spec": {"containers": [{
                     "name": "liveness", "image": "registry.k8s.io/busybox",
                     "args": ["/bin/sh", "-c", "touch /tmp/healthy; sleep 3; "
                              "rm -f /tmp/healthy; sleep 600"],
                     "livenessProbe": {
                         "exec": {"command": ["cat", "/tmp/healthy"]},
                         "initialDelaySeconds": 1, "periodSeconds": 1}}]}},
                {"apiVersion": "v1", "kind": "Pod",
                 "metadata": {"name": "probe-ok", "labels": {"app": "pr"}},
                 "spec": {"containers": [{
                     "name": "web", "image": "nginx",
                     "readinessProbe": {"httpGet": {"path": "/", "port": 80},
                                        "periodSeconds": 1}}]}},
                {"apiVersion": "v1", "kind": "Pod",
                 "metadata": {"name": "probe-bad", "labels": {"app": "pr"}},
                 "spec": {"containers": [{
                     "name": "web", "image": "nginx",
                     "readinessProbe": {"httpGet": {"path": "/healthz",
                                                    "port": 80},
                                        "periodSeconds": 1}}]}},
                {"apiVersion": "v1", "kind": "Service",
                 "metadata": {"name": "pr"},
                 "spec": {"selector": {"app": "pr"},
                          "ports": [{"port": 80}]}}]}))
        self.kubectl.run("wait", "--for=condition=Ready", "pod/probe-ok",
                         "--timeout=60s")
        ok_ip = self.pod("probe-ok")["status"]["podIP"]

        def endpoints():
            p = self.kubectl.run("get", "endpointslices", "-l",
                                 "kubernetes.io/service-name=pr", "-o",
                                 "json")
            return sorted(a for s in json.loads(p.stdout)["items"]
                          for e in s.get("endpoints") or []
                          if e.get("conditions", {}).get("ready")
                          for a in e["addresses"])
        self.assertTrue(harness.wait_until(
            lambda: endpoints() == [ok_ip], 30), endpoints())
        bad = self.pod("probe-bad")
        self.assertFalse(bad["status"]["containerStatuses"][0]["ready"])
        self.assertTrue(harness.wait_until(
            lambda: ("Warning", "Unhealthy", "Readiness probe failed: HTTP "
                     "probe failed with statuscode: 404")
            in self.events_of("probe-bad"), 30))
        live = self.wait_pod("probe-live", lambda p: p["status"].get(
            "containerStatuses", [{}])[0].get("restartCount", 0) >= 1)
        last = live["status"]["containerStatuses"][0]["lastState"]
        self.assertEqual(last["terminated"]["exitCode"], 137)
        events = self.events_of("probe-live")
        self.assertIn(("Warning", "Unhealthy", "Liveness probe failed: cat: "
                       "can't open '/tmp/healthy': No such file or "
                       "directory\n"), events)
        self.assertIn(("Normal", "Killing", "Container liveness failed "
                       "liveness probe, will be restarted"), events)
        self.assertIn('"GET / HTTP/1.1" 200 615 "-" "kube-probe/1.33" "-"',
                      self.kubectl.run("logs", "probe-ok").stdout)

    def test_memory_limit_below_the_need_is_oom_killed(self):
        self.kubectl.run("apply", "-f", "-", input=json.dumps({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "memory-demo-2"},
            "spec": {"containers": [{
                "name": "memory-demo-2-ctr", "image": "polinux/stress",
                "resources": {"requests": {"memory": "50Mi"},
                              "limits": {"memory": "100Mi"}},
                "command": ["stress"],
                "args": ["--vm", "1", "--vm-bytes", "250M", "--vm-hang",
                         "1"]}]}}))
        pod = self.wait_pod("memory-demo-2", lambda p: p["status"].get(
            "containerStatuses", [{}])[0].get("lastState", {}).get(
                "terminated"))
        term = pod["status"]["containerStatuses"][0]["lastState"][
            "terminated"]
        self.assertEqual((term["reason"], term["exitCode"]),
                         ("OOMKilled", 137))

    def test_top_prints_node_and_pod_usage(self):
        self.kubectl.run("run", "topweb", "--image=nginx")
        self.kubectl.run("wait", "--for=condition=Ready", "pod/topweb",
                         "--timeout=60s")
        nodes = self.kubectl.run("get", "nodes", "-o",
                                 "name").stdout.split()
        out = self.kubectl.run("top", "nodes").stdout.splitlines()
        # kubectl 1.30 and later put the percent signs in parentheses.
        self.assertRegex(out[0], r"^NAME +CPU\(cores\) +CPU\(?%\)? +"
                         r"MEMORY\(bytes\) +MEMORY\(?%\)? *$")
        self.assertEqual(len(out) - 1, len(nodes))
        for line in out[1:]:
            self.assertRegex(line, r"^\S+ +\d+m +\d+% +\d+Mi +\d+% *$")
        out = self.kubectl.run("top", "pod", "topweb",
                               "--containers").stdout.splitlines()
        self.assertRegex(out[0], r"^POD +NAME +CPU\(cores\) +"
                         r"MEMORY\(bytes\) *$")
        self.assertRegex(out[1], r"^topweb +topweb +\d+m +3Mi *$")
        p = self.kubectl.run("top", "pod", "nope", check=False)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr, 'Error from server (NotFound): '
                         'podmetrics.metrics.k8s.io "default/nope" not '
                         'found\n')

    def free_port(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]

    def forward(self, target, mapping):
        """kubectl port-forward in the background, once it listens."""
        bg = self.kubectl.popen("port-forward", target, mapping)
        local = mapping.split(":")[0]
        if not harness.wait_until(
                lambda: "Forwarding from 127.0.0.1:" + local in bg.output(),
                30):
            bg.stop()
            self.fail(bg.output() + bg.stderr())
        return bg

    @staticmethod
    def http_get(port, path="/"):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
        try:
            conn.request("GET", path, headers={"User-Agent": "e2e/1.0"})
            res = conn.getresponse()
            return res.status, res.read().decode()
        finally:
            conn.close()

    def test_port_forward_reaches_nginx_and_its_log(self):
        self.kubectl.run("run", "fwd", "--image=nginx")
        self.kubectl.run("wait", "--for=condition=Ready", "pod/fwd",
                         "--timeout=60s")
        port = self.free_port()
        bg = self.forward("pod/fwd", "%d:80" % port)
        try:
            status, body = self.http_get(port)
            self.assertEqual(status, 200)
            self.assertIn("<h1>Welcome to nginx!</h1>", body)
            status, body = self.http_get(port, "/missing")
            self.assertEqual(status, 404)
            self.assertIn("<center><h1>404 Not Found</h1></center>", body)
            self.assertIn("Handling connection for %d" % port, bg.output())
        finally:
            bg.stop()
        log = self.kubectl.run("logs", "fwd").stdout
        self.assertRegex(
            log, r'127\.0\.0\.1 - - \[\d\d/\w{3}/\d{4}:\d\d:\d\d:\d\d '
            r'\+0000\] "GET / HTTP/1\.1" 200 \d+ "-" "e2e/1\.0" "-"\n')
        self.assertIn('"GET /missing HTTP/1.1" 404 ', log)

    def test_port_forward_to_a_deployment_and_a_closed_port(self):
        self.kubectl.run("create", "deployment", "cache", "--image=redis")
        self.kubectl.run("rollout", "status", "deployment/cache",
                         "--timeout=60s")
        port = self.free_port()
        bg = self.forward("deployment/cache", "%d:6379" % port)
        try:
            with socket.create_connection(("127.0.0.1", port), 20) as s:
                s.sendall(b"PING\r\n")
                self.assertEqual(s.recv(100), b"+PONG\r\n")
        finally:
            bg.stop()
        # Nothing listens on 6380: the connection is refused in the pod,
        # and kubectl reports it.
        port = self.free_port()
        bg = self.forward("deployment/cache", "%d:6380" % port)
        try:
            with socket.create_connection(("127.0.0.1", port), 20) as s:
                s.settimeout(20)
                self.assertEqual(s.recv(100), b"")
            self.assertTrue(harness.wait_until(
                lambda: "connect: connection refused" in bg.stderr(), 20),
                bg.stderr())
            self.assertIn("an error occurred forwarding %d -> 6380" % port,
                          bg.stderr())
        finally:
            bg.stop()

    def test_missing_configuration_shows_the_kubelets_errors(self):
        self.kubectl.run("apply", "-f", "-", input=json.dumps({
            "apiVersion": "v1", "kind": "List", "items": [
                {"apiVersion": "v1", "kind": "Pod",
                 "metadata": {"name": "needs-env"},
                 "spec": {"containers": [
                     {"name": "app", "image": "busybox:1.36",
                      "command": ["sleep", "3600"],
                      "env": [{"name": "LEVEL", "valueFrom": {
                          "configMapKeyRef": {"name": "nowhere",
                                              "key": "level"}}}]}]}},
                {"apiVersion": "v1", "kind": "Pod",
                 "metadata": {"name": "needs-volume"},
                 "spec": {
                     "containers": [
                         {"name": "app", "image": "nginx",
                          "volumeMounts": [{"name": "cfg",
                                            "mountPath": "/etc/config"}]}],
                     "volumes": [{"name": "cfg",
                                  "secret": {"secretName": "nowhere"}}]}}]}))
        pod = self.wait_pod("needs-env", lambda p: self.waiting_reason(p) ==
                            "CreateContainerConfigError")
        cs = pod["status"]["containerStatuses"][0]
        self.assertEqual(cs["state"]["waiting"]["message"],
                         'configmap "nowhere" not found')
        self.assertIn(("Warning", "Failed",
                       'Error: configmap "nowhere" not found'),
                      self.events_of("needs-env"))
        p = self.kubectl.run("get", "pod", "needs-env")
        self.assertRegex(p.stdout, r"needs-env\s+0/1\s+"
                         r"CreateContainerConfigError\s+0\s+")
        self.wait_pod("needs-volume", lambda p: self.waiting_reason(p) ==
                      "ContainerCreating")
        self.assertTrue(harness.wait_until(
            lambda: ("Warning", "FailedMount",
                     'MountVolume.SetUp failed for volume "cfg" : secret '
                     '"nowhere" not found') in self.events_of("needs-volume"),
            10))
        p = self.kubectl.run("get", "pod", "needs-volume")
        self.assertRegex(p.stdout,
                         r"needs-volume\s+0/1\s+ContainerCreating\s+0\s+")
        self.kubectl.run("delete", "pod", "needs-env", "needs-volume",
                         "--wait=false")

    def test_service_account_token_file_authenticates_as_the_account(self):
        self.kubectl.run("run", "sa-user", "--image=nginx")
        self.kubectl.run("wait", "--for=condition=Ready", "pod/sa-user",
                         "--timeout=60s")
        base = "/var/run/secrets/kubernetes.io/serviceaccount/"
        p = self.kubectl.run("exec", "sa-user", "--", "ls", base)
        self.assertEqual(p.stdout, "ca.crt\nnamespace\ntoken\n")
        p = self.kubectl.run("exec", "sa-user", "--", "cat", base + "namespace")
        self.assertEqual(p.stdout, "default")
        token = self.kubectl.run("exec", "sa-user", "--", "cat",
                                 base + "token").stdout
        self.assertEqual(token.count("."), 2)  # a signed JWT
        path = os.path.join(self.workdir, "sa-kubeconfig")
        token_kubeconfig(self.server.kubeconfig, token, path)
        as_account = harness.Kubectl(self.workdir, path,
                                     harness.kubectl_version())
        p = as_account.run("auth", "whoami", "-o", "json")
        user = json.loads(p.stdout)["status"]["userInfo"]
        self.assertEqual(user["username"],
                         "system:serviceaccount:default:default")
        self.assertIn("system:serviceaccounts:default", user["groups"])
        self.kubectl.run("delete", "pod", "sa-user", "--wait=false")

    def test_upgrades_without_a_protocol_we_speak_are_refused(self):
        self.kubectl.run("run", "proto", "--image=nginx")
        self.kubectl.run("wait", "--for=condition=Ready", "pod/proto",
                         "--timeout=60s")
        creds = harness.Credentials(self.server.kubeconfig, self.workdir)
        base = "/api/v1/namespaces/default/pods/proto/"

        def ask(path, headers):
            status, got, body = harness.https_request(
                self.server, "POST", base + path, headers=headers,
                cafile=creds.ca, cert=creds.cert, key=creds.key)
            return status, got, body.decode()
        spdy = {"Connection": "Upgrade", "Upgrade": "SPDY/3.1"}
        status, _, body = ask("exec?command=true", {})
        self.assertEqual((status, json.loads(body)["message"]),
                         (400, "Upgrade request required"))
        # The kubelet's handshake refusal, passed on as it is.
        status, headers, body = ask(
            "exec?command=true",
            dict(spdy, **{"X-Stream-Protocol-Version": "v9.channel.k8s.io"}))
        self.assertEqual(status, 403)
        self.assertEqual(
            body, "unable to upgrade: unable to negotiate protocol: client "
                  "supports [v9.channel.k8s.io], server accepts "
                  "[v5.channel.k8s.io v4.channel.k8s.io v3.channel.k8s.io "
                  "v2.channel.k8s.io channel.k8s.io]\n")
        self.assertTrue(headers["Content-Type"].startswith("text/plain"))
        status, _, body = ask(
            "portforward?ports=80",
            dict(spdy, **{"X-Stream-Protocol-Version": "v9"}))
        self.assertEqual((status, body), (
            403, "unable to upgrade: unable to negotiate protocol: client "
                 "supports [v9], server accepts [portforward.k8s.io]\n"))
        self.kubectl.run("delete", "pod", "proto", "--wait=false")

    def test_discovery_lists_the_stream_subresources(self):
        p = self.kubectl.run("get", "--raw", "/api/v1")
        names = {r["name"]: r for r in json.loads(p.stdout)["resources"]}
        for sub, kind in (("pods/attach", "PodAttachOptions"),
                          ("pods/exec", "PodExecOptions"),
                          ("pods/portforward", "PodPortForwardOptions")):
            self.assertIn(sub, names)
            self.assertEqual(names[sub]["kind"], kind)
            self.assertEqual(sorted(names[sub]["verbs"]), ["create", "get"])


class VolumeUpdateTest(harness.ServerTestCase):
    """A cluster whose kubelets sync each pod every 2 s (pacing.syncMs in
    the cluster file): changed ConfigMaps and Secrets reach the files of
    the volumes at the next sync; env and subPath mounts keep what the
    container started with."""

    @classmethod
    def setUpClass(cls):
        cls.cluster_dir = tempfile.mkdtemp(prefix="kubemock-sync-")
        path = os.path.join(cls.cluster_dir, "cluster.yaml")
        with open(path, "w") as f:
            f.write("name: sync\n"
                    "pacing: {syncMs: 2000}\n"
                    "nodes:\n"
                    "- name: manage-1\n"
                    "  roles: [control-plane]\n"
                    "  components: [etcd, kube-apiserver, "
                    "kube-controller-manager, kube-scheduler]\n"
                    "- name: worker-1\n")
        cls.server_args = ("--cluster", path)
        super().setUpClass()

    def test_configmap_and_secret_changes_reach_mounted_files(self):
        self.kubectl.run("create", "configmap", "app",
                         "--from-literal=color=blue")
        self.kubectl.run("create", "secret", "generic", "creds",
                         "--from-literal=password=one")
        self.kubectl.run("apply", "-f", "-", input=json.dumps({
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
            "spec": {
                "containers": [{
                    "name": "web", "image": "nginx",
                    "env": [{"name": "COLOR", "valueFrom": {
                        "configMapKeyRef": {"name": "app", "key": "color"}}}],
                    "volumeMounts": [
                        {"name": "cfg", "mountPath": "/etc/config"},
                        {"name": "cfg", "mountPath": "/etc/color",
                         "subPath": "color"},
                        {"name": "creds", "mountPath": "/etc/creds"},
                        {"name": "info", "mountPath": "/etc/podinfo"}]}],
                "volumes": [
                    {"name": "cfg", "configMap": {"name": "app"}},
                    {"name": "creds", "secret": {"secretName": "creds"}},
                    {"name": "info", "downwardAPI": {"items": [
                        {"path": "labels", "fieldRef": {
                            "fieldPath": "metadata.labels"}}]}}]}}))
        self.kubectl.run("wait", "--for=condition=Ready", "pod/web",
                         "--timeout=60s")

        def read():
            return self.kubectl.run(
                "exec", "web", "--", "sh", "-c",
                "cat /etc/config/color /etc/color /etc/creds/password; "
                "echo; echo $COLOR").stdout
        self.assertEqual(read(), "blueblueone\nblue\n")
        self.kubectl.run("patch", "configmap", "app", "-p",
                         '{"data":{"color":"red"}}')
        self.kubectl.run("patch", "secret", "creds", "-p",
                         '{"stringData":{"password":"two"}}')
        self.assertTrue(harness.wait_until(
            lambda: read() == "redbluetwo\nblue\n", 15), read())

        def labels():
            return self.kubectl.run("exec", "web", "--", "cat",
                                    "/etc/podinfo/labels").stdout
        self.assertEqual(labels(), "")
        self.kubectl.run("label", "pod", "web", "tier=front")
        self.assertTrue(harness.wait_until(
            lambda: labels() == 'tier="front"', 15), labels())


if __name__ == "__main__":
    unittest.main()
