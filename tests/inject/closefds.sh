#!/bin/sh
# closefds.sh - zond inject --event task-clock on a program that closes its
# descriptors as daemons do (closefds.c: close_range(3, ~0U, 0),
# closefrom(3), syscall(SYS_close_range), close() and syscall(SYS_close)
# of every fd /proc/self/fd lists): its own fds closed as plainly, every
# close it makes succeeds, zond's counters stay open, so work()'s time
# after the closes is about the program's own CPU time around it (at
# least half), no counter lost.  A close by a syscall instruction of the
# program's own (no C library function) cannot be kept from the counter:
# the 200 later calls are counted untimed, and the run says so (meta
# inject_counters_lost 1, inject_calls_untimed_no_clock 200, zond's line).  Before, the closes took the counters
# with them and every later call read 0 (200 calls of 40 us: 3-70 us),
# silently (QA s14 V2 F10).
#
# Usage: closefds.sh ZOND CLOSEFDS WORKDIR
set -u
zond=$1 prog=$2 dir=$3/closefds
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
. "$(dirname "$0")/lib.sh"

if ! "$zond" inject -q -o probe.db --event task-clock -f work -- "$prog" none >/dev/null 2>probe.err; then
	grep -q 'perf_event_open' probe.err && { echo "SKIP: $(cat probe.err)"; exit 77; }
	fail "--event task-clock: $(cat probe.err)"
fi
for how in range from sysrange proc sysclose; do
	"$prog" $how >"$how.plain" || fail "$how: closefds.c fails without zond"
	"$zond" inject -q -o "$how.db" --event task-clock -f work -- "$prog" $how >"$how.out" 2>"$how.err"
	rc=$?
	[ $rc -eq 0 ] || fail "$how: exit status $rc under zond inject: $(cat "$how.err")"
	grep -v '^cpu-us' "$how.plain" >"$how.want"
	grep -v '^cpu-us' "$how.out" | diff -u "$how.want" - || fail "$how: output differs"
	"$zond" dump -i "$how.db" >"$how.dump" || fail "$how: zond dump"
	compare_counts "$how.out" "$how.dump"
	"$zond" export -f json -i "$how.db" >"$how.json" || fail "$how: zond export"
	python3 - "$how.out" "$how.json" <<'PY' || fail "$how: work's time is not the program's"
import json, sys
cpu_ns = 1000 * int([l.split()[1] for l in open(sys.argv[1]) if l.startswith("cpu-us")][0])
d = json.load(open(sys.argv[2]))
for k in ("inject_counters_lost", "inject_calls_untimed_no_clock", "inject_threads_without_counter"):
    assert k not in d["run"]["meta"], (k, d["run"]["meta"][k])
ev = d["events"][0]["name"]
work = [n for n in d["nodes"] if n["name"] == "work"][0]
incl = work["incl"][ev] if isinstance(work["incl"], dict) else work["incl"]
# 201 calls: the first before the closes, 200 in the program's own interval
assert incl >= cpu_ns / 2, "work %s ns, the program's own CPU time in its loop %d ns" % (incl, cpu_ns)
PY
done

"$prog" asm >asm.plain || fail "asm: closefds.c fails without zond"
"$zond" inject -q -o asm.db --event task-clock -f work -- "$prog" asm >asm.out 2>asm.err
rc=$?
[ $rc -eq 0 ] || fail "asm: exit status $rc under zond inject: $(cat asm.err)"
grep -v '^cpu-us' asm.plain | diff -u - "$(grep -v '^cpu-us' asm.out >asm.got; echo asm.got)" ||
	fail "asm: output differs"
"$zond" dump -i asm.db >asm.dump && compare_counts asm.out asm.dump
"$zond" export -f json -i asm.db >asm.json || fail "asm: zond export"
python3 - asm.json <<'PY' || fail "asm: the lost counter is not said"
import json, sys
m = json.load(open(sys.argv[1]))["run"]["meta"]
got = (m.get("inject_counters_lost"), m.get("inject_calls_untimed_no_clock"))
assert got == ("1", "200"), got
PY
grep -q 'closed the task-clock counter of 1 thread ' asm.err || fail "asm: no line: $(cat asm.err)"
exit $status
