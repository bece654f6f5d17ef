#!/bin/sh
# eventfds.sh - zond inject --event task-clock under a small descriptor limit (ulimit -n 16,
# soft only, and soft and hard where the process may raise the hard one, CAP_SYS_RESOURCE):
# six threads measured, ended and joined, then the program's eight
# open()s and an opendir get the numbers they get alone.  Before, each thread's counter took
# the lowest free number and stayed open after the thread ended: open() gave 3 4 5 6 7 14 15
# -1 and opendir failed (QA s13 U F8).  Skipped where perf_event_open is refused.
#
# Usage: eventfds.sh ZOND EVENTFDS WORKDIR
set -u
zond=$1 prog=$2 dir=$3/eventfds
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
status=0
fail() { echo "FAIL: $*"; status=1; }
if ! "$zond" inject -q -o probe.db --event task-clock -f work -- "$prog" >/dev/null 2>probe.err &&
	grep -q 'perf_event_open does not count it' probe.err; then
	echo "SKIP: $(cat probe.err)"
	exit 77
fi
# limited HOW CMD...: CMD under ulimit HOW 16 with the descriptors above 2 closed
# (bash: sh has no two-digit descriptors in redirections)
limited() {
	bash -c 'ulimit $0 16 || exit 99
		exec 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&- 10>&- 11>&- 12>&- 13>&- 14>&- 15>&-
		exec "$@"' "$@"
}
for how in -Sn -n; do
	# a hard limit of 16 the process may not raise (no CAP_SYS_RESOURCE) leaves no room
	# above: the counters take the top numbers, and the ended threads' are still open
	[ $how = -n ] && ! (ulimit -n 16 && ulimit -Hn 17) 2>/dev/null && continue
	limited $how "$prog" > plain.out
	rc=$?
	[ $rc = 99 ] && continue
	[ $rc = 0 ] || { fail "ulimit $how 16: the program alone: exit $rc: $(cat plain.out)"; continue; }
	rm -f z.db
	limited $how "$zond" inject -o z.db --event task-clock -f work -- "$prog" > z.out 2> z.err
	rc=$?
	[ $rc = 0 ] || fail "ulimit $how 16: exit $rc under zond: $(cat z.out z.err)"
	diff plain.out z.out > /dev/null ||
		fail "ulimit $how 16: alone $(head -1 plain.out), under zond $(head -2 z.out | tr '\n' ' ')"
	grep -q "run .* stored" z.err || fail "ulimit $how 16: no run stored: $(cat z.err)"
done
[ $status = 0 ] && echo ok
exit $status
