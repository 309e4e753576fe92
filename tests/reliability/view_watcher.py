"""A watcher that keeps its own view of a collection, as an informer does.

It lists, then watches from the list's resourceVersion; when the server
ends a watch (timeoutSeconds) or the connection breaks (the server was
killed), it reconnects from the last resourceVersion it saw; on 410 Expired
(or an ERROR event) it lists again. The view maps name -> resourceVersion.

It also checks what a watch promises: within one unbroken chain of
list + watches, event resourceVersions strictly grow and never go back to
or below the resourceVersion the chain resumed from. Violations go into
problems.

Thread safety: run() runs on the watcher's own thread; snapshot(),
last_rv(), stop() and the counters may be read from any thread.
"""

import random
import threading

import kube_client


class ViewWatcher(threading.Thread):

    def __init__(self, name, endpoint, creds, path, rng_seed,
                 timeout_range=(5, 15)):
        super().__init__(name=name, daemon=True)
        self.path = path
        self._endpoint = endpoint
        self._creds = creds
        self._rng = random.Random(rng_seed)
        self._timeout_range = timeout_range
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._view = {}
        self._last_rv = 0
        # Every event since the last list: (rv, type, name), and the rv of
        # that list.
        self._history = []
        self._history_from = 0
        self.events = 0
        self.relists = 0
        self.reconnects = 0  # after a broken connection
        self.rewatches = 0  # after the server ended a watch cleanly
        self.max_rv_seen = 0
        self.problems = []
        self.listed = threading.Event()

    # --- read from other threads -------------------------------------------

    def snapshot(self):
        with self._lock:
            return dict(self._view), self._last_rv

    def history(self):
        """(rv of the last list, [(rv, type, name)] of events since)."""
        with self._lock:
            return self._history_from, list(self._history)

    def last_rv(self):
        with self._lock:
            return self._last_rv

    def stop(self):
        self._stop.set()

    # --- the watcher's thread ----------------------------------------------

    def _client(self):
        host, port, _ = self._endpoint.get()
        return kube_client.Client(self._creds, host, port, timeout=10)

    def _problem(self, text):
        with self._lock:
            self._problem_locked(text)

    def _problem_locked(self, text):
        if len(self.problems) < 50:
            self.problems.append("%s: %s" % (self.name, text))

    def _relist(self):
        c = self._client()
        try:
            r = c.get(self.path)
        finally:
            c.close()
        if r.status != 200:
            raise kube_client.ConnectionLost("list %d" % r.status, sent=True)
        lst = r.json()
        view = {o["metadata"]["name"]: int(o["metadata"]["resourceVersion"])
                for o in lst["items"]}
        rv = int(lst["metadata"]["resourceVersion"])
        with self._lock:
            self._view, self._last_rv = view, rv
            self._history, self._history_from = [], rv
            self.max_rv_seen = max(self.max_rv_seen, rv)
        self.relists += 1
        self.listed.set()

    def run(self):
        need_list = True
        while not self._stop.is_set():
            try:
                if need_list:
                    self._relist()
                    need_list = False
                need_list = self._watch_once()
            except kube_client.ConnectionLost:
                self.reconnects += 1
                self._stop.wait(0.02)

    def _watch_once(self):
        """One watch request; returns True when the watcher must relist."""
        timeout = self._rng.randint(*self._timeout_range)
        start_rv = self.last_rv()
        stream = self._client().watch(self.path, start_rv, timeout,
                                      bookmarks=True)
        if isinstance(stream, kube_client.Response):
            if stream.status == 410:
                return True
            if stream.status == 503:
                # The server is shutting down (a restart under way): a
                # reflector backs off and watches again, and so do we.
                raise kube_client.ConnectionLost(
                    "watch from %d answered 503" % start_rv, sent=False)
            self._problem("watch from %d answered %r" % (start_rv, stream))
            self._stop.wait(0.1)
            return True
        try:
            while not self._stop.is_set():
                ev = stream.next_event()
                if ev is None:
                    self.rewatches += 1
                    return False
                if self._apply(ev, start_rv):
                    return True
        finally:
            stream.close()
        return False

    def _apply(self, ev, start_rv):
        """Applies one event; returns True when the watcher must relist."""
        kind = ev.get("type")
        obj = ev.get("object") or {}
        if kind == "ERROR":
            if obj.get("code") != 410:
                self._problem("ERROR event %r" % obj)
            return True
        meta = obj.get("metadata") or {}
        rv = int(meta.get("resourceVersion", "0"))
        with self._lock:
            stale = rv < self._last_rv if kind == "BOOKMARK" else \
                rv <= self._last_rv
            if stale:
                self._problem_locked(
                    "%s %s rv %d after rv %d (watch from %d)" %
                    (kind, meta.get("name"), rv, self._last_rv, start_rv))
            self._last_rv = max(self._last_rv, rv)
            self.max_rv_seen = max(self.max_rv_seen, rv)
            if kind == "BOOKMARK":
                return False
            self.events += 1
            name = meta["name"]
            self._history.append((rv, kind, name))
            if kind in ("ADDED", "MODIFIED"):
                self._view[name] = rv
            elif kind == "DELETED":
                if name not in self._view:
                    self._problem_locked("DELETED %s at %d, not in view" %
                                         (name, rv))
                self._view.pop(name, None)
            else:
                self._problem_locked("unknown event type %r" % kind)
        return False


def check_histories(watchers, acked):
    """Gap check. acked: {rv: name} of acknowledged creates and updates.
    Every watcher must have an event for each acknowledged write after its
    last list, and all watchers must have seen the same events in the same
    order from where their histories overlap. Returns problem lines."""
    out = []
    histories = [(w.name,) + w.history() for w in watchers]
    if not histories:
        return out
    ref_name, ref_from, ref = min(histories, key=lambda h: h[1])
    for name, start, events in histories:
        seen = {rv: n for rv, _, n in events}
        missing = [(rv, n) for rv, n in sorted(acked.items())
                   if rv > start and seen.get(rv) != n]
        if missing:
            out.append("%s missed %d acknowledged writes after rv %d, "
                       "first %s" % (name, len(missing), start, missing[:3]))
        expect = [e for e in ref if e[0] > start]
        if events != expect:
            i = next((i for i, (a, b) in enumerate(zip(events, expect))
                      if a != b), min(len(events), len(expect)))
            out.append("%s saw %d events after rv %d, %s saw %d; first "
                       "difference at #%d: %s vs %s" %
                       (name, len(events), start, ref_name, len(expect), i,
                        events[i] if i < len(events) else None,
                        expect[i] if i < len(expect) else None))
    return out


def compare_view(view, items):
    """Differences between a watcher's view and a list's {name: rv}, as
    text lines (empty when equal)."""
    out = []
    for name in sorted(set(view) | set(items)):
        a, b = view.get(name), items.get(name)
        if a != b:
            out.append("%s: watcher has %s, list has %s" % (name, a, b))
    return out
