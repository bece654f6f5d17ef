#!/bin/sh
# Sampled time (the default) of threads shorter than the sample period
# (progs/shortthr.c: 400 threads of ~0.3 ms, 1 ms periods): each thread's
# first period is random, so burn()'s samples are as many as its CPU time
# says, within their statistical spread (here the truth is ~120 samples,
# one sigma ~11; asked: at least half, and at most twice).  With whole first
# periods no short thread was ever sampled: ~6 samples, 95% of the CPU
# missing.  With the perf_event task clock only: a timer fires at ticks.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

"$ZOND" record -q -o st.db -- "$SHORTTHR" 400 >out.txt 2>err.txt || fail "record: $(cat err.txt)"
if ! "$ZOND" report -i st.db | grep -q "(perf_event task-clock)"; then
	echo "SKIP: no perf_event task clock here (perf_event_paranoid > 2?)"
	exit 77
fi
truth=$(cat out.txt) # us
got=$("$ZOND" export -f json -i st.db | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sum(n["self"].get("cpu-time", 0) for n in d["nodes"] if n["name"] == "burn") // 1000)')
check_eq "burn: ${got} us sampled of ${truth} us within [1/2, 2]" \
	"$([ "$got" -ge $((truth / 2)) ] && [ "$got" -le $((truth * 2)) ] && echo yes)" yes
finish
