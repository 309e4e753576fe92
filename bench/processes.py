"""Processes a benchmark run started, stopped by PID and nothing else.

The driver forks servers and exits; as child subreaper the run inherits them,
so it can reap them by PID. Not thread-safe: one run owns one Processes.
"""

import ctypes
import os
import signal
import sys
import time

PR_SET_CHILD_SUBREAPER = 36


def log(msg):
    print("bench: " + msg, file=sys.stderr, flush=True)


class Processes:
    """Servers started through the driver. The driver forks them and exits;
    as child subreaper we inherit them, so we can reap them by PID."""

    def __init__(self):
        self.live = {}  # pid -> executable path, to guard against PID reuse

    def add(self, pid, exe):
        self.live[pid] = os.path.realpath(exe)

    def _ours(self, pid):
        try:
            exe = os.readlink("/proc/%d/exe" % pid)
        except OSError:
            return False
        # A binary rebuilt or replaced while its server runs shows as
        # "<path> (deleted)"; the process is still the one we started.
        deleted = " (deleted)"
        if exe.endswith(deleted) and not os.path.exists(exe):
            exe = exe[: -len(deleted)]
        return os.path.realpath(exe) == self.live[pid]

    def _reap(self, pid, timeout):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
                if done == pid:
                    return True
            except ChildProcessError:
                # Not our child (subreaper unavailable): watch /proc instead.
                if not os.path.exists("/proc/%d" % pid) or _zombie(pid):
                    return True
            time.sleep(0.005)
        return False

    def stop(self, pid, timeout=10.0):
        if pid not in self.live:
            return
        if self._ours(pid):
            os.kill(pid, signal.SIGTERM)
            if not self._reap(pid, timeout) and self._ours(pid):
                log("pid %d did not stop within %.0f s: SIGKILL" % (pid, timeout))
                # nginx workers outlive a killed master: take them too.
                children = _children(pid)
                os.kill(pid, signal.SIGKILL)
                self._reap(pid, 5.0)
                for child in children:
                    self.live[child] = self.live[pid]
                    self.stop(child, 1.0)
        else:
            self._reap(pid, 0.1)
        del self.live[pid]

    def stop_all(self):
        for pid in list(self.live):
            try:
                self.stop(pid)
            except OSError as e:
                log("stopping pid %d: %s" % (pid, e))


def _children(pid):
    kids = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open("/proc/%s/stat" % name) as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        kids.append(int(name))
            except (OSError, ValueError, IndexError):
                pass
    return kids


def _zombie(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def become_subreaper():
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except OSError:
        return False
