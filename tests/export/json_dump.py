"""json_dump.py - reads a zond JSON export with Python's json module and
prints it as plain lines that test_json.c compares with the model.

Strings print as the hex of their UTF-8 bytes, numbers as integers, null
as "-"; cost objects print their values in the order of the events list.
"""
import json
import sys


def text(s):
    return "-" if s is None else s.encode("utf-8").hex()


def num(v):
    return "-" if v is None else str(v)


def costs(obj, events):
    assert list(obj) == events, (list(obj), events)
    return [num(obj[e]) for e in events]


def stat(s, events):
    return [s["calls"]] + sum((costs(s[k], events) for k in ("self", "incl", "min", "max")), [])


def edge(e, events):
    return [e["kind"], num(e["caller"]), e["callee"], e["calls"], e["taken"], e["site"],
            e["site_line"]] + costs(e["incl"], events)


def context(c, events):
    return [c["id"], num(c["parent"]), c["node"], c["site"], c["site_line"]] + stat(c, events)


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        d = json.load(f)
    events = [e["name"] for e in d["events"]]
    r = d["run"]
    print("format", d["format"], d["version"])
    print("run", r["id"], *(text(r[k]) for k in ("campaign", "collector", "command", "host", "arch",
                                                   "clock")),
          *(num(r[k]) for k in ("start_ns", "duration_ns", "pid", "exit_status", "term_signal",
                                "overhead_ns")))
    for k, v in r["meta"].items():
        print("meta", text(k), text(v))
    for e in d["events"]:
        print("event", text(e["name"]), text(e["unit"]))
    print("thread", num(d["thread"]))
    print("totals", d["totals"]["calls"], *costs(d["totals"]["self"], events))
    for n in d["nodes"]:
        print("node", n["id"], n["kind"], text(n["name"]), text(n["module"]), text(n["file"]),
              n["line"], n["addr"], num(n["parent"]), *stat(n, events))
    for e in d["edges"]:
        print("edge", *edge(e, events))
    for c in d["contexts"]:
        print("context", *context(c, events))
    for t in d["threads"]:
        print("thread", t["index"], t["pid"], t["tid"], text(t["name"]))
        for n in t["nodes"]:
            print(" node", n["id"], *stat(n, events))
        for e in t["edges"]:
            print(" edge", *edge(e, events))
        for c in t["contexts"]:
            print(" context", *context(c, events))


main()
