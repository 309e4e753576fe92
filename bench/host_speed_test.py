"""Tests for bench/host_speed.py: the steal share and the probe's work."""

import json
import os
import sys
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import host_speed  # noqa: E402


class ParseCpuLineTest(unittest.TestCase):
    def test_reads_the_aggregate_line(self):
        text = ("cpu  100 5 20 800 10 1 2 12 0 0\n"
                "cpu0 50 2 10 400 5 0 1 6 0 0\n")
        # user nice system idle iowait irq softirq steal; guest after.
        self.assertEqual(host_speed.parse_cpu_line(text),
                         (12, 100 + 5 + 20 + 800 + 10 + 1 + 2 + 12))

    def test_old_kernels_without_steal_count_none(self):
        self.assertEqual(host_speed.parse_cpu_line("cpu 1 2 3 4\n"),
                         (0, 10))

    def test_no_cpu_line(self):
        self.assertIsNone(host_speed.parse_cpu_line("intr 1 2 3\n"))


class StealShareTest(unittest.TestCase):
    def test_share_of_the_time_that_passed(self):
        before = (10, 1000)
        after = (60, 2000)
        self.assertAlmostEqual(host_speed.steal_share(before, after), 0.05)

    def test_unknown_without_both_readings_or_time(self):
        self.assertIsNone(host_speed.steal_share(None, (1, 1)))
        self.assertIsNone(host_speed.steal_share((1, 1), None))
        self.assertIsNone(host_speed.steal_share((1, 5), (1, 5)))


class ProbeTest(unittest.TestCase):
    def test_each_round_reads_what_the_last_wrote(self):
        _, text = host_speed.probe_once(3)
        obj = json.loads(text)
        self.assertEqual(obj["status"]["phase"], "Running")
        # The resourceVersion carries the length of the text before it.
        _, two = host_speed.probe_once(2)
        self.assertEqual(obj["metadata"]["resourceVersion"], str(len(two)))

    def test_more_rounds_take_longer(self):
        short = host_speed.probe_seconds(rounds=200, tries=1)
        long = host_speed.probe_seconds(rounds=4000, tries=1)
        self.assertGreater(short, 0)
        self.assertGreater(long, short)


if __name__ == "__main__":
    unittest.main()
