#!/bin/sh
# zleader.sh - zond inject -p on a process whose main thread has exited
# (pthread_exit) while its other threads run on (zlwork.c): attached through
# a live thread (the exited main thread, a zombie until the process ends,
# left out), measured for 0.3 s and released, twice (the second with
# --event task-clock); the program then finishes with the output and status
# of a plain run, and zond counted calls of work(), never more than the
# program.  Before, zond refused the process (QA s11 F6: "no such process
# (or not ours)", then "its main thread has exited").
#
# Usage: zleader.sh ZOND ZLWORK WORKDIR
set -u
zond=$1 prog=$2 dir=$3/zleader
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
. "$(dirname "$0")/lib.sh"

echo go | "$prog" >plain.out 2>/dev/null
plain=$?
mkfifo go
"$prog" <go >run.out 2>run.err &
pid=$!
exec 3>go
i=0
until grep -q ready run.err && grep -q '^State:[[:space:]]*Z' /proc/$pid/status; do
	kill -0 $pid 2>/dev/null && [ $i -lt 400 ] || { echo "FAIL: the program is not ready"; exit 1; }
	sleep 0.05
	i=$((i + 1))
done
"$zond" inject -q -o z.db -f work -p $pid --duration 0.3 2>z.err || fail "zond inject -p: status $?: $(cat z.err)"
"$zond" inject -q -o ze.db --event task-clock -f work -p $pid --duration 0.3 2>ze.err ||
	grep -q perf_event ze.err || fail "zond inject -p --event task-clock: status $?: $(cat ze.err)"
echo go >&3
exec 3>&-
wait $pid
rc=$?
[ $rc -eq $plain ] || fail "exit status $rc after zond inject -p, $plain without"
cmp -s plain.out run.out || fail "output $(cat run.out), plain $(cat plain.out)"
own=$(sed -n 's/^count work //p' run.err)
for db in z.db ze.db; do
	[ -f $db ] || continue
	got=$("$zond" dump -i $db | sed -n 's/^function work calls=//p')
	[ -n "$got" ] && [ "$got" -gt 0 ] && [ "$got" -le "$own" ] ||
		fail "$db: zond counted '$got' calls of work, the program $own"
	n=$("$zond" dump -i $db | sed -n 's/^threads //p')
	[ "$n" = 2 ] || fail "$db: $n threads measured, not the 2 workers"
done
exit $status
