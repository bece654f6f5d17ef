#!/bin/sh
# cyclic.sh - zond inject's cyclic scenario on a control loop (progs/cycle.c:
# per pass tick() once, one() once, two() twice, three() 3 and four() 4
# times).  The sets {one,two} and {three,four} are swapped at tick(), so
# each set sees whole passes: two = 2 one, 4 three = 3 four exactly, and
# when the program ends by itself the passes of the two sets add up to the
# program's own count.  A safe point never reached gets its line and the
# first set keeps every pass; ^C (SIGINT) to zond and -p keep what was
# measured, and so does the program's SIGKILL (zond's status 137).  The
# program's output and status are as without zond.
#
# Nothing races with the clock: the program sees the swaps itself (three()'s
# bytes, see cycle.c) and each case waits for the second swap the program
# saw (so both sets have whole passes) before it ends the run.
#
# Usage: cyclic.sh ZOND CYCLE WORKDIR
set -u
zond=$1 cycle=$2 dir=$3/cyclic
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
status=0
fail() { echo "FAIL: $*"; status=1; }

# On any exit (the end, an exit after a failed step, a signal): what the script started and
# still runs is killed, children first (the program a zond runs): nothing is left holding
# ctest's output pipe until the test's TIMEOUT.  pgrep -P $$: the script's own children.
cleanup() {
	for p in $(pgrep -P $$); do
		pkill -KILL -P "$p" 2>/dev/null
		kill -KILL "$p" 2>/dev/null
	done
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
# WHAT: exits with a FAIL when the wait begun with waiting (wait_end) passed 60 s, which no
# loaded machine needs: a wait loop never runs until the test's TIMEOUT
waiting() { wait_end=$(($(date +%s) + 60)); }
in_time() { [ "$(date +%s)" -lt $wait_end ] || { echo "FAIL: $1: not within 60 s"; exit 1; }; }
sets="-f one -f two -f three -f four --per-run 2"

# calls of FUNC in run RUN (a number or -C NAME) of store DB
calls() { "$zond" dump -i "$1" $2 | sed -n "s/^function $3 calls=//p"; }

# DB RUN: the whole passes run RUN (a set) of store DB measured: its
# functions' calls are one pass's calls of each (one 1, two 2, three 3, four 4)
# times the same count, whichever two functions the address order put
# together; "bad" if not, "none" for no function.  Leaves the set in setRUN.
set_passes() {
	"$zond" dump -i "$1" -r $2 | sed -n 's/^function \([a-z]*\) calls=\([0-9]*\)$/\1 \2/p' >set$2
	awk '{	k = $1 == "one" ? 1 : $1 == "two" ? 2 : $1 == "three" ? 3 : $1 == "four" ? 4 : 0
		if (!k || $2 % k || (n && $2 / k != first)) { print "bad"; exit }
		if (!n++) first = $2 / k }
		END { if (n == 2) print first; else if (!n) print "none"; else print "bad" }' set$2
}

# Checks the two sets (runs 1 and 2) of store DB: whole passes each; prints
# the passes measured.
whole_passes() {
	total=0
	for r in 1 2; do
		set=$(set_passes "$1" $r)
		case $set in
		bad | none) fail "$1: set $r: not whole passes: $(cat set$r)"; echo 0; return ;;
		esac
		total=$((total + set))
	done
	echo $total
}

# WHAT DB ERR: some passes measured in whole, at most as many as the program made
some_passes() {
	own=$(sed -n 's/^passes //p' "$3")
	got=$(whole_passes "$2")
	[ "$got" -gt 0 ] && [ "$got" -le "$own" ] || fail "$1: $got passes measured, the program made $own"
}

# NAME [MODE]: zond measuring a program that never ends, in the background
# (store NAME.db, campaign NAME, stderr NAME.err; -q unless quiet= is set);
# sets zpid and the program's pid.
quiet=-q
measure_forever() {
	: >$1.err
	"$zond" inject $quiet -o $1.db -c $1 --safe-point tick --period 0.05 $sets -- "$cycle" 0 ${2:-} \
		>/dev/null 2>$1.err &
	zpid=$!
	pid=
	waiting
	while [ -z "$pid" ]; do
		pid=$(sed -n 's/^ready //p' $1.err)
		kill -0 $zpid 2>/dev/null || { echo "FAIL: zond ended first: $(cat $1.err)"; exit 1; }
		in_time "$1: the program's ready line"
		sleep 0.05
	done
}

# ERR: waits until the program whose stderr is ERR saw two swaps (zond
# ending first fails).
two_swaps() {
	waiting
	while ! grep -q '^swap 2 seen' $1; do
		kill -0 $zpid 2>/dev/null || { echo "FAIL: zond ended first: $(cat $1)"; exit 1; }
		in_time "$1: the second swap"
		sleep 0.05
	done
}

# 1. The program ends by itself after 100 passes (under zond: and two swaps).
"$cycle" 100 >plain.out 2>plain.err
plain=$?
grep -q "^passes 100$" plain.err && ! grep -q "^swap" plain.err ||
	fail "without zond: $(cat plain.err)"
"$zond" inject -o end.db -c end --safe-point tick --period 0.05 $sets -- "$cycle" 100 swaps \
	>end.out 2>end.err
rc=$?
[ $rc -eq $plain ] || fail "status $rc under zond inject, $plain without"
diff -u plain.out end.out || fail "output differs"
own=$(sed -n 's/^passes //p' end.err)
grep -q '^swap 2 seen' end.err && [ "${own:-0}" -ge 100 ] ||
	fail "the program's count and swaps: $(cat end.err)"
got=$(whole_passes end.db)
[ "$got" -eq "$own" ] || fail "the sets measured $got passes of $own"
[ "$(calls end.db "-C end" four)" = "$(sed -n 's/^four //p' set1 set2)" ] ||
	fail "campaign end: four is not its run's"
grep -q '^zond inject: set 2 of 2: run 2 stored in end.db: 2 functions, measured' end.err ||
	fail "no line for set 2: $(cat end.err)"

# The metrics of each set (one run each) against the run's JSON export read
# by python: share = incl / duration, per-call = incl / calls; no PMU, so
# no IPC or MPKI.
"$zond" inject --metrics -c end -i end.db >metrics.out || fail "--metrics: status $?"
for r in 1 2; do
	"$zond" export -f json -i end.db -r $r >run$r.json || fail "export of run $r"
done
python3 - metrics.out run1.json run2.json <<'PY' || fail "--metrics: $(cat metrics.out)"
import json, re, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines[0] == "metrics of campaign end (monotone, usable for pruning: share)", lines[0]
want = []
for path in sys.argv[2:]:
    d = json.load(open(path))
    dur = d["run"]["duration_ns"]
    want.append("run %d (set %s): %.6f s" % (d["run"]["id"], d["run"]["meta"]["inject_cyclic_set"], dur / 1e9))
    for n in d["nodes"]:
        incl, self_, calls = n["incl"]["time"], n["self"]["time"], n["calls"]
        want.append("  %s calls=%d share=%.4g%% self-share=%.4g%% per-call=%.4gns"
                    % (n["name"], calls, 100 * incl / dur, 100 * self_ / dur, incl / calls))
    for m in ("ipc (instructions per cycle)", "mpki (cache misses per 1000 instructions)"):
        want.append("  %s: not computed, its inputs are not all in this run" % m)
assert lines[1:] == want, "\n".join(lines[1:] + ["--- wanted"] + want)
PY

# --raw: one line per measurement (run, thread, function), as the export has them
"$zond" inject --raw -c end -i end.db >raw.tsv || fail "--raw: status $?"
# the store read is -i as for every reading command; -o, which inject took first, too
"$zond" inject --raw -c end -o end.db >raw-o.tsv && cmp -s raw.tsv raw-o.tsv || fail "--raw -o"
"$zond" inject -i end.db -f tick -- true 2>err.txt && fail "-i with a run: accepted"
grep -qF "zond inject: -i is the store --raw or --metrics -c NAME read; a run is stored with -o" err.txt ||
	fail "-i with a run: $(cat err.txt)"
python3 - raw.tsv run1.json run2.json <<'PY' || fail "--raw: $(cat raw.tsv)"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
want = []
for path in sys.argv[2:]:
    d = json.load(open(path))
    for n in d["nodes"]:
        want.append((str(d["run"]["id"]), n["name"], str(n["calls"]), str(n["incl"]["time"]),
                     str(n["self"]["time"]), str(n["max"]["time"])))
got = [(r["run"], r["name"], r["calls"], r["incl"], r["self"], r["max"]) for r in rows]
assert sorted(got) == sorted(want) and len(got) == 4, (got, want)
assert all(r["event"] == "time" and r["kind"] == "function" for r in rows)
PY

# 2. A safe point never reached: one line, the first set keeps every pass
# (the program ended by SIGTERM once zond said so).
never_line='^zond inject: process [0-9]* has not reached the safe point tick in 0.05 s: set 1 of 2 stays measured$'
quiet= measure_forever never never
waiting
while ! grep -q "$never_line" never.err; do
	kill -0 $zpid 2>/dev/null || { echo "FAIL: zond ended first: $(cat never.err)"; exit 1; }
	in_time "never: the line"
	sleep 0.05
done
kill -TERM $pid
wait $zpid || fail "never: status $?"
grep -q '^zond inject: set 2 of 2 was never measured$' never.err || fail "set 2: $(cat never.err)"
own=$(sed -n 's/^passes //p' never.err)
got=$(set_passes never.db 1)
[ "$got" = "$own" ] || fail "never: set 1 measured $got passes of $own: $(cat set1)"

# 3. ^C to zond while the program runs on: what was measured is stored.
measure_forever int
two_swaps int.err
kill -INT $zpid
sleep 0.3 # either order of the two ends is correct
kill -TERM $pid
wait $zpid
rc=$?
[ $rc -eq 0 ] || fail "^C: zond's status $rc: $(cat int.err)"
some_passes "^C" int.db int.err

# 4. Attached: measure until two swaps, ^C, detach; the program goes on.
"$cycle" 0 2>att.err &
pid=$!
waiting
while ! grep -q ready att.err; do
	kill -0 $pid 2>/dev/null || { echo "FAIL: the program ended first"; exit 1; }
	in_time "-p: the program's ready line"
	sleep 0.05
done
"$zond" inject -q -o att.db -c att --safe-point tick --period 0.05 $sets -p $pid &
zpid=$!
two_swaps att.err
kill -INT $zpid
wait $zpid || fail "-p: status $?"
kill -TERM $pid
wait $pid
rc=$?
[ $rc -eq 0 ] || fail "-p: the program's status $rc"
some_passes -p att.db att.err

# 5. The program killed (SIGKILL) while measured: zond's status is its, the sets are kept
# (a pass may be cut anywhere: only that both sets, each measured before the
# second swap, were stored is checked)
measure_forever kill
two_swaps kill.err
kill -KILL $pid
wait $zpid
rc=$?
[ $rc -eq 137 ] || fail "SIGKILL: zond's status $rc: $(cat kill.err)"
for r in 1 2; do
	set_passes kill.db $r >/dev/null
	grep -q ' [1-9]' set$r || fail "SIGKILL: set $r not stored: $(cat kill.err)"
done
[ $status -eq 0 ] && echo "cyclic: ok"
exit $status
