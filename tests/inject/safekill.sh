#!/bin/sh
# safekill.sh - zond inject --safe-point -p killed (SIGKILL: the OOM killer, a
# closed container) while it asks the process to park: the service idle, no
# thread at the safe point (zond says so), the park flag set.  Its threads
# must see zond gone and go on: the 1000 requests that come after are all
# served, the output and status a plain run's.  Before, an attached
# process's waiting thread looked only at its parent (getppid, a started
# program's test) and spun at the safe point for ever (QA s16 X2 F8).
#
# Usage: safekill.sh ZOND IDLE WORKDIR
set -u
zond=$1 prog=$2 dir=$3/safekill
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
. "$(dirname "$0")/lib.sh"

touch plain.go
"$prog" plain plain.go 1000 >plain.out || fail "plain run: status $?"

# wait_for N CMD...: CMD true within N tenths of a second
wait_for() {
	n=$1
	shift
	i=0
	until "$@" || [ $i -ge "$n" ]; do
		sleep 0.1
		i=$((i + 1))
	done
	"$@"
}

"$prog" plain go 1000 >svc.out &
pid=$!
"$zond" inject -p $pid --safe-point tick --period 0.2 --per-run 1 -f work -f work2 -o z.db \
	2>z.err &
zpid=$!
wait_for 300 grep -q "has not reached the safe point tick" z.err ||
	fail "zond did not wait at the safe point: $(cat z.err)"
kill -KILL $zpid
wait $zpid 2>/dev/null
touch go
# the service ends by itself once served (a hung one is killed after 30 s)
wait_for 300 sh -c "! kill -0 $pid 2>/dev/null || grep -q '^State:.*Z' /proc/$pid/status" ||
	{ fail "the service hangs after zond was killed: $(grep -h State /proc/$pid/status)"; \
	  kill -KILL $pid; }
wait $pid
rc=$?
[ $rc -eq 0 ] || fail "service status $rc"
diff -u plain.out svc.out || fail "the service's requests differ from a plain run's"
exit $status
