#!/usr/bin/python3
"""Crash safety: SIGKILL the server at random moments while clients write.

Each cycle starts kubemock on the same data directory, lets --writers
threads create, update (with resourceVersion preconditions) and delete
Leases, kills the server with SIGKILL after a random 100-800 ms, restarts
it and checks:

  * every acknowledged write is there with exactly its resourceVersion,
    uid and content, unless a later acknowledged write superseded it;
    acknowledged deletes stay deleted;
  * every write in flight at the kill happened whole or not at all;
  * a generateName create left at most one object;
  * no two objects ever get the same uid, across restarts too;
  * revisions only grow: the list after the restart is at or above every
    revision any client or watcher saw, and every later acknowledgement
    is above that;
  * a watch from the last acknowledged resourceVersion resumes and
    delivers exactly the later events (the in-flight writes that happened);
  * watchers that list+watch through all the crashes, reconnecting from
    their last resourceVersion, end with a view equal to the list, have
    an event for every acknowledged create and update, and all saw the
    same events in the same order.

The second half of the cycles (--busy-cycles) also scales a Deployment up
and down, so the controllers and fake kubelets write concurrently, and
checks its replica count survives and its pods converge after each
restart. At the end the server is stopped with SIGTERM (exit 0 expected),
started once more and checked again.

Then the store's newest write-ahead log is damaged, once cut short and
once with garbage written into its middle: the server must refuse to start
and name `kubemock repair`; the repair must report the revision it
recovered to and the bytes it dropped; the repaired server must start and
hold every object as listed before the damage up to that revision, and
nothing newer.

A start refused after a kill (Linux may stop a multi-page write() of a
killed process part way, cutting the log's last record short; that write
was never acknowledged) is repaired and counted; the repair must have
dropped nothing but that record, and the usual checks then show whether
any acknowledged write was lost.

Exit status 0 when every check passed. Prints the seed; --seed replays the
same choices (thread timing still varies).
"""

import argparse
import glob
import os
import random
import re
import shutil
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import crash_check  # noqa: E402
import kube_client  # noqa: E402
from deployment_scaler import Scaler  # noqa: E402
from lease_writer import (LEASES, NAMESPACE, Acked, Ledger, Record,  # noqa
                          Writer, content_of, lease_body)
from server_process import ServerProcess  # noqa: E402
from view_watcher import (ViewWatcher, check_histories,  # noqa: E402
                          compare_view)

WATCHERS = 3
CATCH_UP_TIMEOUT = 10
CONVERGE_TIMEOUT = 20


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cycles", type=int, default=20,
                   help="kill/restart cycles (default 20)")
    p.add_argument("--busy-cycles", type=int, default=None,
                   help="how many of the last cycles also scale a "
                        "Deployment (default: half)")
    p.add_argument("--writers", type=int, default=4)
    p.add_argument("--min-ms", type=int, default=100,
                   help="earliest kill after the writers start")
    p.add_argument("--max-ms", type=int, default=800,
                   help="latest kill after the writers start")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--vary-server-seed", action="store_true",
                   help="pass a different --seed to every server start "
                        "(the default passes the same one, as a user "
                        "restarting with the same flags would)")
    p.add_argument("--compaction-interval", default=None,
                   help="pass --compaction-interval to the server (e.g. "
                        "300ms); a resumed watch may then get 410")
    p.add_argument("--no-damage", action="store_true",
                   help="skip the damaged-log rounds at the end")
    p.add_argument("--keep", action="store_true",
                   help="keep the temporary directory")
    return p.parse_args()


class CrashTest:

    def __init__(self, args, seed, workdir):
        self.args = args
        self.rng = random.Random(seed)
        extra = []
        if args.compaction_interval:
            extra = ["--compaction-interval", args.compaction_interval]
        self.server = ServerProcess(workdir, seed, extra_args=extra,
                                    vary_seed=args.vary_server_seed)
        self.compacted_watches = 0
        self.torn_tails = 0
        self.ledger = Ledger()
        self.writers = [Writer("w%d" % i, seed * 1000 + i, self.ledger)
                        for i in range(args.writers)]
        self.main = Writer("main", seed * 1000 + 999, self.ledger)
        self.scaler = Scaler(seed * 1000 + 998, self.ledger)
        self.watchers = []
        self.problems = []
        busy = args.busy_cycles
        self.busy_from = args.cycles - (args.cycles // 2 if busy is None
                                        else busy)

    # --- set-up --------------------------------------------------------------

    def setup(self):
        self.server.start()
        c = self.server.client()
        r = c.request("POST", "/api/v1/namespaces",
                      {"apiVersion": "v1", "kind": "Namespace",
                       "metadata": {"name": NAMESPACE}})
        if r.status != 201:
            raise SystemExit("cannot create namespace: %r" % r)
        c.close()
        for i in range(WATCHERS):
            w = ViewWatcher("watcher-%d" % i, self.server.endpoint,
                            self.server.creds, LEASES,
                            rng_seed=self.rng.random(), timeout_range=(1, 4))
            w.start()
            self.watchers.append(w)
        for w in self.watchers:
            w.listed.wait(10)

    # --- one cycle -----------------------------------------------------------

    def cycle(self, n):
        t0 = time.monotonic()
        busy = n >= self.busy_from
        if busy and self.scaler.acked is None:
            c = self.server.client()
            self.scaler.create(c)
            c.close()
        stop = threading.Event()
        threads = [threading.Thread(target=w.run_cycle,
                                    args=(self.server.client(), stop))
                   for w in self.writers]
        if busy:
            threads.append(threading.Thread(
                target=self.scaler.run_cycle,
                args=(self.server.client(), stop)))
        acks_before = self.ledger.acks
        for w in self.writers:
            w.acked_deletes.clear()
        delay = self.rng.uniform(self.args.min_ms, self.args.max_ms) / 1000.0
        for t in threads:
            t.start()
        time.sleep(delay)
        self.server.kill()
        stop.set()
        for t in threads:
            t.join(30)
            if t.is_alive():
                self.problems.append("cycle %d: a writer hung after the kill"
                                     % n)
        acks = self.ledger.acks - acks_before
        in_flight = sum(1 for w in self.writers for r in
                        list(w.records.values()) + w.unnamed if r.pending)
        last_acked = self.ledger.max_acked_rv
        seen = max([last_acked] + [w.max_rv_seen for w in self.watchers])

        cycle_problems = []
        self.start_after_kill(cycle_problems)
        client = self.server.client()
        applied, list_rv = [], 0
        try:
            applied, list_rv = self.verify(client, cycle_problems, seen,
                                           last_acked)
            if busy:
                self.scaler.check_stored(client, cycle_problems)
                err = self.scaler.wait_converged(client, CONVERGE_TIMEOUT)
                if err:
                    cycle_problems.append(err)
        except (AssertionError, KeyError, ValueError,
                kube_client.ConnectionLost) as e:
            cycle_problems.append("check failed: %s: %s" %
                                  (type(e).__name__, e))
        finally:
            client.close()
        for p in cycle_problems:
            self.problems.append("cycle %d: %s" % (n, p))
        print("cycle %2d%s: kill after %3d ms, %3d acks, %d in flight "
              "(%d happened), list rv %d, %.2fs%s" %
              (n, " busy" if busy else "     ", delay * 1000, acks, in_flight,
               len(applied), list_rv, time.monotonic() - t0,
               "" if not cycle_problems else
               ", %d PROBLEMS" % len(cycle_problems)), flush=True)

    # --- checks after a restart --------------------------------------------

    def list_items(self, client):
        r = client.get(LEASES)
        if r.status != 200:
            raise AssertionError("list after restart: %r" % r)
        lst = r.json()
        return ({o["metadata"]["name"]: o for o in lst["items"]},
                int(lst["metadata"]["resourceVersion"]))

    def verify(self, client, problems, seen, last_acked):
        items, list_rv = self.list_items(client)
        if list_rv < seen:
            problems.append("list rv %d after restart is below rv %d seen "
                            "before the kill" % (list_rv, seen))
        applied = crash_check.check(self.writers + [self.main], items,
                                    self.ledger, problems)
        with self.ledger._lock:
            self.ledger.floor_rv = max(self.ledger.floor_rv, list_rv, seen)
        marker_rv = self.check_watch_resume(client, last_acked, applied,
                                            problems)
        self.check_watchers(client, marker_rv, problems)
        return applied, list_rv

    def create_marker(self, client, problems):
        token = self.main._new_token()
        content = self.main._content(token, 0)
        r = client.request("POST", LEASES, lease_body(content, name=token))
        if r.status != 201:
            problems.append("marker create answered %r" % r)
            return None, 0
        obj = r.json()
        rv = int(obj["metadata"]["resourceVersion"])
        rec = Record(token, token)
        rec.state = Acked(rv, obj["metadata"]["uid"], content_of(obj))
        self.main.records[token] = rec
        self.ledger.ack("marker " + token, rv, None, token)
        self.ledger.new_object(rec.state.uid, token)
        return token, rv

    def check_watch_resume(self, client, start_rv, applied, problems):
        """A watch from start_rv (the last acknowledged revision) must
        deliver exactly the in-flight writes that happened after it (and
        possibly acknowledged deletes, whose revision the client never
        learns), then the marker written now."""
        if start_rv == 0:
            return self.create_marker(client, problems)[1]
        stream = client.watch(LEASES, start_rv, 10)
        if isinstance(stream, kube_client.Response):
            if stream.status == 410 and self.args.compaction_interval:
                self.compacted_watches += 1
                return self.create_marker(client, problems)[1]
            problems.append("watch from last acknowledged rv %d answered %r"
                            % (start_rv, stream))
            return self.create_marker(client, problems)[1]
        marker = None
        try:
            mclient = self.server.client()
            marker, marker_rv = self.create_marker(mclient, problems)
            mclient.close()
            got = []
            while marker is not None:
                ev = stream.next_event()
                if ev is None:
                    problems.append("watch from rv %d ended before the "
                                    "marker" % start_rv)
                    break
                meta = ev["object"]["metadata"]
                if meta["name"] == marker:
                    break
                got.append((ev["type"], meta["name"],
                            int(meta["resourceVersion"])))
        except kube_client.ConnectionLost as e:
            problems.append("watch from rv %d broke: %s" % (start_rv, e))
            return 0
        finally:
            stream.close()
        want_names = {a.name for a in applied
                      if a.rv is None or a.rv > start_rv}
        deleted = set().union(*(w.acked_deletes for w in self.writers))
        last = start_rv
        for kind, name, rv in got:
            if rv <= last:
                problems.append("resumed watch: %s %s rv %d not above %d" %
                                (kind, name, rv, last))
            last = max(last, rv)
            if name not in want_names and not (kind == "DELETED" and
                                               name in deleted):
                problems.append("resumed watch from rv %d delivered %s %s rv "
                                "%d: not a write after that revision" %
                                (start_rv, kind, name, rv))
        got_names = [name for _, name, _ in got]
        for a in applied:
            if a.rv is not None and a.rv > start_rv and \
                    got_names.count(a.name) != 1:
                problems.append("resumed watch from rv %d: %s of %s at rv %d "
                                "delivered %d times" %
                                (start_rv, a.op, a.name, a.rv,
                                 got_names.count(a.name)))
        return marker_rv

    def check_watchers(self, client, marker_rv, problems):
        """Every long-running watcher catches up to the marker and its view
        equals the list."""
        items, _ = self.list_items(client)
        want = {name: int(o["metadata"]["resourceVersion"])
                for name, o in items.items()}
        for w in self.watchers:
            ok = kube_client.wait_for(lambda: w.last_rv() >= marker_rv,
                                      CATCH_UP_TIMEOUT)
            view, rv = w.snapshot()
            if not ok:
                problems.append("%s stuck at rv %d, marker at %d" %
                                (w.name, rv, marker_rv))
                continue
            diff = compare_view(view, want)
            if diff:
                problems.append("%s view differs from the list:\n    %s" %
                                (w.name, "\n    ".join(diff[:20])))

    def start_after_kill(self, problems):
        """Starts the server; a start refused for a damaged log is repaired
        if the damage is only the last record cut short."""
        try:
            self.server.start()
            return
        except AssertionError as e:
            refusal = str(e)
        if "kubemock repair --data-dir" not in refusal:
            raise AssertionError(refusal)
        rc, out = self.server.repair()
        self.torn_tails += 1
        print("  start refused after the kill; repair:\n    " +
              out.strip().replace("\n", "\n    "), flush=True)
        if rc != 0 or "whole records" in out:
            problems.append("after a kill, repair dropped more than a torn "
                            "last record (exit %d):\n%s" % (rc, out))
        self.server.start()

    # --- a damaged log -------------------------------------------------------

    def newest_log(self):
        logs = glob.glob(os.path.join(self.server.data_dir, "store", "*.log"))
        return max(logs) if logs else None

    def damaged_log_round(self, kind):
        """Stops the server, damages its newest log (kind "truncate" or
        "garbage"), and checks the refusal, the repair and what survives."""
        problems = []
        client = self.server.client()
        try:
            # Writes of its own, so that the newest log holds some.
            for i in range(50):
                r = client.request("POST", LEASES, {
                    "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                    "metadata": {"name": "damage-%s-%d" % (kind, i)},
                    "spec": {"holderIdentity": "x" * 200}})
                if r.status != 201:
                    problems.append("%s: create answered %r" % (kind, r))
            before, _ = self.list_items(client)
        finally:
            client.close()
        rc = self.server.stop()
        if rc != 0:
            problems.append("SIGTERM exit code %r" % rc)
        log = self.newest_log()
        size = os.path.getsize(log) if log else 0
        if size < 4096:
            return ["%s: newest log %s has only %d bytes" % (kind, log, size)]
        if kind == "truncate":
            os.truncate(log, size - min(2000, size // 2))
        else:
            with open(log, "r+b") as f:
                f.seek(size // 2)
                f.write(b"\x5a" * 64)
        try:
            self.server.start()
            self.server.stop()
            return ["%s: the server started on a damaged log" % kind]
        except AssertionError as e:
            if "kubemock repair --data-dir" not in str(e):
                problems.append("%s: the refusal does not name the repair:"
                                "\n%s" % (kind, e))
        rc, out = self.server.repair()
        print("%s log: repair:\n    %s" %
              (kind, out.strip().replace("\n", "\n    ")), flush=True)
        m = re.search(r"recovered through revision (\d+)", out)
        if rc != 0 or not m or "lost: the" not in out or \
                "a copy of the damaged store is in" not in out:
            return problems + ["%s: repair exit %d, output:\n%s" %
                               (kind, rc, out)]
        recovered = int(m.group(1))
        self.server.start()
        client = self.server.client()
        try:
            after, _ = self.list_items(client)
        finally:
            client.close()
        for name, obj in before.items():
            rv = int(obj["metadata"]["resourceVersion"])
            if rv <= recovered and name not in after:
                problems.append("%s: %s at rv %d <= %d lost by the repair" %
                                (kind, name, rv, recovered))
        for name, obj in after.items():
            rv = int(obj["metadata"]["resourceVersion"])
            if rv > recovered:
                problems.append("%s: %s at rv %d survived past revision %d" %
                                (kind, name, rv, recovered))
            elif name in before and \
                    int(before[name]["metadata"]["resourceVersion"]) <= \
                    recovered and before[name] != obj:
                problems.append("%s: %s changed by the repair" % (kind, name))
        lost = sum(1 for o in before.values()
                   if int(o["metadata"]["resourceVersion"]) > recovered)
        print("%s log: recovered through revision %d, %d of %d leases "
              "reported lost" % (kind, recovered, lost, len(before)),
              flush=True)
        return problems

    # --- the end -------------------------------------------------------------

    def final_clean_restart(self):
        rc = self.server.stop()
        if rc != 0:
            self.problems.append("SIGTERM exit code %r:\n%s" %
                                 (rc, self.server.stderr_tail()))
        last_acked = self.ledger.max_acked_rv
        self.server.start()
        problems = []
        client = self.server.client()
        try:
            self.verify(client, problems, last_acked, last_acked)
        finally:
            client.close()
        self.problems += ["clean restart: " + p for p in problems]

    def run(self):
        self.setup()
        for n in range(1, self.args.cycles + 1):
            self.cycle(n)
        self.final_clean_restart()
        self.problems += check_histories(self.watchers, self.ledger.acked)
        for w in self.watchers:
            w.stop()
            self.problems += w.problems
        self.problems += self.ledger.problems
        if self.ledger.reused_uids > 5:
            self.problems.append("... %d uids given to two objects in all" %
                                 self.ledger.reused_uids)
        if not self.args.no_damage:
            for kind in ("truncate", "garbage"):
                self.problems += self.damaged_log_round(kind)
        rc = self.server.stop()
        if rc != 0:
            self.problems.append("final SIGTERM exit code %r" % rc)
        return self.problems


def main():
    args = parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom(
    ).randrange(1, 2**31)
    print("crash_safety: seed %d (replay with --seed %d), %d cycles, "
          "%d writers, binary %s" %
          (seed, seed, args.cycles, args.writers,
           os.environ.get("KUBEMOCK_BIN", "/work/kmock-shared/kubemock")),
          flush=True)
    workdir = tempfile.mkdtemp(prefix="kubemock-crash-")
    t0 = time.monotonic()
    test = CrashTest(args, seed, workdir)
    try:
        problems = test.run()
    except BaseException:
        test.server.kill()
        print("workdir kept: " + workdir)
        raise
    acks = test.ledger.acks
    print("%d acknowledged writes, %d scales, %d server starts, %.1fs; "
          "watchers: %d events, %d relists, %d reconnects%s" %
          (acks, test.scaler.scales, test.server.starts,
           time.monotonic() - t0, sum(w.events for w in test.watchers),
           sum(w.relists for w in test.watchers),
           sum(w.reconnects for w in test.watchers),
           ", %d resumed watches compacted away" % test.compacted_watches
           if test.compacted_watches else "") +
          (", %d starts refused for a torn last record" % test.torn_tails
           if test.torn_tails else ""))
    if problems:
        print("FAIL (seed %d): %d problems" % (seed, len(problems)))
        for p in problems[:100]:
            print("  " + p)
        print("workdir kept: " + workdir)
        return 1
    if acks == 0:
        print("FAIL: no write was acknowledged")
        return 1
    print("PASS")
    if not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
