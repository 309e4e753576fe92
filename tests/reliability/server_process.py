"""Starts, kills and restarts one kubemock process on a persistent data
directory, and publishes where it currently listens.

The binary comes from KUBEMOCK_BIN (default /work/kmock-shared/kubemock).
Every start uses a free port (the e2e harness passes --port 0), so the
address changes across restarts: clients read it from an Endpoint, which is
thread-safe; a ServerProcess itself is used by one thread.
"""

import os
import signal
import subprocess
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "e2e"))

import harness  # noqa: E402  (tests/e2e/harness.py)

import kube_client  # noqa: E402

DEFAULT_BIN = "/work/kmock-shared/kubemock"


class Endpoint:
    """host:port of the running server and a generation that grows on
    every start. Thread-safe."""

    def __init__(self):
        self._lock = threading.Lock()
        self._host, self._port, self._generation = None, None, 0

    def set(self, host, port):
        with self._lock:
            self._host, self._port = host, port
            self._generation += 1

    def get(self):
        with self._lock:
            return self._host, self._port, self._generation


class ServerProcess:
    """One kubemock on data_dir under workdir, restartable."""

    def __init__(self, workdir, seed, extra_args=(), vary_seed=False):
        if not os.environ.get("KUBEMOCK_BIN"):
            os.environ["KUBEMOCK_BIN"] = DEFAULT_BIN
        self.workdir = workdir
        self.data_dir = os.path.join(workdir, "data")
        self.endpoint = Endpoint()
        self._server = harness.Server(workdir, data_dir=self.data_dir,
                                      seed=seed, extra_args=extra_args)
        self.creds = None
        self.starts = 0
        self._seed = seed
        self._vary_seed = vary_seed

    def start(self):
        """Starts with --seed seed, or seed + the number of earlier starts
        when vary_seed (so generated names and uids do not repeat even if
        the server restarts its random source from the seed)."""
        if self._vary_seed:
            self._server.seed = self._seed + self.starts
        self._server.start()
        self.starts += 1
        if self.creds is None:
            self.creds = kube_client.Credentials(self._server.kubeconfig,
                                                 self.workdir)
        self.endpoint.set(self._server.host, self._server.port)
        return self

    def kill(self):
        """SIGKILL by PID and reap."""
        proc = self._server.proc
        if proc is not None and proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()

    def stop(self):
        """SIGTERM; returns the exit code (0 expected)."""
        return self._server.stop()

    def repair(self):
        """Runs `kubemock repair` on the data directory (the server must be
        stopped); returns (exit code, its output)."""
        p = subprocess.run([os.environ["KUBEMOCK_BIN"], "repair",
                            "--data-dir", self.data_dir],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, timeout=120)
        return p.returncode, p.stdout.decode(errors="replace")

    def alive(self):
        proc = self._server.proc
        return proc is not None and proc.poll() is None

    def client(self, timeout=10.0):
        host, port, _ = self.endpoint.get()
        return kube_client.Client(self.creds, host, port, timeout=timeout)

    def stderr_tail(self, n=40):
        return self._server.stderr_tail(n)

    @property
    def kubeconfig(self):
        return self._server.kubeconfig
