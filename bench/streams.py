"""Container streams: exec round trips and port-forward throughput.

Used by bench/run (its `streams` group), against one kubemock of its own:

  exec        `kubectl exec POD -- true` end to end (kubectl's start, the
              WebSocket upgrade, the command in the container, the status),
              beside `kubectl get pod POD` in the same run: the ratio is
              what an exec costs over a plain GET, kubectl's start-up in both
  port-forward  bytes per second of a 16 MiB file fetched from nginx in a
              pod through `kubectl port-forward`, beside the same bytes
              copied over a direct loopback TCP connection in this process

Medians over the runs; nothing here fails on a slow figure.
"""

import os
import socket
import subprocess
import threading
import time

BIG_BYTES = 16 << 20


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def timed(cmd, env):
    start = time.monotonic()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, env=env, timeout=60)
    return (time.monotonic() - start) * 1000.0


def http_get_bytes(port, path):
    """Fetches path over HTTP/1.0 and returns the body's length."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as s:
        s.sendall(("GET %s HTTP/1.0\r\nHost: x\r\n\r\n" % path).encode())
        got = 0
        head = b""
        while True:
            chunk = s.recv(1 << 20)
            if not chunk:
                break
            if head is not None:
                head += chunk
                end = head.find(b"\r\n\r\n")
                if end < 0:
                    continue
                got += len(head) - end - 4
                head = None
            else:
                got += len(chunk)
        return got


def loopback_copy(nbytes):
    """Seconds to copy nbytes over a loopback TCP connection."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    port = srv.getsockname()[1]
    payload = b"x" * (1 << 20)

    def serve():
        conn, _ = srv.accept()
        left = nbytes
        while left > 0:
            conn.sendall(payload[:min(left, len(payload))])
            left -= min(left, len(payload))
        conn.close()
    t = threading.Thread(target=serve)
    t.start()
    start = time.monotonic()
    with socket.create_connection(("127.0.0.1", port)) as c:
        got = 0
        while True:
            chunk = c.recv(1 << 20)
            if not chunk:
                break
            got += len(chunk)
    elapsed = time.monotonic() - start
    t.join()
    srv.close()
    if got != nbytes:
        raise RuntimeError("loopback copy got %d of %d bytes" % (got, nbytes))
    return elapsed


def run(kubectl, kubeconfig, scratch, table, quick, log):
    env = dict(os.environ, KUBECONFIG=kubeconfig)
    k = [kubectl, "--kubeconfig", kubeconfig]
    subprocess.run(k + ["run", "bench-web", "--image=nginx"], check=True,
                   stdout=subprocess.DEVNULL, env=env, timeout=60)
    subprocess.run(k + ["wait", "--for=condition=Ready", "pod/bench-web",
                        "--timeout=60s"], check=True,
                   stdout=subprocess.DEVNULL, env=env, timeout=90)
    runs = 5 if quick else 15
    log("streams: %d exec and get round trips" % runs)
    execs = [timed(k + ["exec", "bench-web", "--", "true"], env)
             for _ in range(runs)]
    gets = [timed(k + ["get", "pod", "bench-web"], env) for _ in range(runs)]
    table.add("exec round trip (kubectl exec -- true)", median(execs), "ms",
              median(gets), "kubectl get pod")

    big = os.path.join(scratch, "big")
    with open(big, "wb") as f:
        f.write(b"0123456789abcdef" * (BIG_BYTES // 16))
    subprocess.run(k + ["cp", big, "bench-web:/usr/share/nginx/html/big"],
                   check=True, env=env, timeout=120)
    port = free_port()
    pf = subprocess.Popen(k + ["port-forward", "pod/bench-web",
                               "%d:80" % port],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          env=env, text=True)
    try:
        line = pf.stdout.readline()
        if "Forwarding from" not in line:
            raise RuntimeError("port-forward did not start: " + line)
        fetches = 3 if quick else 7
        log("streams: %d fetches of %d MiB through port-forward" %
            (fetches, BIG_BYTES >> 20))
        rates = []
        for _ in range(fetches):
            start = time.monotonic()
            got = http_get_bytes(port, "/big")
            elapsed = time.monotonic() - start
            if got != BIG_BYTES:
                raise RuntimeError("port-forward fetched %d of %d bytes" %
                                   (got, BIG_BYTES))
            rates.append(got / elapsed / (1 << 20))
        direct = [BIG_BYTES / loopback_copy(BIG_BYTES) / (1 << 20)
                  for _ in range(fetches)]
        table.add("port-forward throughput (16 MiB from nginx)",
                  median(rates), "MiB/s", median(direct),
                  "loopback TCP copy")
    finally:
        pf.terminate()
        pf.wait(timeout=10)
