#!/bin/sh
# sandboxed.sh - zond inject -p on a process under seccomp (a filter that
# kills at memfd_create, a hardened daemon's): refused with one line before
# the process is touched, as zond cannot tell which of the system calls it
# runs inside the process the filter allows; the process runs on, its code
# the file's, its output and status a plain run's.  Also when only one of
# its threads is under the filter.  Before, zond ran memfd_create inside it:
# killed by SIGSYS, and zond said it "ended while zond inject held it" (QA
# s16 X2 F7).
#
# Usage: sandboxed.sh ZOND IDLE WORKDIR
set -u
zond=$1 prog=$2 dir=$3/sandboxed
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
. "$(dirname "$0")/lib.sh"

touch plain.go
"$prog" plain plain.go 1000 >plain.out || fail "plain run: status $?"

for mode in filter thread; do
	rm -f go
	"$prog" $mode go 1000 >$mode.out &
	pid=$!
	# the filter is in place when a thread's status shows it
	i=0
	until cat /proc/$pid/task/*/status 2>/dev/null | grep -q '^Seccomp:[[:space:]]*2' ||
		[ $i -ge 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	tid=$(grep -l '^Seccomp:[[:space:]]*2' /proc/$pid/task/*/status | head -1 | cut -d/ -f5)
	err=$("$zond" inject -q -p $pid -f work --duration 0.2 -o $mode.db 2>&1)
	rc=$?
	want="zond inject: process $pid: thread $tid runs under seccomp (a filter): zond inject -p would run system calls inside it that may kill it; not attached (the process untouched)"
	[ $rc -eq 1 ] && [ "$err" = "$want" ] || fail "$mode: status $rc, '$err'"
	kill -0 $pid 2>/dev/null || fail "$mode: the process died when zond attached"
	[ "$(code $pid "$prog")" = same ] || fail "$mode: work is patched"
	touch go
	wait $pid
	rc=$?
	[ $rc -eq 0 ] || fail "$mode: status $rc"
	diff -u plain.out $mode.out || fail "$mode: output differs from a plain run's"
done
exit $status
