"""Shared machinery of the end-to-end tests.

Starts the real kubemock binary (KUBEMOCK_BIN) on port 0, runs the real
kubectl (KUBECTL_VERSION picks /usr/lib/google-cloud-sdk/bin/kubectl.<v>)
against the standalone kubeconfig the server writes, speaks raw HTTPS with
the credentials from that kubeconfig, and matches output against golden
text with placeholders.

Nothing here reads or writes ~/.kube: HOME points into a temporary
directory and every kubectl gets its own --cache-dir.
"""

import base64
import http.client
import ipaddress
import json
import os
import re
import shutil
import signal
import ssl
import subprocess
import tempfile
import time
import unittest

KUBECTL_DIR = "/usr/lib/google-cloud-sdk/bin"
GOLDEN_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          "golden")
READY_RE = re.compile(
    r"^kubemock ready: (https://(\S+):(\d+)) kubeconfig=(\S+) context=(\S+)$")

# Sanitized builds (tests/sanitize/run sets KMOCK_SANITIZER) run several times
# slower. Every time budget goes through budget(): scaled under a sanitizer,
# never dropped. The harness scales its own waits (kubectl runs, wait_until,
# server start and stop); a test scales the budgets it asserts itself.
SANITIZER_SLOWDOWN = {"address": 3.0, "thread": 8.0}


def budget(seconds):
    """seconds, stretched for a sanitized kubemock."""
    sanitizer = os.environ.get("KMOCK_SANITIZER", "")
    if not sanitizer:
        return seconds
    return seconds * SANITIZER_SLOWDOWN.get(sanitizer, 8.0)


START_TIMEOUT = budget(20)
STOP_TIMEOUT = budget(20)
KUBECTL_TIMEOUT = 30  # budget() applies in run()


def kubemock_bin():
    path = os.environ.get("KUBEMOCK_BIN", "")
    if not path or not os.access(path, os.X_OK):
        raise unittest.SkipTest("KUBEMOCK_BIN is not set to an executable")
    return path


def kubectl_version():
    return os.environ.get("KUBECTL_VERSION", "1.33")


def minor(version):
    return int(version.split(".")[1])


class Server:
    """One kubemock process. Use start() / stop(); stop() returns the exit
    code after SIGTERM (the tests assert it is 0)."""

    def __init__(self, workdir, data_dir=None, seed=1, extra_args=()):
        self.workdir = workdir
        self.data_dir = data_dir
        self.seed = seed
        self.extra_args = list(extra_args)
        self.kubeconfig = os.path.join(workdir, "kubeconfig")
        self.proc = None
        self.url = None
        self.host = None
        self.port = None
        self._stdout_path = os.path.join(workdir, "server.stdout")
        self._stderr_path = os.path.join(workdir, "server.stderr")

    def start(self):
        args = [kubemock_bin(), "serve", "--port", "0", "--kubeconfig",
                self.kubeconfig, "--seed", str(self.seed)]
        if self.data_dir:
            args += ["--data-dir", self.data_dir]
        else:
            args += ["--in-memory"]
        args += self.extra_args
        env = clean_env(self.workdir)
        with open(self._stdout_path, "wb") as out, \
                open(self._stderr_path, "ab") as err:
            self.proc = subprocess.Popen(args, stdout=out, stderr=err,
                                         stdin=subprocess.DEVNULL, env=env)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            with open(self._stdout_path, "r", errors="replace") as f:
                for line in f:
                    m = READY_RE.match(line.rstrip("\n"))
                    if m:
                        self.url, self.host = m.group(1), m.group(2)
                        self.port = int(m.group(3))
                        if m.group(4) != self.kubeconfig:
                            raise AssertionError(
                                "ready line names kubeconfig %r, not %r" %
                                (m.group(4), self.kubeconfig))
                        return self
            if self.proc.poll() is not None:
                raise AssertionError(
                    "kubemock exited with %d before it was ready:\n%s" %
                    (self.proc.returncode, self.stderr_tail()))
            time.sleep(0.02)
        self.proc.kill()
        self.proc.wait()
        raise AssertionError("kubemock not ready within %ds:\n%s" %
                             (START_TIMEOUT, self.stderr_tail()))

    def stop(self):
        """SIGTERM by PID, wait, return the exit code."""
        if self.proc is None or self.proc.poll() is not None:
            return None if self.proc is None else self.proc.returncode
        os.kill(self.proc.pid, signal.SIGTERM)
        try:
            return self.proc.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
            raise AssertionError("kubemock ignored SIGTERM for %ds" %
                                 STOP_TIMEOUT)

    def stderr_tail(self, n=40):
        try:
            with open(self._stderr_path, "r", errors="replace") as f:
                return "".join(f.readlines()[-n:])
        except OSError:
            return ""


def clean_env(home):
    env = {k: v for k, v in os.environ.items()
           if k not in ("KUBECONFIG", "KUBECACHEDIR", "KUBECTL_VERSION",
                        "KUBEMOCK_DATA_DIR", "XDG_DATA_HOME")}
    env["HOME"] = home
    env["NO_COLOR"] = "1"
    return env


class Kubectl:
    """A real kubectl of one version, bound to one server's kubeconfig,
    with its own discovery cache."""

    def __init__(self, workdir, kubeconfig, version):
        self.version = version
        self.binary = os.path.join(KUBECTL_DIR, "kubectl." + version)
        if not os.access(self.binary, os.X_OK):
            raise unittest.SkipTest("no " + self.binary)
        self.kubeconfig = kubeconfig
        self.cache_dir = tempfile.mkdtemp(prefix="cache-", dir=workdir)
        self.env = clean_env(workdir)

    def argv(self, *args):
        return [self.binary, "--kubeconfig", self.kubeconfig, "--cache-dir",
                self.cache_dir] + list(args)

    def run(self, *args, timeout=KUBECTL_TIMEOUT, input=None, check=True):
        """Runs kubectl; returns the CompletedProcess (text). With check,
        a non-zero exit fails the calling test."""
        p = subprocess.run(self.argv(*args), input=input,
                           capture_output=True, text=True,
                           timeout=budget(timeout),
                           env=self.env)
        if check and p.returncode != 0:
            raise AssertionError("kubectl %s exited %d\nstdout:\n%s\nstderr:\n%s"
                                 % (" ".join(args), p.returncode, p.stdout,
                                    p.stderr))
        return p

    def popen(self, *args):
        """A background kubectl (e.g. get -w) writing to a temp file."""
        out = tempfile.TemporaryFile(mode="w+")
        err = tempfile.TemporaryFile(mode="w+")
        p = subprocess.Popen(self.argv(*args), stdout=out, stderr=err,
                             stdin=subprocess.DEVNULL, text=True,
                             env=self.env)
        return Background(p, out, err)


class Background:
    def __init__(self, proc, out, err):
        self.proc, self._out, self._err = proc, out, err

    def output(self):
        self._out.seek(0)
        return self._out.read()

    def stderr(self):
        self._err.seek(0)
        return self._err.read()

    def stop(self):
        """SIGTERM by PID (kubectl exits on it), then keeps the output."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        out, err = self.output(), self.stderr()
        self._out.close()
        self._err.close()
        self.output = lambda: out
        self.stderr = lambda: err


def wait_until(predicate, timeout, interval=0.05):
    deadline = time.monotonic() + budget(timeout)
    while True:
        value = predicate()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(interval)


# --- raw HTTPS -------------------------------------------------------------


class Credentials:
    """The CA, client certificate and key of a kubeconfig, as files."""

    def __init__(self, kubeconfig, workdir):
        with open(kubeconfig) as f:
            text = f.read()

        def field(name):
            m = re.search(r"\b" + name + r":\s*(\S+)", text)
            if not m:
                raise AssertionError("kubeconfig has no " + name)
            return base64.b64decode(m.group(1))

        d = tempfile.mkdtemp(prefix="creds-", dir=workdir)
        self.ca = os.path.join(d, "ca.crt")
        self.cert = os.path.join(d, "client.crt")
        self.key = os.path.join(d, "client.key")
        for path, name in ((self.ca, "certificate-authority-data"),
                           (self.cert, "client-certificate-data"),
                           (self.key, "client-key-data")):
            with open(path, "wb") as f:
                f.write(field(name))


def https_request(server, method, path, body=None, headers=None,
                  cafile=None, cert=None, key=None, timeout=10):
    """One request on a fresh TLS connection; returns (status, headers,
    body bytes). cert/key None means no client certificate."""
    ctx = ssl.create_default_context(cafile=cafile)
    if cert:
        ctx.load_cert_chain(cert, key)
    conn = http.client.HTTPSConnection(server.host, server.port, context=ctx,
                                       timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, dict(resp.getheaders()), resp.read()
    finally:
        conn.close()


# --- golden text -----------------------------------------------------------

# Placeholders usable in golden files. <name:label> captures the value under
# label so a test can check it further (e.g. an IP inside a CIDR).
PLACEHOLDERS = {
    "age": r"(?:\d+[smhdy])+|<invalid>",
    # kube's random suffix alphabet (no vowels, no 0/1/3).
    "suffix": r"[bcdfghjklmnpqrstvwxz2456789]{5}",
    "ip": r"\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}",
    "node": r"manage-1|manage-2|worker-1|worker-2|worker-3",
    "hex64": r"[0-9a-f]{64}",
    "hex40": r"[0-9a-f]{40}",
    "port": r"\d{1,5}",
    "uid": r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
    # describe's time format: Mon, 02 Jan 2006 15:04:05 -0700
    "date": r"[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} "
            r"[+-]\d{4}",
    "rfc3339": r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z",
    "duration": r"[0-9.]+(?:ms|s)",
    "int": r"\d+",
    "any": r".*",
}
_PH_RE = re.compile(r"<([a-z0-9]+)(?::([a-z_0-9]+))?>")


def line_regex(golden_line):
    """A golden line as a regex: placeholders become patterns, runs of two
    or more spaces (column gaps, whose width depends on the values) match
    any run of two or more, everything else is literal."""
    out, pos = [], 0
    for m in _PH_RE.finditer(golden_line):
        if m.group(1) not in PLACEHOLDERS:
            continue
        out.append(_literal(golden_line[pos:m.start()]))
        pat = PLACEHOLDERS[m.group(1)]
        if m.group(2):
            out.append("(?P<%s>%s)" % (m.group(2), pat))
        else:
            out.append("(?:%s)" % pat)
        pos = m.end()
    out.append(_literal(golden_line[pos:]))
    return re.compile("^" + "".join(out) + "$")


def _literal(text):
    parts = re.split(r"( {2,}|\t+)", text)
    return "".join("(?: {2,}|\t+)" if i % 2 else re.escape(p)
                   for i, p in enumerate(parts))


def normalise_lines(text):
    text = re.sub(r"\x1b\[[0-9;]*m", "", text)  # 1.27 colours cluster-info
    return [line.rstrip() for line in text.rstrip("\n").split("\n")]


def match_golden(testcase, actual, golden):
    """Asserts actual matches golden line by line; returns the merged
    captures of all lines (a label captured twice must be equal)."""
    got = normalise_lines(actual)
    want = normalise_lines(golden)
    captures = {}
    problems = []
    for i in range(max(len(got), len(want))):
        g = got[i] if i < len(got) else "<missing line>"
        if i >= len(want):
            problems.append("line %d unexpected: %r" % (i + 1, g))
            continue
        m = line_regex(want[i]).match(g)
        if not m:
            problems.append("line %d\n  want: %s\n  got:  %s" %
                            (i + 1, want[i], g))
            continue
        for k, v in m.groupdict().items():
            if k in captures and captures[k] != v:
                problems.append("line %d: %s is %r here but %r before" %
                                (i + 1, k, v, captures[k]))
            captures[k] = v
    if problems:
        testcase.fail("output differs from golden:\n" + "\n".join(problems) +
                      "\n--- actual ---\n" + actual)
    return captures


def golden(name):
    with open(os.path.join(GOLDEN_DIR, name)) as f:
        return f.read()


def in_cidr(ip, cidr):
    return ipaddress.ip_address(ip) in ipaddress.ip_network(cidr)


def status_body(testcase, body):
    """Parses a Status body and returns it as a dict."""
    try:
        st = json.loads(body)
    except ValueError:
        testcase.fail("not a JSON Status body: %r" % body[:200])
    testcase.assertEqual(st.get("kind"), "Status", st)
    testcase.assertEqual(st.get("apiVersion"), "v1", st)
    testcase.assertEqual(st.get("status"), "Failure", st)
    return st


class ServerTestCase(unittest.TestCase):
    """One server (in memory) and one kubectl per class."""

    server_args = ()

    @classmethod
    def setUpClass(cls):
        cls.workdir = tempfile.mkdtemp(prefix="kubemock-e2e-")
        cls.server = Server(cls.workdir, extra_args=cls.server_args).start()
        cls.kubectl = Kubectl(cls.workdir, cls.server.kubeconfig,
                              kubectl_version())

    @classmethod
    def tearDownClass(cls):
        rc = cls.server.stop()
        if rc == 0 and not os.environ.get("KUBEMOCK_E2E_KEEP"):
            shutil.rmtree(cls.workdir, ignore_errors=True)
        if rc != 0:
            raise AssertionError("kubemock exited %r after SIGTERM:\n%s" %
                                 (rc, cls.server.stderr_tail()))
