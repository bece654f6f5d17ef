#!/bin/sh
# Sampled time at a short --sample-period (QA s13 T F3; progs/shortperiod.c:
# work(), a loop without calls, beside many() calling tiny() millions of
# times).  Each sample costs the thread microseconds of its own CPU time (the
# signal, the handler, the task clock's rearming), which the sampler counts:
# at 10 us the periods were mostly zond's and ended in the program all the
# same, so every sampled time grew ~4x while the calls' hook time did not
# (tiny 9% against 19-24% at 1 ms).  The samples zond's handling filled are
# zond's now (run meta samples_sampling): some at 10 us, next to none at
# 1 ms, and tiny's share against work's and the total CPU time stay near the
# 1 ms run's (wide bounds, the best of three tries: statistics).
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

# the reference at 1 ms with 20x the work (some 700 samples), made again each try: its
# hook time is measured at start-up, which a loaded machine moves
reference() {
	"$ZOND" record -q -o long$1.db -- "$SHORTPERIOD" 400000000 >/dev/null 2>err.txt ||
		fail "record: $(cat err.txt)"
	set -- $(figures long$1.db)
	lsamples=$1 lsampling=$2 lwork=$3 ltiny=$4 ltotal=$5
}
reference 0
if ! "$ZOND" report -i long0.db | grep -q "(perf_event task-clock)"; then
	echo "SKIP: no perf_event task clock here (perf_event_paranoid > 2?)"
	exit 77
fi
check_eq "1 ms: samples of zond's sampling ($lsampling of $lsamples) at most 5%" \
	"$([ $((lsampling * 20)) -le "$lsamples" ] && echo yes)" yes

ok_share=no ok_total=no ok_count=no
for try in 1 2 3; do
	[ $try -gt 1 ] && reference $try
	"$ZOND" record -q --sample-period 10000 -o short$try.db -- "$SHORTPERIOD" 20000000 \
		>/dev/null 2>err.txt || fail "record 10 us: $(cat err.txt)"
	set -- $(figures short$try.db)
	echo "try $try: 10 us: samples $1, zond's sampling $2, work $3 ns, tiny $4 ns, total $5 ns;" \
		"1 ms (20x the work): work $lwork, tiny $ltiny, total $ltotal"
	[ "$2" -gt 0 ] && ok_count=yes
	# tiny/work at 10 us over tiny/work at 1 ms, in [0.6, 1.67] (was 0.43-0.62: the best of
	# three may pass it, the count and the total not; now 0.65-0.9, the signal's return after
	# the handler still the program's)
	r=$(awk -v a="$4" -v b="$3" -v c="$ltiny" -v d="$lwork" 'BEGIN{r=(a/b)/(c/d); print (r>=0.6 && r<=1.67) ? "yes" : "no"}')
	[ "$r" = yes ] && ok_share=yes
	# the total CPU time against a twentieth of the 1 ms run's, in [0.5, 2] (was 3.9-5.5)
	r=$(awk -v a="$5" -v b="$ltotal" 'BEGIN{r=a/(b/20); print (r>=0.5 && r<=2) ? "yes" : "no"}')
	[ "$r" = yes ] && ok_total=yes
	[ $ok_count$ok_share$ok_total = yesyesyes ] && break
done
check_eq "10 us: some samples are zond's sampling's" $ok_count yes
check_eq "10 us: tiny's share against work's near the 1 ms run's" $ok_share yes
check_eq "10 us: the total CPU time near the 1 ms run's (per unit of work)" $ok_total yes
# the header says so, and warns
"$ZOND" report -i short1.db >head.txt
grep -q "in zond's sampling" head.txt && pass || fail "report: no 'in zond's sampling' on its samples line"
grep -q "^warning: *zond's sampling took" head.txt && pass || fail "report: no warning of zond's sampling"
"$ZOND" report -i long0.db | grep -q "^warning: *zond's sampling" && fail "report: 1 ms warned of zond's sampling" || pass
finish
