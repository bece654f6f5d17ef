#!/bin/sh
# reclaim.sh - forked children beyond the 256 shared blocks of a run over
# its life (reclaim.c), their blocks given back when they end:
#  - 600 children one after the other (work() 100 times, leave() once,
#    every tenth ending inside leave()): every call of work and leave as
#    the program counts them, no lost_*, inject_calls_never_returned 60
#    (counted once: not again, nor as the next owner's), blocks taken over
#    (inject_threads_in_reused_blocks); the same with -f work -f leave
#    --per-run 1 (a campaign of two runs) and attached (-p, the program's
#    work(0) before zond came not measured);
#  - 300 children alive at once, then 100 one after the other: the 45
#    beyond the parent's and 255 children's blocks counted as lost
#    (lost_process_calls 4500, zond's line), work's measured calls exactly
#    the rest, the 100 later children all measured (the ended children's
#    blocks given back as the first of them found none);
#  - 200 children left as zombies for 0.5 s, then 200 more: all measured
#    (zond gives a zombie's block back; the payload cannot tell one).
# Before, a child kept its block for the whole run: the old build on
# "seq 600" measured 255 children (lost_process_calls 34845).
#
# Usage: reclaim.sh ZOND RECLAIM WORKDIR
set -u
zond=$1 prog=$2 dir=$3/reclaim
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
. "$(dirname "$0")/lib.sh"

meta() { # meta STORE KEY: the last run's meta KEY from the JSON export
	"$zond" export -f json -i "$1" | python3 -c 'import json, sys
print(json.load(sys.stdin)["run"]["meta"].get(sys.argv[1], "none"))' "$2"
}

# run NAME ARGS...: the program plain and under zond inject, same output and status
run() {
	name=$1
	shift
	"$prog" "$@" >"$name.plain" || fail "$name: status $? without zond"
	"$zond" inject -q -o "$name.db" -f work -f leave -- "$prog" "$@" >"$name.out" 2>"$name.err"
	rc=$?
	[ $rc -eq 0 ] || fail "$name: exit status $rc under zond inject: $(cat "$name.err")"
	cmp -s "$name.plain" "$name.out" || fail "$name: output $(cat "$name.out")"
	"$zond" dump -i "$name.db" >"$name.dump" || fail "$name: zond dump"
}

run seq seq 600
compare_counts seq.out seq.dump
! grep -q '^lost' seq.dump || fail "seq: $(grep '^lost' seq.dump)"
[ "$(meta seq.db inject_calls_never_returned)" = 60 ] ||
	fail "seq: never returned $(meta seq.db inject_calls_never_returned), want 60"
[ "$(meta seq.db inject_threads_in_reused_blocks)" != none ] || fail "seq: no block reused"
! grep -q 'not measured' seq.err || fail "seq: $(cat seq.err)"

# one function a run: each run gives its blocks back alike
"$zond" inject -q -o perrun.db -f work -f leave --per-run 1 -c pr -- "$prog" seq 600 \
	>perrun.out 2>perrun.err || fail "--per-run 1: status $?: $(cat perrun.err)"
"$zond" dump -i perrun.db -C pr >perrun.dump 2>&1 || fail "--per-run: zond dump -C"
compare_counts perrun.out perrun.dump
! grep -q '^lost' perrun.dump || fail "--per-run: $(grep '^lost' perrun.dump)"

run alive alive 300 seq 100
want=$(sed -n 's/^alive_excess //p' alive.out)
total=$(sed -n 's/^count work //p' alive.out)
grep -qx "lost_process_calls $want" alive.dump ||
	fail "alive: want lost_process_calls $want: $(grep -e '^lost' -e '^function' alive.dump | tr '\n' ' ')"
grep -qx "function work calls=$((total - want))" alive.dump ||
	fail "alive: work $(grep ' work ' alive.dump), want $total - $want"
grep -qx "function leave calls=100" alive.dump || fail "alive: $(grep ' leave ' alive.dump)"
[ "$(meta alive.db inject_calls_never_returned)" = 10 ] ||
	fail "alive: never returned $(meta alive.db inject_calls_never_returned), want 10"
grep -q "^zond inject: $want calls were not measured .*forked children" alive.err ||
	fail "alive: no line naming the cause: $(cat alive.err)"

run zombies zombies 200
compare_counts zombies.out zombies.dump
! grep -q '^lost' zombies.dump || fail "zombies: $(grep '^lost' zombies.dump)"

# attached: the program waits for a line (a fifo) until zond is in
mkfifo go
"$prog" wait seq 600 <go >attach.out 2>attach.err &
pid=$!
exec 3>go
while ! grep -q ready attach.err; do
	kill -0 $pid 2>/dev/null || { fail "-p: the program ended before zond attached"; break; }
	sleep 0.05
done
"$zond" inject -q -o attach.db -f work -f leave -p $pid >attach.zout 2>attach.zerr &
zpid=$!
i=0
while [ $i -lt 200 ]; do
	# zond is in and has let go: the results' memfd mapped, no tracer any more
	grep -q 'memfd:' /proc/$pid/maps 2>/dev/null &&
		grep -q '^TracerPid:[[:space:]]*0$' /proc/$pid/status && break
	sleep 0.05
	i=$((i + 1))
done
[ $i -lt 200 ] || fail "-p: zond did not attach in 10 s: $(cat attach.zerr)"
echo go >&3
exec 3>&-
wait $pid || fail "-p: the program's status $?"
wait $zpid || fail "-p: zond's status $?: $(cat attach.zerr)"
"$zond" dump -i attach.db >attach.dump || fail "-p: zond dump"
n=$(sed -n 's/^count work //p' attach.out)
grep -qx "function work calls=$((n - 1))" attach.dump ||
	fail "-p: work $(grep ' work ' attach.dump), want $((n - 1)) (the first before zond)"
grep -qx "function leave calls=600" attach.dump || fail "-p: $(grep ' leave ' attach.dump)"
! grep -q '^lost' attach.dump || fail "-p: $(grep '^lost' attach.dump)"
exit $status
