#!/bin/sh
# fastclock.sh - zond inject --fast-clock (the TSC read without its fences,
# the calibration run on that payload): the program's output and status
# as without zond and its own call counts (calls.c: recursion, threads,
# longjmp, a signal handler, tail calls); the run's meta says the clock
# (inject_clock fast, and fenced without the option); on layers.c, whose
# callers do microseconds of work of their own around their calls, every
# calling context's inclusive time is at least the sum of its callees',
# with either clock; a region's passes (passes.c) counted as the program
# counts them.  No time is held to a threshold: what the fences buy is
# measured by bench/inject and bench/inject_embench (doc/inject.md).
#
# Usage: fastclock.sh ZOND CALLS LAYERS PASSES WORKDIR
set -u
zond=$1 calls=$2 layers=$3 passes=$4 dir=$5/fastclock
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
. "$(dirname "$0")/lib.sh"

# clock_of DB: the stored run's inject_clock meta ("none" without it).
clock_of() {
	"$zond" export -f json -i "$1" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["run"]["meta"].get("inject_clock", "none"))'
}

"$calls" >plain.out
plain=$?
"$zond" inject -q -o calls.db --fast-clock -- "$calls" >calls.out
rc=$?
[ $rc -eq $plain ] || fail "exit status $rc under zond inject --fast-clock, $plain without"
diff -u plain.out calls.out || fail "output differs under zond inject --fast-clock"
"$zond" dump -i calls.db >calls.dump || fail "zond dump"
compare_counts calls.out calls.dump
[ "$(grep -c '^count ' calls.out)" -eq 11 ] || fail "the program printed no counts"
[ "$(clock_of calls.db)" = fast ] || fail "--fast-clock: inject_clock is $(clock_of calls.db)"

# Callers' inclusive times against their callees', fenced and unfenced.
"$layers" >layers.plain
for clock in fenced fast; do
	opt=
	[ $clock = fast ] && opt=--fast-clock
	"$zond" inject -q -o $clock.db $opt -f outer -f middle -f inner -- "$layers" >$clock.out
	rc=$?
	[ $rc -eq 0 ] || fail "layers ($clock): exit status $rc"
	diff -u layers.plain $clock.out || fail "layers ($clock): output differs"
	"$zond" dump -i $clock.db >$clock.dump || fail "zond dump ($clock)"
	compare_counts $clock.out $clock.dump
	for c in 'outer calls=1' 'outer;middle calls=50' 'outer;middle;inner calls=1000'; do
		grep -qx "context $c" $clock.dump || fail "layers ($clock): no context '$c'"
	done
	[ "$(clock_of $clock.db)" = $clock ] || fail "layers: inject_clock is $(clock_of $clock.db), not $clock"
	"$zond" export -f json -i $clock.db | python3 -c '
import json, sys
d = json.load(sys.stdin)
names = {n["id"]: n["name"] for n in d["nodes"]}
below = {}
for c in d["contexts"]:
	below.setdefault(c["parent"], []).append(c)
for c in d["contexts"]:
	callees = sum(k["incl"]["time"] for k in below.get(c["id"], []))
	if c["incl"]["time"] < callees:
		sys.exit("%s: %d ns inclusive, its callees %d ns" % (names[c["node"]], c["incl"]["time"], callees))
' || fail "layers ($clock): a caller's time under its callees'"
done

# The region scenario's end of a pass is read unfenced too.
"$passes" >passes.plain
want=$(sed -n 's/^count region //p' passes.plain)
"$zond" inject -q -o region.db --fast-clock --region pass_begin,pass_end -- "$passes" >passes.out ||
	fail "--fast-clock --region: status $?"
diff -u passes.plain passes.out || fail "--fast-clock --region: output differs"
got=$("$zond" dump -i region.db | sed -n "s/^block region .* calls=//p")
[ "$got" = "$want" ] || fail "--fast-clock --region: $got passes, the program counted $want"
[ "$(clock_of region.db)" = fast ] || fail "--fast-clock --region: inject_clock is $(clock_of region.db)"

[ $status -eq 0 ] && echo "fastclock: ok"
exit $status
