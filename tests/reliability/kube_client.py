"""A small Kubernetes API client for the reliability tests.

One Client is one keep-alive HTTPS connection (http.client + ssl) that
authenticates with the client certificate of a kubemock kubeconfig. It is
not thread-safe: give every thread its own Client. Credentials (the files
the kubeconfig's certificates are written to) are immutable and may be
shared.

Errors are values where the tests need them: request() returns a Response
for every HTTP answer, whatever its code, and raises ConnectionLost only
when no answer came (the server died, refused or reset the connection).
ConnectionLost.sent tells whether the request may have reached the server,
which is what separates "not applied" from "in flight".
"""

import http.client
import json
import os
import re
import socket
import ssl
import time
import urllib.parse

import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "e2e"))
import harness  # noqa: E402  (tests/e2e/harness.py)


class ConnectionLost(Exception):
    """No HTTP answer. sent is False when the connection could not even be
    opened (the request certainly did not reach the server)."""

    def __init__(self, message, sent):
        super().__init__(message)
        self.sent = sent


class Credentials:
    """The CA, client certificate and key of a kubeconfig, written to files
    under workdir, and the server URL."""

    def __init__(self, kubeconfig, workdir):
        # The certificate files as the e2e harness writes them; only the
        # server's address is read here.
        files = harness.Credentials(kubeconfig, workdir)
        self.ca, self.cert, self.key = files.ca, files.cert, files.key
        with open(kubeconfig) as f:
            m = re.search(r"\bserver:\s*(\S+)", f.read())
        if not m:
            raise ValueError("kubeconfig %s has no server" % kubeconfig)
        url = urllib.parse.urlsplit(m.group(1))
        self.host, self.port = url.hostname, url.port
        self._context = None

    def context(self):
        if self._context is None:
            ctx = ssl.create_default_context(cafile=self.ca)
            ctx.load_cert_chain(self.cert, self.key)
            self._context = ctx
        return self._context


class Response:
    def __init__(self, status, body):
        self.status = status
        self.body = body

    def json(self):
        return json.loads(self.body)

    def ok(self):
        return 200 <= self.status < 300

    def __repr__(self):
        return "Response(%d, %r)" % (self.status, self.body[:300])


# A connection idle this long is replaced before the next request: the
# server may close idle keep-alive connections (cpp-httplib's default is
# 5 s), and a request sent on a connection it is closing gets no answer.
IDLE_RECONNECT_SECONDS = 2.0


class Client:
    """One keep-alive connection to host:port. Reconnects lazily after an
    error or a long idle; a request is never retried here (callers
    decide)."""

    def __init__(self, creds, host=None, port=None, timeout=10.0):
        self.creds = creds
        self.host = host or creds.host
        self.port = port or creds.port
        self.timeout = timeout
        self._conn = None
        self._last_used = 0.0

    def close(self):
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _connect(self, timeout):
        conn = http.client.HTTPSConnection(self.host, self.port,
                                           context=self.creds.context(),
                                           timeout=timeout)
        try:
            conn.connect()
            conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except (OSError, ssl.SSLError) as e:
            conn.close()
            raise ConnectionLost("connect: %s" % e, sent=False)
        return conn

    def request(self, method, path, body=None, content_type=None):
        """Sends one request and reads the whole answer."""
        now = time.monotonic()
        if self._conn is not None and \
                now - self._last_used > IDLE_RECONNECT_SECONDS:
            self.close()
        if self._conn is None:
            self._conn = self._connect(self.timeout)
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = (body if isinstance(body, bytes) else
                    json.dumps(body).encode())
            headers["Content-Type"] = content_type or "application/json"
        try:
            self._conn.request(method, path, body=data, headers=headers)
            resp = self._conn.getresponse()
            payload = resp.read()
        except (OSError, ssl.SSLError, http.client.HTTPException) as e:
            self.close()
            raise ConnectionLost("%s %s: %s: %s" % (method, path,
                                                    type(e).__name__, e),
                                 sent=True)
        self._last_used = time.monotonic()
        if resp.will_close:
            self.close()
        return Response(resp.status, payload)

    def get(self, path):
        return self.request("GET", path)

    def watch(self, path, resource_version, timeout_seconds,
              bookmarks=False):
        """Opens a watch on its own connection; returns a WatchStream or a
        Response for a non-200 answer. Raises ConnectionLost."""
        q = {"watch": "1", "resourceVersion": str(resource_version),
             "timeoutSeconds": str(timeout_seconds)}
        if bookmarks:
            q["allowWatchBookmarks"] = "true"
        full = path + ("&" if "?" in path else "?") + urllib.parse.urlencode(q)
        conn = self._connect(timeout_seconds + 10)
        try:
            conn.request("GET", full, headers={"Accept": "application/json"})
            resp = conn.getresponse()
        except (OSError, ssl.SSLError, http.client.HTTPException) as e:
            conn.close()
            raise ConnectionLost("watch %s: %s: %s" % (full, type(e).__name__,
                                                       e), sent=True)
        if resp.status != 200:
            body = resp.read()
            conn.close()
            return Response(resp.status, body)
        return WatchStream(conn, resp)


class WatchStream:
    """The events of one watch response, one JSON object a line."""

    def __init__(self, conn, resp):
        self._conn = conn
        self._resp = resp

    def next_event(self):
        """The next event as a dict, or None when the server ended the
        stream cleanly. Raises ConnectionLost on a broken stream."""
        try:
            line = self._resp.readline()
        except (OSError, ssl.SSLError, http.client.HTTPException,
                ValueError) as e:
            raise ConnectionLost("watch read: %s: %s" % (type(e).__name__, e),
                                 sent=True)
        if not line:
            return None
        line = line.strip()
        if not line:
            return self.next_event()
        try:
            return json.loads(line)
        except ValueError:
            raise ConnectionLost("watch read: not JSON: %r" % line[:200],
                                 sent=True)

    def close(self):
        try:
            self._conn.close()
        except OSError:
            pass


def percentile(sorted_values, p):
    """The p-th percentile (0..100) of an already sorted list."""
    if not sorted_values:
        return 0.0
    k = min(len(sorted_values) - 1,
            max(0, int(round(p / 100.0 * (len(sorted_values) - 1)))))
    return sorted_values[k]


def wait_for(predicate, timeout, interval=0.02):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(interval)
