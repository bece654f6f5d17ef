#!/bin/sh
# forkbox.sh - a program under a seccomp allow-list without getpid, gettid
# and madvise forks a child, and both call work() at the same time
# (forkbox.c): the output and status of a plain run.  With main's call
# made before the filter (the payload running then): the child's 100000
# calls on a thread of its own, of the child's process id, the parent's
# 50001 on its own, nothing lost.  With the first measured call after the
# filter: the same (50000 and 100000), main's thread having taken its slot
# at the prctl call (QA s14 V2 F5's strict mode needs it); before that,
# every call was counted as not measured (lost_seccomp_calls 150000).
# Before, the child went on in its parent thread's block under seccomp:
# one thread with the calls of both processes, their updates racing.
#
# Usage: forkbox.sh ZOND FORKBOX WORKDIR
set -u
zond=$1 prog=$2 dir=$3/forkbox
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
. "$(dirname "$0")/lib.sh"

threads() { # the run's threads as "pid calls" lines, by calls
	"$zond" export -f json -i "$1" | python3 -c 'import json, sys
d = json.load(sys.stdin)
for t in sorted(d["threads"], key=lambda t: t["nodes"][0]["calls"] if t["nodes"] else 0):
    print(t["pid"], t["nodes"][0]["calls"] if t["nodes"] else 0)'
}

for mode in before after; do
	arg=; [ $mode = before ] && arg=x
	"$prog" $arg >$mode.plain
	rc=$?
	[ $rc -eq 77 ] && { echo "SKIP: no seccomp filter here"; exit 77; }
	[ $rc -eq 0 ] || fail "$mode: forkbox.c exits with status $rc without zond"
	"$zond" inject -q -o $mode.db -f work -- "$prog" $arg >$mode.out 2>$mode.err
	rc=$?
	[ $rc -eq 0 ] || fail "$mode: exit status $rc under zond inject (plain: 0): $(cat $mode.err)"
	cmp -s $mode.plain $mode.out || fail "$mode: output $(cat $mode.out), plain $(cat $mode.plain)"
	"$zond" dump -i $mode.db >$mode.dump || fail "$mode: zond dump"
	threads $mode.db >$mode.threads || fail "$mode: zond export"
	main=50000; [ $mode = before ] && main=50001
	grep -qx "function work calls=$((main + 100000))" $mode.dump ||
		fail "$mode: $(grep '^function' $mode.dump)"
	! grep -q '^lost' $mode.dump || fail "$mode: $(grep '^lost' $mode.dump | tr '\n' ' ')"
	set -- $(cat $mode.threads)
	[ $# -eq 4 ] && [ "$2" = $main ] && [ "$4" = 100000 ] && [ "$1" != "$3" ] ||
		fail "$mode: threads (pid calls): $(tr '\n' ' ' <$mode.threads)"
done
exit $status
