"""The default five-node cluster as kubectl sees it: version, discovery,
cluster-info, nodes and the kube-system pods; and what a real cluster's own
components put back when it is deleted (the default/kubernetes Service, the
control plane's mirror pods, kube-proxy)."""

import ipaddress
import json
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


class SystemObjectsComeBackTest(harness.ServerTestCase):
    """Deleted, the cluster's own objects return as on a real cluster: the
    kubernetes Service within kube-apiserver's 10 s pass, a mirror pod at
    once from its node's kubelet (same containers), kube-proxy made again
    on its node by its DaemonSet."""

    def get_json(self, *args, check=True):
        """The object or list; None when it is not there (check=False)."""
        p = self.kubectl.run("get", *args, "-o", "json", check=check)
        return json.loads(p.stdout) if p.returncode == 0 else None

    def test_kubernetes_service_after_delete_all(self):
        before = self.get_json("service", "kubernetes")
        p = self.kubectl.run("delete", "all", "--all", timeout=60)
        self.assertEqual(p.stdout, 'service "kubernetes" deleted\n')

        def back():
            svc = self.get_json("service", "kubernetes", check=False)
            if svc and svc["metadata"]["uid"] != before["metadata"]["uid"]:
                return svc
            return None

        after = harness.wait_until(back, 15, interval=0.25)
        self.assertTrue(after, "default/kubernetes never came back")
        self.assertEqual(after["spec"], before["spec"])
        self.assertEqual(after["spec"]["clusterIP"], "10.96.0.1")
        self.assertEqual(after["metadata"]["labels"],
                         {"component": "apiserver", "provider": "kubernetes"})
        p = self.kubectl.run("get", "service")
        harness.match_golden(
            self, p.stdout,
            "NAME         TYPE        CLUSTER-IP   EXTERNAL-IP   PORT(S)   AGE\n"
            "kubernetes   ClusterIP   10.96.0.1    <none>        443/TCP   <age>")

    def wait_for_new(self, name, old_uid):
        def back():
            pod = self.get_json("pod", name, "-n", "kube-system",
                                check=False)
            if (pod and pod["metadata"]["uid"] != old_uid and
                    pod["status"].get("phase") == "Running" and
                    "deletionTimestamp" not in pod["metadata"]):
                return pod
            return None

        pod = harness.wait_until(back, 10, interval=0.1)
        self.assertTrue(pod, "pod %s never came back" % name)
        return pod

    def test_static_pod_after_delete(self):
        before = self.get_json("pod", "kube-apiserver-manage-1", "-n",
                               "kube-system")
        p = self.kubectl.run("delete", "pod", "kube-apiserver-manage-1",
                             "-n", "kube-system")
        self.assertEqual(p.stdout, 'pod "kube-apiserver-manage-1" deleted\n')
        after = self.wait_for_new("kube-apiserver-manage-1",
                                  before["metadata"]["uid"])
        self.assertEqual(after["spec"], before["spec"])
        self.assertEqual(after["metadata"]["annotations"],
                         before["metadata"]["annotations"])
        self.assertEqual(after["metadata"]["ownerReferences"],
                         before["metadata"]["ownerReferences"])
        # The static pod never stopped: the same container, not restarted.
        self.assertEqual(after["status"]["containerStatuses"],
                         before["status"]["containerStatuses"])
        p = self.kubectl.run("get", "pod", "kube-apiserver-manage-1", "-n",
                             "kube-system")
        harness.match_golden(
            self, p.stdout,
            "NAME                      READY   STATUS    RESTARTS   AGE\n"
            "kube-apiserver-manage-1   1/1     Running   0          <age>")

    def test_kube_proxy_after_delete(self):
        pods = self.get_json("pods", "-n", "kube-system",
                             "-l", "k8s-app=kube-proxy")["items"]
        self.assertEqual(len(pods), 5)
        before = pods[0]
        name = before["metadata"]["name"]
        node = before["spec"]["nodeName"]
        p = self.kubectl.run("delete", "pod", name, "-n", "kube-system")
        self.assertEqual(p.stdout, 'pod "%s" deleted\n' % name)

        # Its DaemonSet makes another for the node, under a new name.
        def replaced():
            now = self.get_json("pods", "-n", "kube-system",
                                "-l", "k8s-app=kube-proxy")["items"]
            on_node = [p for p in now if p["spec"].get("nodeName") == node]
            if len(now) == 5 and len(on_node) == 1 and \
                    on_node[0]["status"].get("phase") == "Running":
                return now
            return None
        pods = harness.wait_until(replaced, 15, interval=0.1)
        self.assertTrue(pods, "no kube-proxy pod came back on " + node)
        self.assertNotIn(name, [p["metadata"]["name"] for p in pods])
        self.assertEqual(sorted(p["spec"]["nodeName"] for p in pods),
                         ["manage-1", "manage-2", "worker-1", "worker-2",
                          "worker-3"])
        p = self.kubectl.run("rollout", "status", "ds/kube-proxy",
                             "-n", "kube-system", "--timeout=30s")
        self.assertEqual(p.stdout.strip().splitlines()[-1],
                         'daemon set "kube-proxy" successfully rolled out')


if __name__ == "__main__":
    unittest.main()
