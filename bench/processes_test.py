"""Tests for bench/processes.py: a run stops what it started, and only that."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from processes import Processes  # noqa: E402

SLEEP = shutil.which("sleep")


class ProcessesTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="kmock-procs-")
        self.started = []

    def tearDown(self):
        for child in self.started:
            if child.poll() is None:
                child.kill()
                child.wait()
        shutil.rmtree(self.dir)

    def start_copy(self, name):
        exe = os.path.join(self.dir, name)
        shutil.copy(SLEEP, exe)
        child = subprocess.Popen([exe, "60"])
        self.started.append(child)
        return exe, child

    def test_stops_its_server(self):
        exe, child = self.start_copy("server")
        procs = Processes()
        procs.add(child.pid, exe)
        procs.stop(child.pid, timeout=5.0)
        self.assertIsNotNone(child.poll())
        self.assertEqual(procs.live, {})

    def test_stops_its_server_after_the_binary_was_rebuilt(self):
        exe, child = self.start_copy("server")
        procs = Processes()
        procs.add(child.pid, exe)
        # A rebuild writes a new file over the path; the running process's
        # /proc/PID/exe then reads "<path> (deleted)".
        rebuilt = exe + ".new"
        shutil.copy(SLEEP, rebuilt)
        os.replace(rebuilt, exe)
        self.assertTrue(os.readlink("/proc/%d/exe" % child.pid).endswith(" (deleted)"))
        procs.stop(child.pid, timeout=5.0)
        self.assertIsNotNone(child.poll())

    def test_leaves_a_process_running_another_binary(self):
        _, child = self.start_copy("someone-else")
        procs = Processes()
        # The PID was recorded for a different executable (as after PID reuse).
        procs.add(child.pid, os.path.join(self.dir, "server"))
        procs.stop(child.pid, timeout=1.0)
        self.assertIsNone(child.poll())
        self.assertEqual(procs.live, {})


if __name__ == "__main__":
    unittest.main()
