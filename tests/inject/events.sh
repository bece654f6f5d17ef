#!/bin/sh
# events.sh - zond inject --event with software events, read() by each
# thread from a perf_event fd it opens at its first measured call, on a
# program that counts the same events itself (events.c, getrusage):
# page faults of touch() per thread exactly as the program counts them
# inside the function (and as it makes them: 5 + 7 + 11 fresh pages on the
# main thread, 13 on the worker); the context switches of nap() at least
# the program's own count inside it and at most its thread's whole count;
# task-clock in ns within the run's duration.  The program's output and
# status are as without zond, its open() gets the fd it gets without zond,
# and zond's counters are one fd per measured thread, above it, close-on-exec,
# each with its perf_event page mapped.
#
# Usage: events.sh ZOND EVENTS WORKDIR
set -u
zond=$1 prog=$2 dir=$3/events
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
status=0
fail() { echo "FAIL: $*"; status=1; }

# perf_event_open may be refused here (perf_event_paranoid 3, a container's seccomp filter)
if ! "$zond" inject -q -o probe.db --event page-faults -f touch -- "$prog" >/dev/null 2>probe.err &&
	grep -q 'perf_event_open does not count it' probe.err; then
	echo "SKIP: $(cat probe.err)"
	exit 77
fi

"$prog" >plain.out
plain=$?
[ $plain -eq 0 ] || fail "the program failed by itself ($plain)"
# what must be the same under zond: the faults and the fd open() gets
grep -E '^(faults|open-fd) ' plain.out >plain.same

"$zond" inject -q -o pf.db --event page-faults -f touch -f nap -f worker -- "$prog" >pf.out
rc=$?
[ $rc -eq $plain ] || fail "page-faults: exit status $rc, $plain without zond"
grep -E '^(faults|open-fd) ' pf.out | diff -u plain.same - || fail "page-faults: output differs"
grep -qx 'faults main 23' pf.out && grep -qx 'faults worker 13' pf.out &&
	grep -qx 'faults child 17' pf.out ||
	fail "the program did not make the faults it should: $(grep faults pf.out | tr '\n' ' ')"
"$zond" export -f json -i pf.db >pf.json || fail "export"
python3 - pf.out pf.json <<'PY' || fail "page-faults: zond's counts are not the program's"
import json, sys
out = dict(l.split()[1:3] for l in open(sys.argv[1]) if l.startswith("faults "))
d = json.load(open(sys.argv[2]))
assert [e["name"] for e in d["events"]] == ["page-faults"], d["events"]
touch = [n["id"] for n in d["nodes"] if n["name"] == "touch"][0]
seen = {}
for t in d["threads"]:
    who = ("child" if t["pid"] != d["run"]["pid"] else
           "main" if t["tid"] == d["run"]["pid"] else "worker")
    if who == "child" and t["tid"] != t["pid"]:
        sys.exit("the forked child's thread %d/%d: not its process's main thread" % (t["pid"], t["tid"]))
    for n in t["nodes"]:
        if n["id"] == touch:
            seen[who] = (n["calls"], n["incl"]["page-faults"], n["self"]["page-faults"])
# a forked child is a thread of its own (its process's id), counting on a
# counter of its own: its 17 faults, not its parent's (which makes none
# while it waits)
want = {"main": (4, int(out["main"]), int(out["main"])),
        "worker": (2, int(out["worker"]), int(out["worker"])),
        "child": (2, int(out["child"]), int(out["child"]))}
if seen != want:
    sys.exit("touch per thread (calls, incl, self): zond %s, the program %s" % (seen, want))
PY
# zond's fds: one per measured thread (main, worker), above the program's, close-on-exec
grep '^extra-fd ' plain.out >plain.fds
grep '^extra-fd ' pf.out | grep -vxF -f plain.fds >zond.fds
[ "$(wc -l <zond.fds)" -eq 2 ] || fail "not 2 counter fds: $(cat zond.fds | tr '\n' ' ')"
own=$(sed -n 's/^open-fd //p' pf.out)
while read -r _ fd _ cloexec; do
	[ "$fd" -gt "$own" ] || fail "counter fd $fd is not above the program's $own"
	[ "$cloexec" -eq 1 ] || fail "counter fd $fd is not close-on-exec"
done <zond.fds

# and each its perf_event page mapped (rdpmc reads it where the kernel allows; not here: no PMU)
grep -qx 'perf-maps 0' plain.out || fail "perf_event pages without zond: $(grep perf-maps plain.out)"
grep -qx 'perf-maps 2' pf.out || fail "not 2 perf_event pages: $(grep perf-maps pf.out)"

"$zond" inject -q -o cs.db --event context-switches -f nap -- "$prog" >cs.out
rc=$?
[ $rc -eq $plain ] || fail "context-switches: exit status $rc"
in_nap=$(sed -n 's/^switches-in-nap //p' cs.out)
whole=$(sed -n 's/^switches-thread //p' cs.out)
got=$("$zond" dump -i cs.db --times | sed -n 's/^function nap calls=2 .*total.context-switches=//p')
[ -n "$got" ] || fail "context-switches: nap not measured twice: $("$zond" dump -i cs.db --times)"
[ "$in_nap" -ge 5 ] || fail "the program's 5 sleeps made $in_nap switches"
# perf's count of the thread's switches and getrusage's once differed by one
# (4 against 5) on a loaded machine, the payload's compensation 0: not
# explained yet (doc/inject.md); one switch of slack below the program's count
[ -n "$got" ] && { [ "$got" -ge $((in_nap - 1)) ] && [ "$got" -le "$whole" ]; } ||
	fail "context-switches of nap: zond $got, the program $in_nap inside it, $whole in its thread"

"$zond" inject -q -o tc.db --event task-clock -f nap -f touch -- "$prog" >/dev/null ||
	fail "task-clock: zond inject failed"
"$zond" export -f json -i tc.db | python3 -c '
import json, sys
d = json.load(sys.stdin)
# the counter, and what the compensation took out of it in the same unit
assert [(e["name"], e["unit"]) for e in d["events"]] == [("task-clock", "ns"), ("probe-cost", "ns")], d["events"]
nap = [n for n in d["nodes"] if n["name"] == "nap"][0]
if not 0 < nap["incl"]["task-clock"] <= d["run"]["duration_ns"]:
	sys.exit("nap: %d ns of task-clock, the run took %d ns" % (nap["incl"]["task-clock"], d["run"]["duration_ns"]))
' || fail "task-clock of nap is not within the run's time"
exit $status
