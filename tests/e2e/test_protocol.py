"""HTTP/1.1 over TLS as clients and attackers use it, byte by byte: bodies
an early answer leaves unread, requests sent together, Range headers, raw
query strings, bad lengths and closing connections. Independent of the
kubectl version."""

import json
import socket
import ssl
import time
import unittest

import harness

NAMESPACES = "/api/v1/namespaces"


class Conn:
    """One TLS connection with the admin certificate; sends raw bytes and
    reads responses one at a time."""

    def __init__(self, test, timeout=10):
        ctx = ssl.create_default_context(cafile=test.creds.ca)
        ctx.load_cert_chain(test.creds.cert, test.creds.key)
        raw = socket.create_connection((test.server.host, test.server.port),
                                       timeout=timeout)
        self.sock = ctx.wrap_socket(raw, server_hostname=test.server.host)
        self.buf = b""

    def close(self):
        self.sock.close()

    def send(self, data):
        self.sock.sendall(data)

    def _fill(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise EOFError("connection closed")
        self.buf += chunk

    def _line(self):
        while b"\r\n" not in self.buf:
            self._fill()
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _take(self, n):
        while len(self.buf) < n:
            self._fill()
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def response(self):
        """(status, headers with lower-case names, body bytes)."""
        status = int(self._line().split(b" ")[1])
        headers = {}
        while True:
            line = self._line()
            if not line:
                break
            k, v = line.decode().split(":", 1)
            headers[k.strip().lower()] = v.strip()
        if headers.get("transfer-encoding") == "chunked":
            body = b""
            while True:
                size = int(self._line().split(b";")[0], 16)
                if size == 0:
                    self._line()
                    break
                body += self._take(size)
                self._take(2)
        else:
            body = self._take(int(headers.get("content-length", "0")))
        return status, headers, body

    def closed_within(self, seconds):
        """True when the server ends the connection (EOF or reset) within
        `seconds`, once what was buffered is read."""
        self.sock.settimeout(seconds)
        deadline = time.monotonic() + seconds
        try:
            while time.monotonic() < deadline:
                if not self.sock.recv(65536):
                    return True
        except (ConnectionError, ssl.SSLError):
            return True
        except socket.timeout:
            return False
        return False


def request(method, path, body=b"", headers=None):
    lines = ["%s %s HTTP/1.1" % (method, path), "Host: kubemock"]
    for k, v in (headers or {}).items():
        lines.append("%s: %s" % (k, v))
    if body or method in ("POST", "PUT", "PATCH"):
        lines.append("Content-Length: %d" % len(body))
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


class ProtocolTest(harness.ServerTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.creds = harness.Credentials(cls.server.kubeconfig, cls.workdir)

    def conn(self):
        c = Conn(self)
        self.addCleanup(c.close)
        return c

    def assert_version(self, conn):
        status, _, body = conn.response()
        self.assertEqual(status, 200, body[:300])
        self.assertIn("gitVersion", json.loads(body))

    # --- early answers consume the body or close ---------------------------

    def test_early_answers_leave_no_body_behind(self):
        body = json.dumps({
            "apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "x"},
            # Bytes that read as a request if the body were left unread.
            "spec": {"note": "GET /version HTTP/1.1\r\nHost: x\r\n\r\n"},
        }).encode()
        cases = [
            # A route that does not exist.
            ("POST", "/apis/example.com/v1/namespaces/default/widgets", 404,
             {"Content-Type": "application/json"}),
            # A verb the resource does not serve.
            ("POST", "/api/v1/namespaces/default/pods/x/status", 405,
             {"Content-Type": "application/json"}),
            # A patch type the server does not take.
            ("PATCH", "/api/v1/namespaces/default", 415,
             {"Content-Type": "text/plain"}),
        ]
        for method, path, code, headers in cases:
            with self.subTest(code=code):
                conn = self.conn()
                conn.send(request(method, path, body, headers))
                status, _, out = conn.response()
                self.assertEqual(status, code, out[:300])
                conn.send(request("GET", "/version"))
                self.assert_version(conn)

    def test_unread_body_is_drained(self):
        conn = self.conn()
        body = b"x" * (4 * 1024 * 1024)
        conn.send(request("POST", "/apis/nosuch.example.com/v1/things", body,
                          {"Content-Type": "application/json"}))
        status, headers, _ = conn.response()
        self.assertEqual(status, 404)
        conn.send(request("GET", "/version"))
        self.assert_version(conn)

    def test_unread_body_too_large_to_drain_closes_the_connection(self):
        conn = self.conn()
        # Declares 100 MB and sends none of it.
        conn.send(b"POST /apis/nosuch.example.com/v1/things HTTP/1.1\r\n"
                  b"Host: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 100000000\r\n\r\n")
        status, headers, _ = conn.response()
        self.assertEqual(status, 404)
        self.assertEqual(headers.get("connection"), "close")
        self.assertTrue(conn.closed_within(5))

    def test_get_with_body_is_answered_then_closed(self):
        conn = self.conn()
        smuggled = b"GET /nosuch HTTP/1.1\r\nHost: x\r\n\r\n"
        conn.send(b"GET /version HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                  str(len(smuggled)).encode() + b"\r\n\r\n" + smuggled)
        self.assert_version(conn)
        self.assertTrue(conn.closed_within(5))

    # --- requests sent together ---------------------------------------------

    def test_pipelined_requests_are_all_answered(self):
        conn = self.conn()
        conn.send(request("GET", "/version") * 3 +
                  request("GET", NAMESPACES + "/default"))
        for _ in range(3):
            self.assert_version(conn)
        status, _, body = conn.response()
        self.assertEqual(status, 200, body[:300])
        self.assertEqual(json.loads(body)["metadata"]["name"], "default")

    # --- Range is ignored ----------------------------------------------------

    def test_range_headers_are_ignored(self):
        for rng in ("bytes=0-,0-,0-,0-", "bytes=0-10", "bytes=9-1", "junk"):
            with self.subTest(range=rng):
                conn = self.conn()
                conn.send(request("GET", NAMESPACES, headers={"Range": rng}))
                status, headers, body = conn.response()
                self.assertEqual(status, 200, body[:300])
                self.assertNotIn("content-range", headers)
                self.assertEqual(json.loads(body)["kind"], "NamespaceList")

    def test_range_on_a_watch_is_ignored(self):
        conn = self.conn()
        conn.send(request("GET", NAMESPACES + "?watch=1&timeoutSeconds=1",
                          headers={"Range": "bytes=0-,0-,0-"}))
        status, _, body = conn.response()
        self.assertEqual(status, 200)
        lines = [json.loads(l) for l in body.splitlines() if l.strip()]
        self.assertTrue(lines)
        self.assertEqual({e["type"] for e in lines}, {"ADDED"})

    # --- query strings -------------------------------------------------------

    def test_unescaped_selector_splits_at_first_equals(self):
        conn = self.conn()
        conn.send(request(
            "GET", NAMESPACES +
            "?labelSelector=kubernetes.io/metadata.name=kube-system"))
        status, _, body = conn.response()
        self.assertEqual(status, 200, body[:300])
        names = [n["metadata"]["name"] for n in json.loads(body)["items"]]
        self.assertEqual(names, ["kube-system"])

    # --- options kube-apiserver refuses --------------------------------------

    def test_get_with_invalid_resource_version(self):
        conn = self.conn()
        conn.send(request("GET", NAMESPACES + "/default?resourceVersion=abc"))
        status, _, body = conn.response()
        self.assertEqual(status, 400, body)
        st = harness.status_body(self, body)
        self.assertEqual(st["reason"], "BadRequest")
        self.assertEqual(
            st["message"],
            'invalid resource version: resourceVersion: Invalid value: "abc": '
            'strconv.ParseUint: parsing "abc": invalid syntax')
        conn.send(request("GET", NAMESPACES + "/default?resourceVersion=1"))
        status, _, body = conn.response()
        self.assertEqual(status, 200, body)

    def test_field_manager_longer_than_128_bytes(self):
        conn = self.conn()
        ns = json.dumps({"apiVersion": "v1", "kind": "Namespace",
                         "metadata": {"name": "fm-long"}}).encode()
        conn.send(request("POST", NAMESPACES + "?fieldManager=" + "m" * 129,
                          ns, {"Content-Type": "application/json"}))
        status, _, body = conn.response()
        self.assertEqual(status, 422, body)
        st = harness.status_body(self, body)
        self.assertEqual(st["reason"], "Invalid")
        self.assertEqual(
            st["message"],
            'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: '
            'may not be more than 128 bytes')
        conn.send(request("GET", NAMESPACES + "/fm-long"))
        status, _, _ = conn.response()
        self.assertEqual(status, 404)

    def test_watch_with_negative_timeout_ends_at_once(self):
        conn = self.conn()
        start = time.monotonic()
        conn.send(request("GET", NAMESPACES + "?watch=1&timeoutSeconds=-1"))
        status, _, _ = conn.response()
        self.assertEqual(status, 200)
        self.assertLess(time.monotonic() - start, 5)

    def test_negative_content_length_is_400(self):
        conn = self.conn()
        conn.send(b"POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n"
                  b"Content-Type: application/json\r\n"
                  b"Content-Length: -5\r\n\r\n")
        status, headers, _ = conn.response()
        self.assertEqual(status, 400)
        self.assertTrue(conn.closed_within(5))

    def test_413_closes_the_connection_at_once(self):
        conn = self.conn()
        # Declares more than the server drains; sends only the header.
        conn.send(b"POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n"
                  b"Content-Type: application/json\r\n"
                  b"Content-Length: 1000000000\r\n\r\n")
        status, headers, body = conn.response()
        self.assertEqual(status, 413, body)
        self.assertEqual(headers.get("connection"), "close")
        self.assertTrue(conn.closed_within(5))


if __name__ == "__main__":
    unittest.main()
