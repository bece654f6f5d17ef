#!/bin/sh
# manythreads.sh - 1900 short threads over the program's life, never more
# than 8 alive (manythreads.c: 1000 on stacks of their own, 300 on glibc's
# reused stacks and TCBs, 50 waves of 8, 300 that end inside the measured
# leave() by pthread_exit): the output and status of a plain run, every call
# of work() and leave() measured as the program counts them, nothing lost,
# leave()'s 300 calls never returned (inject_calls_never_returned 300: each
# ended thread's open call counted when its slot is given to another), and
# inject_threads_in_reused_blocks saying how many threads took an ended
# one's block.  The same with --event task-clock, whose counters' fds are
# closed when their thread's slot is given back: the program's descriptors
# at its end at most 256 (one per slot) more than without zond.  Before,
# slots were kept for the whole run: the calls of threads after the 256th
# were counted as lost (QA s11 F5: 2,620,000 of 8,000,000).
#
# Usage: manythreads.sh ZOND MANYTHREADS WORKDIR
set -u
zond=$1 prog=$2 dir=$3/manythreads
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
. "$(dirname "$0")/lib.sh"

meta() { # meta STORE KEY: the run's meta KEY from the JSON export
	"$zond" export -f json -i "$1" | python3 -c 'import json, sys
print(json.load(sys.stdin)["run"]["meta"].get(sys.argv[1], "none"))' "$2"
}

"$prog" x >plain.out 2>plain.err || fail "manythreads.c exits with status $? without zond"
plainfds=$(sed -n 's/^fds //p' plain.err)
for ev in tsc task-clock; do
	"$zond" inject -q -o $ev.db --event $ev -f work -f leave -- "$prog" x >$ev.out 2>$ev.err
	rc=$?
	if [ $ev = task-clock ] && [ $rc -ne 0 ] && grep -q perf_event $ev.err; then
		echo "manythreads: --event task-clock refused here: $(cat $ev.err)"
		continue
	fi
	[ $rc -eq 0 ] || fail "$ev: exit status $rc under zond inject (plain: 0): $(cat $ev.err)"
	cmp -s plain.out $ev.out || fail "$ev: output $(cat $ev.out), plain $(cat plain.out)"
	"$zond" dump -i $ev.db >$ev.dump || fail "$ev: zond dump"
	for want in 'function work calls=170300' 'function leave calls=300' 'call leave -> work calls=300'; do
		grep -qx "$want" $ev.dump ||
			fail "$ev: no '$want': $(grep -e '^function' -e '^lost' $ev.dump | tr '\n' ' ')"
	done
	! grep -q '^lost' $ev.dump || fail "$ev: calls lost: $(grep '^lost' $ev.dump | tr '\n' ' ')"
	! grep -q 'not measured' $ev.err || fail "$ev: $(cat $ev.err)"
	n=$(meta $ev.db inject_calls_never_returned)
	[ "$n" = 300 ] || fail "$ev: inject_calls_never_returned $n, not 300"
	n=$(meta $ev.db inject_threads_in_reused_blocks)
	[ "$n" != none ] && [ "$n" -ge 1644 ] || fail "$ev: inject_threads_in_reused_blocks $n"
	fds=$(sed -n 's/^fds //p' $ev.err)
	[ -n "$fds" ] && [ "$fds" -le $((plainfds + 256)) ] ||
		fail "$ev: $fds descriptors at the end, $plainfds without zond"
done
exit $status
