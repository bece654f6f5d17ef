#!/usr/bin/env python3
"""chrome_check.py - reads a Chrome trace event file (zond export -f chrome)
with Python's json module, checks it the way trace viewers need it, and
prints what it holds.

Checks: a JSON object with a traceEvents array; every event an object with
a string name, ph "X" or "M", integer pid and tid; "X" events with a string
cat and numeric ts and dur >= 0 (microseconds); "M" events process_name or
thread_name with args.name a string.  Per (pid, tid), complete events in
file order nest: each lies inside the one it is started in, or after it.

Prints: "thread PID TID NAME" per thread_name event, then one line per
complete event, "PID/TID DEPTH NAME TS DUR" (depth from the nesting, not
from the file; " cut-start", " cut-end" after a call its args say the
timeline cut), and "events PID/TID N" per thread.  Exit status 1 on any failure,
with the reason on stderr.

Usage: chrome_check.py FILE
"""
import json
import sys


def fail(why):
    print(f"{sys.argv[1]}: {why}", file=sys.stderr)
    sys.exit(1)


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        fail("not an object with a traceEvents array")
    stacks, counts, out = {}, {}, []
    for i, e in enumerate(doc["traceEvents"]):
        if not isinstance(e, dict) or not isinstance(e.get("name"), str):
            fail(f"event {i}: no name")
        if e.get("ph") not in ("X", "M"):
            fail(f"event {i}: phase {e.get('ph')!r}")
        if not all(isinstance(e.get(k), int) for k in ("pid", "tid")):
            fail(f"event {i}: pid and tid must be integers")
        key = (e["pid"], e["tid"])
        if e["ph"] == "M":
            if e["name"] not in ("process_name", "thread_name") or \
                    not isinstance(e.get("args", {}).get("name"), str):
                fail(f"event {i}: metadata without args.name")
            if e["name"] == "thread_name":
                out.append(f"thread {e['pid']} {e['tid']} {e['args']['name']}")
            continue
        ts, dur = e.get("ts"), e.get("dur")
        if not isinstance(e.get("cat"), str) or not isinstance(ts, (int, float)) or \
                not isinstance(dur, (int, float)) or dur < 0:
            fail(f"event {i}: complete event needs cat, ts and dur >= 0")
        stack = stacks.setdefault(key, [])
        while stack and ts >= stack[-1] and not (dur == 0 and ts == stack[-1]):
            stack.pop()
        if stack and ts + dur > stack[-1] + 1e-9:
            fail(f"event {i}: {e['name']} ends after the call it started in")
        args = e.get("args", {})
        cut = (" cut-start" if args.get("entered_before_timeline") else "") + \
            (" cut-end" if args.get("end_unknown") else "")
        out.append(f"{e['pid']}/{e['tid']} {len(stack)} {e['name']} {ts:.3f} {dur:.3f}{cut}")
        stack.append(ts + dur)
        counts[key] = counts.get(key, 0) + 1
    for (pid, tid), n in sorted(counts.items()):
        out.append(f"events {pid}/{tid} {n}")
    print("\n".join(out))


main()
