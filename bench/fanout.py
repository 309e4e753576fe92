"""Watch fan-out: bench/run's `fanout` group.

One kubemock (--in-memory, the default cluster, --threads sized for every
watch) and fanout_driver's `fanout` mode: it creates 10 pods in namespace
`fanout`, waits until they are Running, opens N watches on that namespace's
pods from the list's resourceVersion (read by a few epoll threads in C++, so
that no interpreter lock delays a reader), then patches the pods in turn at a
fixed rate from one keep-alive connection. Each event's resourceVersion is
matched with the write that produced it.
"""

import scale

P99_TARGET_MS = 20.0


def fanout(ctx, table):
    if ctx.quick:
        watchers, rate, seconds = 100, 50, 1
    else:
        watchers, rate, seconds = 1000, 20, 5
    srv = scale.Server(ctx, "kubemock-fanout",
                       ["--threads", str(watchers + 128)])
    try:
        cpu0 = srv.cpu_s()
        ctx.log("fanout: %d watchers, %d writes/s for %d s" %
                (watchers, rate, seconds))
        rep, _ = srv.driver("fanout", [
            "--watchers", str(watchers), "--threads", "2", "--pods", "10",
            "--rate", str(rate), "--seconds", str(seconds)],
            120 + 30 * seconds)
        rep["server_cpu_s"] = srv.cpu_s() - cpu0
        rep["rss_mb"], rep["hwm_mb"] = srv.memory_mb()
    finally:
        srv.stop()
    table.raw["fanout"] = rep
    what = "watch fan-out, %d watchers, %d pod writes/s offered" % (watchers,
                                                                  rate)
    if rep["delivered"] < rep["expected"]:
        table.note("fanout: %d of %d deliveries missing (%d streams ended "
                   "early, %d ERROR events)" % (
                       rep["expected"] - rep["delivered"], rep["expected"],
                       rep["ended_streams"], rep["error_events"]))
    table.add(what + ": deliveries", rep["deliveries_per_second"],
              "events/s")
    table.add(what + ": writes done", rep["writes"] / max(
        1e-9, rep["write_seconds"]), "writes/s")
    s = rep["from_send_us"]
    table.add(what + ": commit-to-client p50 (from the write's send)",
              s["p50"] / 1000.0, "ms")
    table.add(what + ": commit-to-client p99 (from the write's send)",
              s["p99"] / 1000.0, "ms", target=P99_TARGET_MS)
    table.add(what + ": commit-to-client p99 (from the write's answer)",
              rep["from_response_us"]["p99"] / 1000.0, "ms",
              target=P99_TARGET_MS)
    table.add(what + ": the write's own round trip, p50",
              rep["write_round_trip_us"]["p50"] / 1000.0, "ms")
    table.add(what + ": kubemock CPU", rep["server_cpu_s"], "s CPU")
    table.add(what + ": time to open every watch", rep["open_seconds"],
              "s wall")
