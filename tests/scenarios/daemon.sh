#!/bin/sh
# daemon.sh ZOND COLLECTOR PROG WORKDIR [collector options]
#
# A program that daemon()s: zond waits for the daemon, which outlives its
# parent, and the run has what it did: its scen_probe calls exactly as many
# as it counted itself, plus the
# parent's one, in a thread of its own process (not written into its
# parent's file), and the parent's output and status are a plain run's.
set -u
zond=$1 collector=$2 prog=$3 work=$4
shift 4
rm -rf "$work"
mkdir -p "$work"
rc=0
"$prog" "$work/plain.note" >"$work/plain.out" 2>&1
plain=$?
# the plain daemon ends on its own: wait (bounded) for its note
i=0
while [ ! -s "$work/plain.note" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
"$zond" "$collector" -q -o "$work/db" "$@" -- "$prog" "$work/zond.note" >"$work/zond.out" \
	2>"$work/zond.err"
status=$?
[ "$status" = "$plain" ] || { echo "status $status under zond, $plain alone"; rc=1; }
cmp -s "$work/plain.out" "$work/zond.out" || { echo "output differs:"; diff "$work/plain.out" "$work/zond.out"; rc=1; }
# zond has waited: the daemon's note is there when zond returns
note=$(cat "$work/zond.note" 2>/dev/null)
[ "$note" = "$(cat "$work/plain.note")" ] || { echo "daemon note '$note' under zond"; rc=1; }
calls=${note##* }
"$zond" dump -i "$work/db" >"$work/dump" 2>&1
name=scen_probe
grep -qx "function $name calls=$((calls + 1))" "$work/dump" && grep -qx "threads 2" "$work/dump" ||
	{ echo "expected 2 threads, function $name calls=$((calls + 1)) (the daemon's own count + 1) in:"
	  cat "$work/dump"; rc=1; }
grep -q "waiting for the processes" "$work/zond.err" ||
	{ echo "zond did not say it waits for the daemon:"; cat "$work/zond.err"; rc=1; }
exit $rc
