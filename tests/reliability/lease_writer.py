"""Writers that create, update and delete Leases and remember exactly what
the server acknowledged, for the crash-safety test.

Every Lease a Writer touches is its own (names carry the writer's id), so
one Record holds the whole history of a name: the acknowledged state
(absent, or resourceVersion + uid + content) and at most one write in
flight (sent, no answer: it may or may not have happened). Creates with
generateName carry a unique token label, so the object can be found (and
counted) even when the answer, and with it the name, was lost.

Thread safety: a Writer and its Records belong to the thread running
run_cycle(); the main thread reads them only after that thread has been
joined. Ledger is shared and locked.
"""

import random
import string
import threading

import kube_client

NAMESPACE = "reliability"
LEASES = "/apis/coordination.k8s.io/v1/namespaces/%s/leases" % NAMESPACE
TOKEN_LABEL = "reliability/token"

_PAYLOAD_CHARS = string.ascii_letters + string.digits


class Acked:
    """An acknowledged, present object."""

    def __init__(self, rv, uid, content):
        self.rv, self.uid, self.content = rv, uid, content

    def __repr__(self):
        return "rv=%d uid=%s" % (self.rv, self.uid[:8])


class Pending:
    """A write in flight: op is create, update or delete."""

    def __init__(self, op, content=None):
        self.op, self.content = op, content

    def __repr__(self):
        return "in-flight " + self.op


class Record:

    def __init__(self, name, token):
        self.name = name  # None for a generateName create never answered
        self.token = token
        self.state = None  # None (absent) or Acked
        self.pending = None
        self.acks = 0


class Ledger:
    """What every writer and watcher saw, for the revision checks."""

    def __init__(self):
        self._lock = threading.Lock()
        self.max_acked_rv = 0
        self.floor_rv = 0  # every new acknowledgement must be above this
        self.acks = 0
        self.problems = []
        self._uids = {}  # uid -> token of the object that got it
        self.reused_uids = 0
        self.acked = {}  # rv -> name of every acknowledged create/update

    def new_object(self, uid, token):
        """Records the uid of a created object; a uid given to two objects
        is a problem."""
        with self._lock:
            other = self._uids.setdefault(uid, token)
            if other != token:
                self.reused_uids += 1
                if self.reused_uids <= 5:
                    self.problems.append(
                        "uid %s given to two objects: token %s and token %s"
                        % (uid, other, token))

    def ack(self, what, rv, previous_rv, name=None):
        with self._lock:
            self.acks += 1
            if name:
                self.acked[rv] = name
            if rv <= self.floor_rv:
                self.problems.append(
                    "%s acknowledged with rv %d, not above %d (the highest "
                    "revision seen before the last restart)" %
                    (what, rv, self.floor_rv))
            if previous_rv is not None and rv <= previous_rv:
                self.problems.append("%s acknowledged with rv %d after rv %d" %
                                     (what, rv, previous_rv))
            self.max_acked_rv = max(self.max_acked_rv, rv)

    def problem(self, text):
        with self._lock:
            self.problems.append(text)


def content_of(obj):
    """The parts of a Lease the writers choose."""
    meta = obj.get("metadata") or {}
    return {"labels": meta.get("labels") or {},
            "annotations": meta.get("annotations") or {},
            "spec": obj.get("spec") or {}}


def lease_body(content, name=None, generate_name=None, rv=None):
    meta = {"labels": content["labels"], "annotations": content["annotations"]}
    if name:
        meta["name"] = name
    if generate_name:
        meta["generateName"] = generate_name
    if rv is not None:
        meta["resourceVersion"] = str(rv)
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": meta, "spec": content["spec"]}


class Writer:
    """One client's writes. run_cycle() writes until the server is gone or
    stop is set."""

    def __init__(self, writer_id, seed, ledger):
        self.id = writer_id
        self.rng = random.Random(seed)
        self.ledger = ledger
        self.records = {}  # name -> Record
        self.unnamed = []  # Records of generateName creates never answered
        # Names whose delete was acknowledged since the last clear: the
        # answer (a Status) carries no resourceVersion, so their DELETED
        # events may come after the highest acknowledged revision.
        self.acked_deletes = set()
        self._seq = 0

    def _content(self, token, step):
        payload = "".join(self.rng.choice(_PAYLOAD_CHARS)
                          for _ in range(self.rng.randint(16, 1200)))
        return {"labels": {"reliability/writer": self.id, TOKEN_LABEL: token,
                           "reliability/step": str(step)},
                "annotations": {"reliability/payload": payload},
                "spec": {"holderIdentity": "%s-%d" % (token, step),
                         "leaseDurationSeconds": self.rng.randint(1, 3600),
                         "leaseTransitions": step}}

    def _new_token(self):
        self._seq += 1
        return "%s-%d" % (self.id, self._seq)

    def run_cycle(self, client, stop):
        try:
            while not stop.is_set():
                self.step(client)
        except kube_client.ConnectionLost:
            pass
        finally:
            client.close()

    def step(self, client):
        present = [r for r in self.records.values() if r.state is not None]
        n = len(present)
        x = self.rng.random()
        if n < 5 or (n < 40 and x < 0.25):
            self._create(client, generate=False)
        elif n < 40 and x < 0.35:
            self._create(client, generate=True)
        elif x < 0.75 and n < 40 or x < 0.5:
            self._update(client, self.rng.choice(present))
        else:
            self._delete(client, self.rng.choice(present))

    def _send(self, client, rec, pending, method, path, body):
        """Sends with rec.pending set; clears it when the request certainly
        never left. Raises ConnectionLost."""
        rec.pending = pending
        try:
            return client.request(method, path, body)
        except kube_client.ConnectionLost as e:
            if not e.sent:
                rec.pending = None
            raise

    def _unexpected(self, what, resp):
        self.ledger.problem("%s answered %d: %s" %
                            (what, resp.status, resp.body[:300]))

    def _create(self, client, generate):
        token = self._new_token()
        content = self._content(token, 0)
        if generate:
            rec = Record(None, token)
            self.unnamed.append(rec)
            body = lease_body(content, generate_name=self.id + "-g-")
        else:
            rec = Record(token, token)
            self.records[token] = rec
            body = lease_body(content, name=token)
        what = "create %s" % token
        resp = self._send(client, rec, Pending("create", content), "POST",
                          LEASES, body)
        if resp.status != 201:
            self._unexpected(what, resp)
            return
        obj = resp.json()
        if content_of(obj) != content:
            self.ledger.problem("%s: the answer's content differs from the "
                                "request" % what)
        rv = int(obj["metadata"]["resourceVersion"])
        self.ledger.ack(what, rv, None, obj["metadata"]["name"])
        self.ledger.new_object(obj["metadata"]["uid"], token)
        if generate:
            self.unnamed.remove(rec)
            rec.name = obj["metadata"]["name"]
            self.records[rec.name] = rec
        rec.state = Acked(rv, obj["metadata"]["uid"], content)
        rec.pending = None
        rec.acks += 1

    def _update(self, client, rec):
        step = int(rec.state.content["labels"]["reliability/step"]) + 1
        content = self._content(rec.token, step)
        what = "update %s from rv %d" % (rec.name, rec.state.rv)
        resp = self._send(client, rec, Pending("update", content), "PUT",
                          "%s/%s" % (LEASES, rec.name),
                          lease_body(content, name=rec.name, rv=rec.state.rv))
        if resp.status != 200:
            self._unexpected(what, resp)
            return
        obj = resp.json()
        if content_of(obj) != content:
            self.ledger.problem("%s: the answer's content differs from the "
                                "request" % what)
        rv = int(obj["metadata"]["resourceVersion"])
        self.ledger.ack(what, rv, rec.state.rv, rec.name)
        if obj["metadata"]["uid"] != rec.state.uid:
            self.ledger.problem("%s: uid changed" % what)
        rec.state = Acked(rv, rec.state.uid, content)
        rec.pending = None
        rec.acks += 1

    def _delete(self, client, rec):
        what = "delete %s at rv %d" % (rec.name, rec.state.rv)
        body = {"apiVersion": "v1", "kind": "DeleteOptions",
                "preconditions": {"resourceVersion": str(rec.state.rv),
                                  "uid": rec.state.uid}}
        resp = self._send(client, rec, Pending("delete"), "DELETE",
                          "%s/%s" % (LEASES, rec.name), body)
        if resp.status != 200:
            self._unexpected(what, resp)
            return
        rec.state = None
        rec.pending = None
        rec.acks += 1
        self.acked_deletes.add(rec.name)
