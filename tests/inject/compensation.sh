#!/bin/sh
# compensation.sh - what zond inject subtracts for its own payloads is shown
# (event probe-cost: per call the payload's own part c0, and per measured
# call below the whole payload cpair, as the run's meta gives them), and a
# function whose time is mostly its measured callees' payloads is named in
# one line and in the run's meta: nested.c's loop makes 100000 calls of a
# function of a few instructions, measured on the thread's CPU time.
# Measured one per run, nothing rests on the estimate and nothing is said.
#
# Usage: compensation.sh ZOND NESTED WORKDIR
set -u
zond=$1 prog=$2 dir=$3/compensation
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
status=0
fail() { echo "FAIL: $*"; status=1; }

# The thread's CPU time (--event task-clock), not the TSC: a run waiting for a
# core on a loaded machine adds to wall time only, which could tip the share.
if ! "$zond" inject -q -o probe.db --event task-clock -f tiny -- "$prog" 10 >/dev/null 2>probe.err &&
	grep -q 'perf_event_open' probe.err; then
	echo "SKIP: $(cat probe.err)"
	exit 77
fi
"$prog" 100000 >plain.out
"$zond" inject -q -o all.db --event task-clock -f main -f loop -f tiny -- "$prog" 100000 \
	>all.out 2>all.err || fail "zond inject: status $?"
diff -u plain.out all.out || fail "output differs"
grep -q "^zond inject: \(loop, main\|main, loop\): their times rest on an estimate: up to [0-9.]*% of what was measured there was the payload of measured callees, subtracted as calibrated; measure with fewer functions per run (--per-run 1) for times that rest on the counter$" all.err ||
	fail "no line naming loop and main: $(cat all.err)"
"$zond" export -f json -i all.db | python3 -c '
import json, sys
d = json.load(sys.stdin)
meta = d["run"]["meta"]
if sorted(meta.get("inject_compensation_dominates", "").split(", ")) != ["loop", "main"] or float(meta["inject_compensation_share"]) <= 50:
	sys.exit("meta: %s" % meta)
c0 = float(meta["inject_payload_inside"])
names = {n["id"]: n["name"] for n in d["nodes"]}
ctx = {c["id"]: c for c in d["contexts"]}
def path(c):
	return (path(ctx[c["parent"]]) + ";" if c["parent"] is not None else "") + names[c["node"]]
cost = {path(c): c for c in ctx.values()}
tiny, loop = cost["main;loop;tiny"], cost["main;loop"]
ev = "probe-cost"
# c0 per call of tiny (meta has one decimal), inclusive = self + the callees inclusive;
# less where the bound raised the time of tiny to its floor (1 per call, or its dearest call):
# what the bound gives back is taken off probe-cost (doc/inject.md)
full, pc = 100000 * c0, tiny["incl"][ev]
floor = max(tiny["calls"], tiny["max"]["task-clock"] or 0)
if tiny["calls"] != 100000 or pc > full + 100000 * 0.05 + 1 or (
		tiny["self"]["task-clock"] > floor and pc < full - 100000 * 0.05 - 1):
	sys.exit("tiny: %s, c0 %s" % (tiny, c0))
if loop["incl"][ev] != loop["self"][ev] + tiny["incl"][ev]:
	sys.exit("loop: %s" % loop)
# what loop measured beside its callees payloads: cpair per call of tiny
cpair = (loop["incl"][ev] - loop["calls"] * c0) / 100000
if not 0 < cpair < 100000:
	sys.exit("cpair %s" % cpair)
' || fail "probe-cost and meta"

"$zond" inject -q -o one.db --per-run 1 -c one -f main -f loop -f tiny -- "$prog" >one.out 2>one.err ||
	fail "zond inject --per-run 1: status $?"
grep -q 'rest on an estimate\|rests on an estimate' one.err && fail "--per-run 1: $(cat one.err)"
[ "$("$zond" runs -i one.db | grep -c '\[one\]')" -eq 3 ] || fail "--per-run 1: not 3 runs"

# --descend with pruning (the default 1%): loop is all of main's work and
# tiny's bound is loop's, so both are measured; what is pruned (crt's _init,
# frame_dummy, __do_global_dtors_aux: bounds of 0.2-9 us) is pruned against
# the run's whole in ns (it was once read in the payload's units: 665 times
# too big, which pruned every callee of a real program).  The first pass
# measures everything, tiny's 2M calls with their payloads: from 23 ms to
# 1.2 s in runs here (the TSC runs on while the program waits for a core);
# the whole is main's time measured alone (6.7 ms) once main is, as loop's
# bound is: before (s15), the first pass's whole pruned loop under load.
rm -f dsc.db
"$zond" inject -o dsc.db --descend -c dsc -- "$prog" >dsc.out 2>dsc.err ||
	fail "zond inject --descend: status $?"
"$zond" dump -i dsc.db -C dsc >dsc.dump || fail "zond dump -C dsc"
for f in loop tiny; do
	grep -q "^function $f " dsc.dump || fail "--descend pruned $f: $(grep pruned dsc.err)"
done
grep -q '^zond inject: pruned ' dsc.err || fail "--descend pruned nothing: $(cat dsc.err)"
sed -n 's/^zond inject: pruned .* of \([0-9]*\) ns$/\1/p' dsc.err | while read -r whole; do
	[ "$whole" -lt 2000000000 ] || { echo "FAIL: --descend: the whole is $whole ns"; exit 1; }
done || status=1

exit $status
