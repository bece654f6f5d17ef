#!/bin/sh
# seccomp.sh - a program under a seccomp allow-list without gettid and
# getpid starts a thread that calls a measured function (sandbox.c): the
# output and status of a plain run; main's call before the filter
# measured, the thread's 1001 calls (worker, 1000 of work) not measured
# but counted: meta lost_seccomp_calls 1001, no lost_thread_calls, zond's
# line naming the cause.  Before, the thread's first measured call made
# gettid and the filter killed the program (SIGSYS, QA s11 F9).
#
# Usage: seccomp.sh ZOND SANDBOX WORKDIR
set -u
zond=$1 prog=$2 dir=$3/seccomp
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
. "$(dirname "$0")/lib.sh"

"$prog" >plain.out
rc=$?
[ $rc -eq 77 ] && { echo "SKIP: no seccomp filter here"; exit 77; }
[ $rc -eq 0 ] || fail "sandbox.c exits with status $rc without zond"
for i in 1 2; do
	"$zond" inject -q -o "run$i.db" -f main -f worker -f work -- "$prog" >"run$i.out" 2>"run$i.err"
	rc=$?
	[ $rc -eq 0 ] || fail "run $i: exit status $rc under zond inject (plain: 0)"
	cmp -s plain.out "run$i.out" || fail "run $i: output $(cat "run$i.out"), plain $(cat plain.out)"
	"$zond" dump -i "run$i.db" >"run$i.dump" || fail "run $i: zond dump"
	for want in 'function main calls=1' 'function work calls=1' 'lost_seccomp_calls 1001'; do
		grep -qx "$want" "run$i.dump" || fail "run $i: no '$want': $(grep -e '^function' -e '^lost' "run$i.dump" | tr '\n' ' ')"
	done
	! grep -q '^lost_thread_calls' "run$i.dump" || fail "run $i: $(grep '^lost_thread' "run$i.dump")"
	grep -q 'after the program put itself under seccomp' "run$i.err" ||
		fail "run $i: no line naming the cause: $(cat "run$i.err")"
done
exit $status
