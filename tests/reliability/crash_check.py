"""Compares the Leases a restarted server holds with what the writers were
told before it was killed.

For every name: with nothing in flight, the object must be exactly the
acknowledged one (same resourceVersion, uid and content) or absent if the
last acknowledged write deleted it. With a write in flight, the object is
either as acknowledged before that write, or the write happened whole (all
of its content, a newer resourceVersion). A generateName create left at
most one object with its token, exactly one once acknowledged. Anything
else in the namespace is a problem.

check() resolves in-flight writes to what the server shows, so the next
cycle starts from known state, and returns the writes that happened.

Thread safety: call with every writer thread joined.
"""

from lease_writer import Acked, TOKEN_LABEL, content_of


class Applied:
    """An in-flight write that turned out to have happened."""

    def __init__(self, name, op, rv):
        self.name, self.op, self.rv = name, op, rv  # rv None for a delete


def _observed(obj):
    meta = obj["metadata"]
    return Acked(int(meta["resourceVersion"]), meta["uid"], content_of(obj))


def _same(acked, obs):
    if acked is None or obs is None:
        return acked is None and obs is None
    return (acked.rv == obs.rv and acked.uid == obs.uid and
            acked.content == obs.content)


def _describe(acked):
    return "absent" if acked is None else repr(acked)


def check(writers, items, ledger, problems):
    """items: name -> object from a LIST after the restart. Appends problem
    lines; returns the list of Applied in-flight writes.

    generateName creates in flight are matched first, by token: the name
    the server generated may be one an earlier, deleted object had."""
    applied = []
    by_token = {}
    for name, obj in items.items():
        token = (obj["metadata"].get("labels") or {}).get(TOKEN_LABEL)
        if token:
            by_token.setdefault(token, []).append(name)
    for token, names in by_token.items():
        if len(names) > 1:
            problems.append("token %s is on %d objects: %s (one create, "
                            "several objects)" % (token, len(names),
                                                  sorted(names)))
    unclaimed = dict(items)
    for w in writers:
        adopted = []
        for rec in w.unnamed:
            names = by_token.get(rec.token, [])
            if rec.pending is None or not names:
                continue  # never sent, or sent and did not happen: fine
            obj = unclaimed.pop(names[0])
            obs = _observed(obj)
            if obs.content != rec.pending.content:
                problems.append("generateName create %s: half applied: "
                                "stored content differs from the request" %
                                rec.token)
            ledger.new_object(obs.uid, rec.token)
            rec.name = names[0]
            rec.state, rec.pending = obs, None
            adopted.append(rec)
            applied.append(Applied(rec.name, "create", obs.rv))
        w.unnamed = []
        for rec in w.records.values():
            obs_obj = unclaimed.pop(rec.name, None)
            obs = _observed(obs_obj) if obs_obj is not None else None
            a = _resolve(rec, obs, problems)
            if a:
                applied.append(a)
        for rec in adopted:
            w.records[rec.name] = rec
    for name in sorted(unclaimed):
        problems.append("%s is stored but no writer created it" % name)
    return applied


def _resolve(rec, obs, problems):
    p = rec.pending
    if p is None:
        if not _same(rec.state, obs):
            problems.append("%s: acknowledged %s, after restart %s%s" %
                            (rec.name, _describe(rec.state), _describe(obs),
                             _content_note(rec.state, obs)))
        rec.state = obs
        return None
    rec.pending = None
    if _same(rec.state, obs):
        return None  # the in-flight write did not happen
    before = _describe(rec.state)
    if p.op == "delete":
        if obs is None:
            rec.state = None
            return Applied(rec.name, "delete", None)
    elif obs is not None and obs.content == p.content and (
            rec.state is None or
            (obs.uid == rec.state.uid and obs.rv > rec.state.rv)):
        rec.state = obs
        return Applied(rec.name, p.op, obs.rv)
    problems.append("%s: %s in flight from %s; after restart %s: neither "
                    "before nor whole%s" % (rec.name, p.op, before,
                                            _describe(obs),
                                            _content_note(rec.state, obs)))
    rec.state = obs
    return None


def _content_note(want, got):
    if want is None or got is None or want.content == got.content:
        return ""
    keys = [k for k in ("labels", "annotations", "spec")
            if want.content.get(k) != got.content.get(k)]
    return " (content differs in %s)" % ", ".join(keys)
