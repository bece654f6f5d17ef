#!/bin/sh
# altstack.sh - signal handlers on alternate stacks above their threads'
# stacks (altabove.c: the stacks mmap'd before the threads), calling a
# measured function while their thread runs measured functions, every
# function measured: status 0, the program's output, every count exactly
# the program's, nothing lost, in two runs.  Before, the handler's first
# measured call took the interrupted thread's live frames for frames a
# longjmp left (their slots lie below its own) and dropped them while the
# interrupted entry or exit still used them: SIGSEGV in every run (QA s11
# F2).
#
# Usage: altstack.sh ZOND ALTABOVE WORKDIR
set -u
zond=$1 prog=$2 dir=$3/altstack
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
. "$(dirname "$0")/lib.sh"

"$prog" >plain.out || fail "altabove.c exits with status $? without zond"
grep -qx 'above 2' plain.out || { echo "SKIP: the alternate stacks are not above the threads' stacks here"; exit 77; }
for i in 1 2; do
	"$zond" inject -q -o "run$i.db" -f leaf -f mid -f handler -f worker -- "$prog" >"run$i.out" 2>"run$i.err"
	rc=$?
	[ $rc -eq 0 ] || fail "run $i: exit status $rc under zond inject (plain: 0)"
	grep -qx 'bad 0' "run$i.out" || fail "run $i: wrong results: $(grep bad "run$i.out")"
	grep -qx 'count handler 1000' "run$i.out" || fail "run $i: $(grep handler "run$i.out")"
	"$zond" dump -i "run$i.db" >"run$i.dump" || fail "run $i: zond dump"
	! grep -q '^lost_' "run$i.dump" || fail "run $i: $(grep '^lost_' "run$i.dump")"
	compare_counts "run$i.out" "run$i.dump"
done
exit $status
