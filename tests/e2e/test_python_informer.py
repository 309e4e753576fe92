"""An informer built on the official Python client (Debian's
python3-kubernetes) against kubemock, the way client-go's reflector works:
LIST in pages (resourceVersion=0 first, a consistent read after a 410),
then WATCH from the list's resourceVersion, a local cache keyed by
namespace/name, and on 410 Expired a relist and a new watch.

A second client makes 1,000 writes to Leases (creates, strategic-merge and
JSON patches, updates, deletes) while the informer runs. The informer is
cut off in the middle for longer than the server keeps history
(--compaction-interval 1s), so its resume must get 410 and relist. At the
end its cache must equal a fresh LIST (names, resourceVersions, content)
and what the writer wrote. The second test runs the same with bookmarks
(--watch-bookmark-interval 200ms), watching labelled Leases in all
namespaces, and checks that a resume after an idle spell starts from the
bookmark's resourceVersion, where the last event's is already compacted.
A third test, an expected failure, shows that kubemock's bookmarks on a
namespace-scoped watch do not advance with writes elsewhere.

Every event is checked on the way: ADDED only for unknown keys,
MODIFIED and DELETED only for known ones, resourceVersions strictly
growing within a watch and per object, objects carrying a Lease's fields.
Skipped where `import kubernetes` fails."""

import json
import random
import re
import socket
import threading
import time
import unittest

import harness

try:
    import urllib3
    from kubernetes import client, config
    from kubernetes.watch.watch import SimpleNamespace, iter_resp_lines
    from kubernetes.client.rest import ApiException
except ImportError:  # not installed: the class below skips
    client = None

GROUP_VERSION = "coordination.k8s.io/v1"
PAGE_SIZE = 50
TOTAL_WRITES = 1000
WRITES_BEFORE_CUT = 300
WRITES_WHILE_CUT = 300
OTHER_WRITES = 100
WAIT = 20  # seconds for any one condition
EXPIRED_RE = re.compile(r"^too old resource version: (\d+) \((\d+)\)$")


def key_of(obj):
    meta = obj["metadata"]
    return "%s/%s" % (meta["namespace"], meta["name"])


def rv_of(obj):
    return int(obj["metadata"]["resourceVersion"])


def summary(obj):
    """The part of a Lease the writer decides."""
    meta, spec = obj["metadata"], obj.get("spec", {})
    return {
        "labels": meta.get("labels", {}),
        "annotations": meta.get("annotations", {}),
        "holderIdentity": spec.get("holderIdentity"),
        "leaseDurationSeconds": spec.get("leaseDurationSeconds"),
        "leaseTransitions": spec.get("leaseTransitions"),
    }


def without_type(obj):
    """List items carry no apiVersion/kind; watch events do."""
    return {k: v for k, v in obj.items() if k not in ("apiVersion", "kind")}


def lease_problems(obj, namespace, where):
    """What a Lease (from a list or an event) lacks."""
    out = []
    meta = obj.get("metadata") or {}
    for field in ("name", "namespace", "uid", "resourceVersion",
                  "creationTimestamp", "managedFields"):
        if not meta.get(field):
            out.append("%s: metadata.%s missing in %s" % (where, field, obj))
    if namespace and meta.get("namespace") != namespace:
        out.append("%s: namespace %r, watched %r" %
                   (where, meta.get("namespace"), namespace))
    if not str(meta.get("resourceVersion", "")).isdigit():
        out.append("%s: resourceVersion %r" %
                   (where, meta.get("resourceVersion")))
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        out.append("%s: no spec in %s" % (where, obj))
    else:
        for field in ("holderIdentity", "leaseDurationSeconds",
                      "leaseTransitions"):
            if field not in spec:
                out.append("%s: spec.%s missing in %s" % (where, field, obj))
    return out


def raw(response):
    return json.loads(response.data)


class Informer:
    """List+watch of Leases (of one namespace, or of all namespaces with a
    label selector) into a cache, in its own thread. The test can cut the
    connection (pause/resume, reconnect) and wait for conditions on the
    recorded state. Everything it records is guarded by self.cond."""

    def __init__(self, api_client, seed, namespace=None, label_selector=None,
                 bookmarks=False):
        self.api = client.CoordinationV1Api(api_client)
        self.decoder = api_client
        self.namespace = namespace
        self.label_selector = label_selector
        self.bookmarks_allowed = bookmarks
        self.rng = random.Random(seed)
        self.cond = threading.Condition()
        self.cache = {}           # key -> raw object
        self.last_rv = 0          # the resourceVersion a watch resumes from
        self.last_event_rv = 0    # of the last ADDED/MODIFIED/DELETED
        self.lists = []           # (resourceVersion param, list RV, pages)
        self.watches = []         # resourceVersion each watch started from
        self.expired = []         # (how, requested RV, message) per 410
        self.bookmarks = []       # (watch index, RV)
        self.events = 0
        self.problems = []
        self._paused = False
        self._stopping = False
        self._resp = None
        self._cut = False  # the test cut the current watch
        self._thread = threading.Thread(target=self._run, daemon=True)

    # --- control, from the test thread ---------------------------------

    def start(self):
        self._thread.start()

    def stop(self):
        with self.cond:
            self._stopping = True
            self.cond.notify_all()
        self._drop()
        self._thread.join(10)
        if self._thread.is_alive():
            raise AssertionError("informer thread did not stop")

    def pause(self):
        """Cuts the watch; no new request until resume()."""
        with self.cond:
            self._paused = True
        self._drop()

    def resume(self):
        with self.cond:
            self._paused = False
            self.cond.notify_all()

    def reconnect(self):
        """Cuts the watch; the informer resumes from its last RV at once."""
        self._drop()

    def wait_for(self, predicate, timeout=WAIT):
        with self.cond:
            return self.cond.wait_for(
                lambda: predicate(self) or not self._thread.is_alive(),
                timeout) and predicate(self)

    def _drop(self):
        with self.cond:
            self._cut = True
            resp = self._resp
        conn = getattr(resp, "_connection", None) if resp else None
        sock = getattr(conn, "sock", None)
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def call(self, **kwargs):
        """The informer's LIST or WATCH (kwargs say which)."""
        if self.label_selector:
            kwargs["label_selector"] = self.label_selector
        if self.namespace:
            return self.api.list_namespaced_lease(self.namespace, **kwargs)
        return self.api.list_lease_for_all_namespaces(**kwargs)

    # --- the informer's own thread -------------------------------------

    def _run(self):
        list_rv = "0"  # client-go's first list may come from a cache
        need_list = True
        while True:
            with self.cond:
                self.cond.wait_for(lambda: self._stopping or not self._paused)
                if self._stopping:
                    return
            try:
                if need_list:
                    self._relist(list_rv)
                    need_list = False
                outcome = self._watch_once()
            except Exception as e:  # recorded; the test fails on it
                self._problem("informer: %r" % (e,))
                time.sleep(0.2)
                outcome = "error"
            if outcome in ("expired", "error"):
                # After 410 client-go reads the current state (RV "").
                need_list, list_rv = True, ""

    def _problem(self, text):
        with self.cond:
            self.problems.append(text)
            self.cond.notify_all()

    def _relist(self, rv_param):
        items, pages, list_rv = self._list_pages(rv_param)
        if items is None:  # the continue token expired mid-list
            items, pages, list_rv = self._list_pages(rv_param, limit=None)
        with self.cond:
            self.lists.append((rv_param, list_rv, pages))
            problems = []
            if rv_param == "" and list_rv < self.last_rv:
                problems.append("consistent list at RV %d after RV %d was "
                                "seen" % (list_rv, self.last_rv))
            fresh = {}
            for obj in items:
                problems += lease_problems(obj, self.namespace, "list item")
                k = key_of(obj)
                if rv_of(obj) > list_rv:
                    problems.append("list at RV %d holds %s at RV %d" %
                                    (list_rv, k, rv_of(obj)))
                old = self.cache.get(k)
                if (old is not None and old["metadata"]["uid"] ==
                        obj["metadata"]["uid"] and rv_of(obj) < rv_of(old)):
                    problems.append("relist: %s went back from RV %d to %d"
                                    % (k, rv_of(old), rv_of(obj)))
                fresh[k] = obj
            self.cache = fresh
            self.last_rv = list_rv
            self.problems += problems
            self.cond.notify_all()

    def _list_pages(self, rv_param, limit=PAGE_SIZE):
        """One paged LIST as client-go's pager sends it. Returns (items,
        pages, list RV), or (None, ...) when a continue token expired."""
        items, pages, cont, list_rv = [], 0, None, None
        while True:
            kwargs = {"_preload_content": False}
            if limit:
                kwargs["limit"] = limit
            if cont:
                kwargs["_continue"] = cont
            else:
                kwargs["resource_version"] = rv_param
            try:
                body = raw(self.call(**kwargs))
            except ApiException as e:
                if cont and e.status == 410:
                    return None, pages, None
                raise
            pages += 1
            meta = body.get("metadata", {})
            if body.get("kind") != "LeaseList" or \
                    body.get("apiVersion") != GROUP_VERSION:
                self._problem("list: kind %r apiVersion %r" %
                              (body.get("kind"), body.get("apiVersion")))
            page_rv = int(meta["resourceVersion"])
            if list_rv is None:
                list_rv = page_rv
            elif page_rv != list_rv:
                self._problem("page %d of a list at RV %d says RV %d" %
                              (pages, list_rv, page_rv))
            items += body.get("items") or []
            cont = meta.get("continue")
            if not cont:
                return items, pages, list_rv

    def _watch_once(self):
        with self.cond:
            self._cut = False
            start_rv = self.last_rv
            self.watches.append(start_rv)
            index = len(self.watches) - 1
        kwargs = {
            "watch": True,
            "resource_version": str(start_rv),
            # client-go picks 5 to 10 minutes at random
            "timeout_seconds": self.rng.randint(300, 600),
            "_preload_content": False,
        }
        if self.bookmarks_allowed:
            kwargs["allow_watch_bookmarks"] = True
        try:
            resp = self.call(**kwargs)
        except ApiException as e:
            if e.status == 410:
                with self.cond:
                    self.expired.append(("http", start_rv, e.body))
                return "expired"
            raise
        with self.cond:
            self._resp = resp
            cut = self._cut or self._paused or self._stopping
        try:
            if cut:
                return "closed"
            for line in iter_resp_lines(resp):
                outcome = self._apply(json.loads(line), index, start_rv)
                if outcome:
                    return outcome
            with self.cond:
                cut = self._cut
            if not cut:  # the server ends a watch only at timeoutSeconds
                self._problem("watch %d from RV %d ended early" %
                              (index, start_rv))
        except (urllib3.exceptions.HTTPError, OSError, ValueError) as e:
            with self.cond:
                cut = self._cut
            if not cut:
                self._problem("watch %d from RV %d: %r" %
                              (index, start_rv, e))
        finally:
            with self.cond:
                self._resp = None
            resp.close()
            resp.release_conn()
        return "closed"

    def _apply(self, event, index, start_rv):
        """Applies one watch event to the cache; returns "expired" on 410."""
        etype, obj = event.get("type"), event.get("object") or {}
        with self.cond:
            try:
                return self._apply_locked(etype, obj, index, start_rv)
            finally:
                self.cond.notify_all()

    def _apply_locked(self, etype, obj, index, start_rv):
        where = "watch %d (from RV %d) %s" % (index, start_rv, etype)
        if etype == "ERROR":
            if obj.get("code") == 410:
                self.expired.append(("event", start_rv, obj))
                m = EXPIRED_RE.match(obj.get("message", ""))
                if (obj.get("kind") != "Status" or
                        obj.get("reason") != "Expired" or not m or
                        int(m.group(1)) != start_rv or
                        int(m.group(2)) <= start_rv):
                    self.problems.append("%s: unexpected 410 %s" %
                                         (where, obj))
                return "expired"
            self.problems.append("%s: %s" % (where, obj))
            return "error"
        if (obj.get("apiVersion") != GROUP_VERSION or
                obj.get("kind") != "Lease"):
            self.problems.append("%s: object is %s %s" %
                                 (where, obj.get("apiVersion"),
                                  obj.get("kind")))
        rv_text = (obj.get("metadata") or {}).get("resourceVersion", "")
        if not str(rv_text).isdigit():
            self.problems.append("%s: resourceVersion %r" % (where, rv_text))
            return None
        rv = int(rv_text)
        if etype == "BOOKMARK":
            if not self.bookmarks_allowed:
                self.problems.append("%s without allowWatchBookmarks" % where)
            if rv < self.last_rv:
                self.problems.append("%s: RV %d after RV %d" %
                                     (where, rv, self.last_rv))
            self.bookmarks.append((index, rv))
            self.last_rv = max(self.last_rv, rv)
            return None
        if etype not in ("ADDED", "MODIFIED", "DELETED"):
            self.problems.append("%s: unknown event type" % where)
            return None
        self.problems += lease_problems(obj, self.namespace, where)
        try:
            self.decoder.deserialize(
                SimpleNamespace(data=json.dumps(obj)), "V1Lease")
        except Exception as e:
            self.problems.append("%s: V1Lease does not decode: %r" %
                                 (where, e))
        if rv <= self.last_rv:
            self.problems.append("%s: RV %d after RV %d in this watch" %
                                 (where, rv, self.last_rv))
        k = key_of(obj)
        old = self.cache.get(k)
        if etype == "ADDED" and old is not None:
            self.problems.append("%s: %s is already cached at RV %d" %
                                 (where, k, rv_of(old)))
        if etype != "ADDED" and old is None:
            self.problems.append("%s: %s is not cached" % (where, k))
        if old is not None and rv <= rv_of(old):
            self.problems.append("%s: %s went from RV %d to %d" %
                                 (where, k, rv_of(old), rv))
        if etype == "DELETED":
            self.cache.pop(k, None)
        else:
            self.cache[k] = obj
        self.events += 1
        self.last_rv = max(self.last_rv, rv)
        self.last_event_rv = rv
        return None


class Writer:
    """Writes Leases into one namespace and remembers what each should
    hold. Single-threaded per instance; run() may run in a thread."""

    def __init__(self, api_client, namespace, seed, prefix="lease",
                 labels=None):
        self.api = client.CoordinationV1Api(api_client)
        self.namespace = namespace
        self.rng = random.Random(seed)
        self.prefix = prefix
        self.labels = labels or {}
        self.expected = {}  # name -> summary
        self.created = 0
        self.done = 0
        self.last_rv = 0
        self.counts = {}
        self.problems = []

    def run(self, n):
        for _ in range(n):
            try:
                self._one()
            except Exception as e:  # the test fails on self.problems
                self.problems.append("write %d: %r" % (self.done, e))
            self.done += 1

    def _note(self, kind, obj):
        self.counts[kind] = self.counts.get(kind, 0) + 1
        if obj is None:
            return
        rv = rv_of(obj)
        if rv <= self.last_rv:
            self.problems.append("%s answered RV %d after RV %d" %
                                 (kind, rv, self.last_rv))
        self.last_rv = rv
        name = obj["metadata"]["name"]
        if summary(obj) != self.expected[name]:
            self.problems.append("%s of %s answered %s, expected %s" %
                                 (kind, name, summary(obj),
                                  self.expected[name]))

    def _one(self):
        live = sorted(self.expected)
        r = self.rng.random()
        if len(live) < 30 or r < 0.2:
            self._create()
        elif r < 0.3:
            self._delete(self.rng.choice(live))
        elif r < 0.55:
            self._strategic_patch(self.rng.choice(live))
        elif r < 0.7:
            self._json_patch(self.rng.choice(live))
        else:
            self._update(self.rng.choice(live))

    def _create(self):
        name = "%s-%04d" % (self.prefix, self.created)
        self.created += 1
        want = {"labels": dict(self.labels, gen="0"), "annotations": {},
                "holderIdentity": "holder-%d" % self.rng.randrange(5),
                "leaseDurationSeconds": self.rng.randint(10, 60),
                "leaseTransitions": 0}
        self.expected[name] = want
        body = {"apiVersion": GROUP_VERSION, "kind": "Lease",
                "metadata": {"name": name, "labels": want["labels"]},
                "spec": {k: want[k] for k in ("holderIdentity",
                                              "leaseDurationSeconds",
                                              "leaseTransitions")}}
        self._note("create", raw(self.api.create_namespaced_lease(
            self.namespace, body, _preload_content=False)))

    def _delete(self, name):
        del self.expected[name]
        # A Lease's DELETE answers Status Success, not the object.
        self.api.delete_namespaced_lease(name, self.namespace,
                                         _preload_content=False)
        self._note("delete", None)

    def _strategic_patch(self, name):
        want = self.expected[name]
        gen = str(int(want["labels"].get("gen", "0")) + 1)
        holder = "holder-%d" % self.rng.randrange(5)
        want["labels"] = dict(want["labels"], gen=gen)
        want["annotations"] = dict(want["annotations"], step=str(self.done))
        want["holderIdentity"] = holder
        body = {"metadata": {"labels": {"gen": gen},
                             "annotations": {"step": str(self.done)}},
                "spec": {"holderIdentity": holder}}
        # A dict body goes out as application/strategic-merge-patch+json.
        answer = self.api.patch_namespaced_lease(name, self.namespace, body,
                                                 _preload_content=False)
        self._note("strategic-merge-patch", raw(answer))

    def _json_patch(self, name):
        want = self.expected[name]
        seconds = self.rng.randint(10, 60)
        annotations = {"json-patched": str(self.done)}
        want["leaseDurationSeconds"] = seconds
        want["annotations"] = annotations
        body = [{"op": "replace", "path": "/spec/leaseDurationSeconds",
                 "value": seconds},
                {"op": "add", "path": "/metadata/annotations",
                 "value": annotations}]
        # A list body goes out as application/json-patch+json.
        self._note("json-patch", raw(self.api.patch_namespaced_lease(
            name, self.namespace, body, _preload_content=False)))

    def _update(self, name):
        want = self.expected[name]
        current = raw(self.api.read_namespaced_lease(
            name, self.namespace, _preload_content=False))
        want["leaseTransitions"] += 1
        want["holderIdentity"] = "holder-%d" % self.rng.randrange(5)
        current["spec"]["leaseTransitions"] = want["leaseTransitions"]
        current["spec"]["holderIdentity"] = want["holderIdentity"]
        # PUT with the read resourceVersion: a compare-and-swap.
        self._note("update", raw(self.api.replace_namespaced_lease(
            name, self.namespace, current, _preload_content=False)))

    def touch(self):
        """One update whose RV marks the end of this writer's work."""
        self._update(sorted(self.expected)[0])
        return self.last_rv


class PythonInformerTest(harness.ServerTestCase):

    server_args = ("--compaction-interval", "1s",
                   "--watch-bookmark-interval", "200ms")

    @classmethod
    def setUpClass(cls):
        if client is None:
            raise unittest.SkipTest("python3-kubernetes is not installed")
        super().setUpClass()

    def new_client(self):
        api = config.new_client_from_config(
            config_file=self.server.kubeconfig)
        self.addCleanup(api.rest_client.pool_manager.clear)
        self.addCleanup(api.close)
        return api

    def make_namespace(self, name):
        core = client.CoreV1Api(self.new_client())
        core.create_namespace({"apiVersion": "v1", "kind": "Namespace",
                               "metadata": {"name": name}})

    def expired_since(self, api_client, namespace, rv):
        """True when a watch from rv is answered with 410 (history
        compacted past rv). Reads only the first line."""
        resp = client.CoordinationV1Api(api_client).list_namespaced_lease(
            namespace, watch=True, resource_version=str(rv), timeout_seconds=1,
            _preload_content=False)
        try:
            for line in iter_resp_lines(resp):
                event = json.loads(line)
                return (event["type"] == "ERROR" and
                        event["object"].get("code") == 410)
            return False
        finally:
            resp.close()
            resp.release_conn()

    def wait_compacted(self, probe_client, namespace, rv):
        self.assertTrue(harness.wait_until(
            lambda: self.expired_since(probe_client, namespace, rv), WAIT,
            interval=0.2), "RV %d never compacted" % rv)

    def run_scenario(self, informer, writer, check_idle=None):
        """1,000 writes with the informer cut off past a compaction in the
        middle; returns when the informer has caught up and stopped."""
        probe_client = self.new_client()
        informer.start()
        self.addCleanup(informer.stop)
        self.assertTrue(informer.wait_for(lambda i: i.watches),
                        informer.problems)

        # Writes while the informer watches.
        writer.run(WRITES_BEFORE_CUT)
        mark = writer.touch()
        self.assertTrue(informer.wait_for(lambda i: i.last_rv >= mark),
                        (mark, informer.last_rv, informer.problems))
        if check_idle:
            check_idle(probe_client)

        # Cut off longer than the server keeps history; writes go on.
        informer.pause()
        with informer.cond:
            cut_rv = informer.last_rv
        writer.run(WRITES_WHILE_CUT)
        self.wait_compacted(probe_client, writer.namespace, cut_rv)
        relists = len(informer.lists)
        # Resume while the rest of the writes happen.
        rest = TOTAL_WRITES - WRITES_BEFORE_CUT - WRITES_WHILE_CUT - 2
        thread = threading.Thread(target=writer.run, args=(rest,))
        thread.start()
        informer.resume()
        thread.join(60)
        self.assertFalse(thread.is_alive(), "writer hangs")
        mark = writer.touch()
        self.assertTrue(informer.wait_for(lambda i: i.last_rv >= mark),
                        (mark, informer.last_rv, informer.problems))
        informer.stop()

        self.assertEqual(writer.problems, [])
        self.assertEqual(informer.problems, [])
        self.assertEqual(writer.done + 2, TOTAL_WRITES)
        self.assertTrue(all(writer.counts.get(kind) for kind in (
            "create", "delete", "strategic-merge-patch", "json-patch",
            "update")), writer.counts)
        # The resume from cut_rv got 410 and the informer relisted, with
        # a consistent read as client-go does.
        self.assertIn(cut_rv, [rv for _, rv, _ in informer.expired],
                      informer.expired)
        self.assertGreater(len(informer.lists), relists)
        self.assertEqual(informer.lists[relists][0], "")
        self.assertGreater(max(p for _, _, p in informer.lists), 1,
                           "no list needed a continue token")

        # The cache is the store: a fresh LIST, and what was written.
        fresh = raw(informer.call(_preload_content=False))
        stored = {key_of(o): o for o in fresh["items"]}
        self.assertGreaterEqual(int(fresh["metadata"]["resourceVersion"]),
                                mark)
        self.assertGreater(len(stored), PAGE_SIZE)
        self.assertEqual(sorted(informer.cache), sorted(stored))
        for k, obj in stored.items():
            self.assertEqual(informer.cache[k]["metadata"]["resourceVersion"],
                             obj["metadata"]["resourceVersion"], k)
            self.assertEqual(without_type(informer.cache[k]),
                             without_type(obj), k)
        self.assertEqual(
            {k: summary(o) for k, o in informer.cache.items()},
            {"%s/%s" % (writer.namespace, n): s
             for n, s in writer.expected.items()})

    def test_relist_after_410(self):
        ns = "informer-plain"
        self.make_namespace(ns)
        informer = Informer(self.new_client(), 7, namespace=ns)
        self.run_scenario(informer, Writer(self.new_client(), ns, 7))
        self.assertEqual(informer.bookmarks, [])

    def test_relist_after_410_with_bookmarks(self):
        """The informer watches Leases labelled informer=bookmarks in all
        namespaces. While only unlabelled Leases change, bookmarks carry
        its resourceVersion past the compacted last event, and a resume
        starts from the bookmark without a relist."""
        ns, other_ns = "informer-bookmarks", "informer-unlabelled"
        self.make_namespace(ns)
        self.make_namespace(other_ns)
        selector = "informer=bookmarks"
        informer = Informer(self.new_client(), 11, label_selector=selector,
                            bookmarks=True)
        writer = Writer(self.new_client(), ns, 11,
                        labels={"informer": "bookmarks"})
        other = Writer(self.new_client(), other_ns, 12, prefix="other")

        def check_idle(probe_client):
            with informer.cond:
                event_rv = informer.last_event_rv
                bookmarks_before = len(informer.bookmarks)
            other.run(OTHER_WRITES)
            other_rv = other.touch()
            self.assertEqual(other.problems, [])
            self.assertTrue(
                informer.wait_for(lambda i: i.last_rv >= other_rv),
                ("no bookmark reached RV", other_rv, informer.bookmarks[-5:]))
            with informer.cond:
                self.assertGreater(len(informer.bookmarks), bookmarks_before)
                self.assertEqual(informer.last_event_rv, event_rv)
            # Without the bookmark a resume would need a relist now.
            self.wait_compacted(probe_client, ns, event_rv)
            with informer.cond:
                resume_rv = informer.last_rv
                watches, lists = len(informer.watches), len(informer.lists)
                expired = len(informer.expired)
            informer.reconnect()
            # The new watch starts from a bookmark's RV and stays healthy:
            # it gets a bookmark of its own, no 410, no relist.
            self.assertTrue(informer.wait_for(
                lambda i: any(w >= watches for w, _ in i.bookmarks)),
                (informer.watches, informer.bookmarks[-5:]))
            with informer.cond:
                started = informer.watches[watches]
                self.assertGreaterEqual(started, resume_rv)
                self.assertIn(started, [rv for _, rv in informer.bookmarks])
                self.assertEqual(len(informer.lists), lists)
                self.assertEqual(len(informer.expired), expired)

        self.run_scenario(informer, writer, check_idle)
        self.assertTrue(informer.bookmarks)

    def test_namespace_watch_bookmark_advances(self):
        """A BOOKMARK carries the resourceVersion the server has reached
        for the resource, as kube-apiserver's watch cache does, so a Lease
        written in another namespace moves a namespace-scoped watch's
        bookmark forward, though the watch itself never sees that write."""
        ns, other_ns = "bookmark-scoped", "bookmark-elsewhere"
        self.make_namespace(ns)
        self.make_namespace(other_ns)
        api = client.CoordinationV1Api(self.new_client())
        start = api.list_namespaced_lease(ns).metadata.resource_version
        resp = api.list_namespaced_lease(
            ns, watch=True, resource_version=start, allow_watch_bookmarks=True,
            timeout_seconds=2, _preload_content=False)
        try:
            other = Writer(self.new_client(), other_ns, 3)
            other.run(1)
            written = other.last_rv
            self.assertGreater(written, int(start))
            seen = []
            for line in iter_resp_lines(resp):
                event = json.loads(line)
                self.assertEqual(event["type"], "BOOKMARK", event)
                seen.append(rv_of(event["object"]))
                if seen[-1] >= written:
                    break
            self.assertTrue(seen and seen[-1] >= written, (written, seen))
        finally:
            resp.close()
            resp.release_conn()


if __name__ == "__main__":
    unittest.main()
