#!/bin/sh
# Sampled time at a short --sample-period (QA s13 T F3; progs/shortperiod.c:
# work(), a loop without calls, beside many() calling tiny() millions of
# times).  Each sample costs the thread microseconds of its own CPU time (the
# signal, the handler, the task clock's rearming), which the sampler counts:
# at 10 us the periods were mostly zond's and ended in the program all the
# same, so every sampled time grew ~4x while the calls' hook time did not
# (tiny 9% against 19-24% at 1 ms).  The samples zond's handling filled are
# zond's now (run meta samples_sampling): some at 10 us, next to none at
# 1 ms (a handler of microseconds fills no millisecond, at any speed), and
# the report says so.  How near tiny's share and the total CPU time at 10 us
# stay to the 1 ms run's is statistics, bench/shortperiod's (it was checked
# here in the best of three tries, s15).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

figures() { # DB: samples samples_sampling work_ns tiny_ns total_ns
	"$ZOND" export -f json -i "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
m = d["run"]["meta"]
m = dict((x["key"], x["value"]) for x in m) if isinstance(m, list) else m
self = lambda f: sum(n["self"].get("cpu-time", 0) for n in d["nodes"] if n["name"] == f)
tot = sum(n["self"].get("cpu-time", 0) for n in d["nodes"])
print(m.get("samples", 0), m.get("samples_sampling", 0), self("work"), self("tiny"), tot)'
}

# the reference at 1 ms with 20x the work (some 700 samples)
"$ZOND" record -q -o long0.db -- "$SHORTPERIOD" 400000000 >/dev/null 2>err.txt ||
	fail "record: $(cat err.txt)"
set -- $(figures long0.db)
lsamples=$1 lsampling=$2
if ! "$ZOND" report -i long0.db | grep -q "(perf_event task-clock)"; then
	echo "SKIP: no perf_event task clock here (perf_event_paranoid > 2?)"
	exit 77
fi
check_eq "1 ms: samples of zond's sampling ($lsampling of $lsamples) at most 5%" \
	"$([ $((lsampling * 20)) -le "$lsamples" ] && echo yes)" yes

# an eightieth of the 1 ms run's work at 10 us: thousands of samples, each a timer set through the
# hypervisor on a VM (40 s of a loaded machine at 20000000)
"$ZOND" record -q --sample-period 10000 -o short1.db -- "$SHORTPERIOD" 5000000 \
	>/dev/null 2>err.txt || fail "record 10 us: $(cat err.txt)"
set -- $(figures short1.db)
echo "10 us: samples $1, zond's sampling $2, work $3 ns, tiny $4 ns, total $5 ns"
check_eq "10 us: some samples are zond's sampling's" "$([ "$2" -gt 0 ] && echo yes)" yes
# the header says so, and warns
"$ZOND" report -i short1.db >head.txt
grep -q "in zond's sampling" head.txt && pass || fail "report: no 'in zond's sampling' on its samples line"
grep -q "^warning: *zond's sampling took" head.txt && pass || fail "report: no warning of zond's sampling"
"$ZOND" report -i long0.db | grep -q "^warning: *zond's sampling" && fail "report: 1 ms warned of zond's sampling" || pass
finish
