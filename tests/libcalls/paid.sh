#!/bin/sh
# paid.sh - zond libcalls --time exact measures its probes' cost where it is
# paid, on every call, as zond record does (s15: one calibrated mean was
# subtracted, and a 3 ns strlen showed 23 ns a call): the run says what a
# probe pair cost on the program's own calls (meta overhead_pair_paid_ns,
# known and within 8 start-up calibrations); what was kept out shows per
# function (probe-cost); and what the correction cannot make lie: every
# context that ran has time, a caller's total is at least its callees'.  The
# figures' accuracy is bench/libcalls' (tiny calls, zond next to the truth).
# chain.c: a program calling a library that calls another (and libc's strlen).
#
# Usage: paid.sh ZOND CHAIN WORKDIR
set -u
zond=$1 chain=$2 dir=$3/paid
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail() { echo "FAIL: $*"; status=1; }
status=0

"$chain" >plain.out || fail "plain run"
"$zond" libcalls -q -o p.db --time exact -f 'c[ab]_*' -f strlen -- "$chain" >out 2>err ||
	fail "zond libcalls: $(cat err)"
cmp -s plain.out out || fail "output: $(cat out)"
"$zond" dump --times -i p.db >dump.txt || fail "zond dump"
"$zond" export -f json -i p.db >p.json || fail "zond export"
python3 - dump.txt p.json <<'PY' || status=1
import json, sys
ctx = {}
for line in open(sys.argv[1]):
    if not line.startswith("context "):
        continue
    path, rest = line[8:].split(" calls=", 1)
    fields = dict(f.split("=") for f in ("calls=" + rest).split())
    ctx[path] = {k: int(v) for k, v in fields.items()}
bad = []
for path, c in ctx.items():
    if c["calls"] and c["self.time"] <= 0:
        bad.append("%s ran %d calls in no time" % (path, c["calls"]))
    kids = sum(k["total.time"] for p, k in ctx.items()
               if p.startswith(path + ";") and ";" not in p[len(path) + 1:])
    if c["total.time"] < kids:
        bad.append("%s total %d < its callees' %d" % (path, c["total.time"], kids))
nest = [c for p, c in ctx.items() if p.endswith(";ca_nest") and c["calls"]]
if sum(c["calls"] for c in nest) != 7000:
    bad.append("ca_nest calls %d, the program made 7000" % sum(c["calls"] for c in nest))
if not any(c["self.probe-cost"] > 0 for c in nest):
    bad.append("ca_nest: no probe cost shown for its callees' probes")
meta = json.load(open(sys.argv[2]))["run"]["meta"]
if "overhead_pair_paid_ns" not in meta:
    bad.append("no overhead_pair_paid_ns: the probes' cost not measured where paid")
else:
    paid, pair = float(meta["overhead_pair_paid_ns"]), float(meta["overhead_pair_ns"])
    if not 0 < paid <= 8 * pair:
        bad.append("overhead_pair_paid_ns %g, calibrated pair %g" % (paid, pair))
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
[ $status -eq 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit $status
