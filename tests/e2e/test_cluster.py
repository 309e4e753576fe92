"""The default five-node cluster as kubectl sees it: version, discovery,
cluster-info, nodes and the kube-system pods."""

import ipaddress
import re
import unittest

import harness


class ClusterTest(harness.ServerTestCase):

    def test_version(self):
        p = self.kubectl.run("version")
        if harness.minor(self.kubectl.version) <= 27:
            want = harness.golden("version_1.27.txt")
        else:
            want = harness.golden("version.txt")
        got = harness.match_golden(self, p.stdout, want)
        if "client" in got:
            self.assertTrue(got["client"].startswith(self.kubectl.version + "."),
                            got["client"])

    def test_api_resources(self):
        p = self.kubectl.run("api-resources")
        rows = [re.split(r" {2,}", line.strip())
                for line in harness.normalise_lines(p.stdout)]
        self.assertEqual(rows[0],
                         ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED",
                          "KIND"])
        # Rows as a real cluster prints them (an empty SHORTNAMES cell
        # collapses into the gap).
        for want in (["bindings", "v1", "true", "Binding"],
                     ["events", "ev", "v1", "true", "Event"],
                     ["namespaces", "ns", "v1", "false", "Namespace"],
                     ["nodes", "no", "v1", "false", "Node"],
                     ["pods", "po", "v1", "true", "Pod"],
                     ["services", "svc", "v1", "true", "Service"],
                     ["leases", "coordination.k8s.io/v1", "true", "Lease"],
                     ["events", "ev", "events.k8s.io/v1", "true", "Event"]):
            self.assertIn(want, rows[1:], p.stdout)
        # Core group first, then the named groups.
        versions = [r[-3] for r in rows[1:]]
        first_grouped = next(i for i, v in enumerate(versions) if "/" in v)
        self.assertTrue(all(v == "v1" for v in versions[:first_grouped]),
                        p.stdout)
        self.assertTrue(all("/" in v for v in versions[first_grouped:]),
                        p.stdout)

    def test_cluster_info(self):
        p = self.kubectl.run("cluster-info")
        got = harness.match_golden(self, p.stdout,
                                   harness.golden("cluster_info.txt"))
        self.assertEqual(int(got["port"]), self.server.port)

    def test_get_nodes(self):
        p = self.kubectl.run("get", "nodes")
        harness.match_golden(self, p.stdout, harness.golden("get_nodes.txt"))
        self.assertEqual(p.stderr, "")

    def node_addresses(self):
        p = self.kubectl.run(
            "get", "nodes", "-o",
            'jsonpath={range .items[*]}{.metadata.name} '
            '{.status.addresses[?(@.type=="InternalIP")].address} '
            '{.spec.podCIDR}{"\\n"}{end}')
        out = {}
        for line in p.stdout.strip().split("\n"):
            name, ip, cidr = line.split(" ")
            out[name] = (ip, cidr)
        self.assertEqual(sorted(out), ["manage-1", "manage-2", "worker-1",
                                       "worker-2", "worker-3"])
        return out

    def test_kube_system_pods(self):
        p = self.kubectl.run("get", "pods", "-n", "kube-system", "-o", "wide")
        got = harness.match_golden(
            self, p.stdout, harness.golden("kube_system_pods_wide.txt"))
        nodes = self.node_addresses()
        # The control plane and kube-proxy run on the host network: their
        # pod IP is their node's InternalIP.
        for key, node in (("ip_ccm", "manage-2"), ("ip_etcd", "manage-1"),
                          ("ip_apis", "manage-1"), ("ip_kcm", "manage-2"),
                          ("ip_sched", "manage-2")):
            self.assertEqual(got[key], nodes[node][0], key)
        proxy_nodes = [got["proxy%d" % i] for i in range(1, 6)]
        self.assertEqual(sorted(proxy_nodes), sorted(nodes),
                         "one kube-proxy per node")
        for i in range(1, 6):
            self.assertEqual(got["ip_proxy%d" % i],
                             nodes[got["proxy%d" % i]][0])

    def test_node_pod_cidrs_disjoint(self):
        nets = [ipaddress.ip_network(c) for _, c in
                self.node_addresses().values()]
        for i, a in enumerate(nets):
            for b in nets[i + 1:]:
                self.assertFalse(a.overlaps(b), (a, b))


if __name__ == "__main__":
    unittest.main()
