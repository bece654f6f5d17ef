"""invariants.py - checks that a zond JSON export adds up as the profile
model promises (doc/json-schema.md, doc/reports.md): from its calling
contexts (those of all threads, folded by path), for every event

  - a context's self + its children's inclusive == its inclusive;
  - a node's calls and self are the sums over its contexts, its inclusive
    the sum over its outermost contexts (no same node above them), its min
    and max the least and most of theirs;
  - a call edge's calls and inclusive are the sums over the contexts along
    it (a context's parent's node to its own; none: a root call);
  - no inclusive below its self, no min above its max.
A node only ever a caller (libcalls' calling module: its contexts have no
calls, their inclusive the sum of their root calls') has no statistics and
is the caller of no edge of its own: its node and edge are not compared.

Usage: invariants.py JSON [--rounding EVENT=N]... [--total N] [--combined]
  --rounding EVENT=N  allow a context's self + children to differ from its
                      inclusive by N for it and each child (each figure
                      rounded on its own: k children's roundings add up), and
                      a node's inclusive to be below its self by N per
                      context of it (a collector that rounds each context's
                      figures to ns on its own); the sums stay exact
  --total N           the first event's total over the nodes must be N
                      (zond report's, or the folded export's sum)
  --combined          a campaign of runs that measured different functions:
                      a context's self + children may be below its inclusive
                      (its callees measured in other runs are no children of
                      it, their time taken out of its self)
Prints one line per violation (the first 10 of each kind) and exits 1 when
there was any.
"""
import collections
import json
import sys


def parse(argv):
    path, rounding, total, combined = None, {}, None, False
    i = 0
    while i < len(argv):
        if argv[i] == "--combined":
            combined = True
            i += 1
        elif argv[i] == "--rounding":
            ev, n = argv[i + 1].split("=")
            rounding[ev] = int(n)
            i += 2
        elif argv[i] == "--total":
            total = int(argv[i + 1])
            i += 2
        else:
            path = argv[i]
            i += 1
    return path, rounding, total, combined


class Report:
    def __init__(self):
        self.counts = collections.Counter()

    def bad(self, kind, text):
        self.counts[kind] += 1
        if self.counts[kind] <= 10:
            print("%s: %s" % (kind, text))


def paths(d):
    names = {n["id"]: n["name"] for n in d["nodes"]}
    out = []
    for c in d["contexts"]:
        up = c["parent"]
        out.append(names[c["node"]] if up is None else out[up] + ";" + names[c["node"]])
    return out


def outermost(d, c):
    up = c["parent"]
    while up is not None:
        if d["contexts"][up]["node"] == c["node"]:
            return False
        up = d["contexts"][up]["parent"]
    return True


def check_contexts(d, ev, slack, where, r, combined):
    children = collections.defaultdict(int)
    nchildren = collections.Counter()
    for c in d["contexts"]:
        if c["parent"] is not None:
            children[c["parent"]] += c["incl"][ev]
            nchildren[c["parent"]] += 1
    for c in d["contexts"]:
        s, incl = c["self"][ev] + children[c["id"]], c["incl"][ev]
        room = slack * (1 + nchildren[c["id"]])
        if s - incl > room or (incl - s > room and not combined):
            r.bad("context self+children != incl",
                  "%s %s: %d + %d != %d" % (ev, where[c["id"]], c["self"][ev],
                                            children[c["id"]], incl))
        if incl < c["self"][ev]:
            r.bad("context incl < self", "%s %s: %d < %d" % (ev, where[c["id"]], incl,
                                                           c["self"][ev]))


def callers_only(d):
    called = {c["node"] for c in d["contexts"] if c["calls"]}
    return {c["node"] for c in d["contexts"]} - called


def check_nodes(d, ev, slack, r):
    skip = callers_only(d)
    calls, self, incl, count = (collections.Counter() for _ in range(4))
    lo, hi = {}, {}
    for c in d["contexts"]:
        n = c["node"]
        calls[n] += c["calls"]
        count[n] += 1
        self[n] += c["self"][ev]
        if outermost(d, c):
            incl[n] += c["incl"][ev]
        if c["min"][ev] is not None:
            lo[n] = min(lo.get(n, c["min"][ev]), c["min"][ev])
        hi[n] = max(hi.get(n, 0), c["max"][ev])
    for n in d["nodes"]:
        i, name = n["id"], n["name"]
        if i in skip:
            continue
        for what, mine, theirs in (("calls", n["calls"], calls[i]),
                                   ("self", n["self"][ev], self[i]),
                                   ("incl", n["incl"][ev], incl[i]),
                                   ("max", n["max"][ev], hi.get(i, 0))):
            if mine != theirs:
                r.bad("node %s != contexts'" % what, "%s %s: %d != %d" % (ev, name, mine, theirs))
        if n["min"][ev] != lo.get(i):
            r.bad("node min != contexts'", "%s %s: %s != %s" % (ev, name, n["min"][ev], lo.get(i)))
        if n["incl"][ev] + slack * count[i] < n["self"][ev]:
            r.bad("node incl < self", "%s %s: %d < %d" % (ev, name, n["incl"][ev], n["self"][ev]))
        if n["min"][ev] is not None and n["min"][ev] > n["max"][ev]:
            r.bad("node min > max", "%s %s" % (ev, name))


def check_edges(d, ev, r):
    names = {n["id"]: n["name"] for n in d["nodes"]}
    skip = callers_only(d)
    sums = collections.defaultdict(lambda: [0, 0])
    for c in d["contexts"]:
        if c["node"] in skip:
            continue
        up = c["parent"]
        key = (None if up is None else d["contexts"][up]["node"], c["node"])
        sums[key][0] += c["calls"]
        sums[key][1] += c["incl"][ev]
    edges = {(e["caller"], e["callee"]): [e["calls"], e["incl"][ev]]
             for e in d["edges"] if e["kind"] == "call"}
    for key in set(sums) | set(edges):
        mine, theirs = edges.get(key, [0, 0]), sums.get(key, [0, 0])
        if mine != theirs:
            r.bad("edge != contexts'", "%s %s -> %s: calls, incl %s != %s" % (
                ev, "-" if key[0] is None else names[key[0]], names[key[1]], mine, theirs))


def main():
    path, rounding, total, combined = parse(sys.argv[1:])
    with open(path, encoding="utf-8") as f:
        d = json.load(f)
    r = Report()
    if not d["contexts"]:
        r.bad("no contexts", path)
    where = paths(d)
    for ev in (e["name"] for e in d["events"]):
        check_contexts(d, ev, rounding.get(ev, 0), where, r, combined)
        check_nodes(d, ev, rounding.get(ev, 0), r)
        check_edges(d, ev, r)
    first = d["events"][0]["name"]
    nodes_total = sum(n["self"][first] for n in d["nodes"])
    if d["totals"]["self"][first] != nodes_total:
        r.bad("totals != nodes'", "%d != %d" % (d["totals"]["self"][first], nodes_total))
    if total is not None and total != nodes_total:
        r.bad("total", "%s: the nodes' %d != %d" % (first, nodes_total, total))
    for kind, n in sorted(r.counts.items()):
        print("%s: %d" % (kind, n))
    sys.exit(1 if r.counts else 0)


main()
