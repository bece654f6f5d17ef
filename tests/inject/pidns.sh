#!/bin/sh
# pidns.sh - two processes each pid 1 of a pid namespace of its own
# (QA s14 V2 F6, tests/cli/progs/pidns.c: unshare(CLONE_NEWUSER |
# CLONE_NEWPID), then a fork), each with a thread: the payload's ids are
# those the processes see, and their threads were filed as two threads
# "1/1" and "1/2", each with both processes' calls.  Now four threads, each
# with its own function's calls, under ids of the run's own (ZP_NS_PIDS:
# k * 10000000 + the pid, k in the order the processes came).
#
# Usage: pidns.sh ZOND PIDNS WORKDIR
set -u
zond=$1 prog=$2 dir=$3/pidns
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
. "$(dirname "$0")/lib.sh"

"$prog" >plain.out 2>plain.err
rc=$?
[ $rc -eq 77 ] && { echo "SKIP: $(cat plain.err)"; exit 77; }
[ $rc -eq 0 ] || fail "pidns.c exits with status $rc without zond"
"$zond" inject -q -o i.db -f fa -f fb -f tc -f td -- "$prog" >i.out 2>i.err
rc=$?
[ $rc -eq 0 ] || fail "exit status $rc under zond inject (plain: 0): $(cat i.err)"
cmp -s plain.out i.out || fail "output $(cat i.out), plain $(cat plain.out)"
got=$("$zond" report -i i.db --per-thread -n 0 | awk '
	/^thread / { id = $2 }
	$NF ~ /^(fa|fb|tc|td)$/ && $1 ~ /^[0-9]+$/ { print id, $NF "=" $1 }' | LC_ALL=C sort)
want="10000001/1 fa=100
10000001/2 tc=10
20000001/1 fb=200
20000001/2 td=20"
[ "$got" = "$want" ] || fail "threads' calls: $(echo "$got" | tr '\n' ' ')"
exit $status
