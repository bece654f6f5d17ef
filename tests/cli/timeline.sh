#!/bin/sh
# The timeline (record --timeline, libcalls --timeline) of a program whose
# calls come in a known order (progs/phases.c: a worker thread calls w() 3
# times and is joined; then mark(), a() A times, mark(), b() B times, each
# calling leaf() twice and getppid() once, mark()).  Checked through Python's
# json module (tests/export/chrome_check.py): every call of each thread, in
# order and nested, as the program makes them; a full timeline keeping its
# oldest or newest events, with the number dropped; --time windows taken
# from the program's own marks, whose calls are known; the errors.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 is not installed"
	exit 77
fi

# One line per call: M or W (main or worker thread), depth, name, cut flags.
calls() {
	python3 "$CHROME_CHECK" "$1" >check.txt || return 1
	awk '$1 ~ /\// { split($1, id, "/"); printf "%s %s %s%s%s|", id[1] == id[2] ? "M" : "W", $2, $3, $6 ? " " $6 : "", $7 ? " " $7 : "" }' check.txt
}
# A's and B's calls, as the program makes them (no cut).
expected() {
	printf 'M 0 main|M 1 mark|'
	i=0; while [ $i -lt 5 ]; do printf 'M 1 a|'; i=$((i + 1)); done
	printf 'M 1 mark|'
	i=0; while [ $i -lt 7 ]; do printf 'M 1 b|M 2 leaf|M 2 leaf|'; i=$((i + 1)); done
	printf 'M 1 mark|W 0 worker|W 1 w|W 1 w|W 1 w|'
}

"$ZOND" record --timeline -q -o rec.db -- "$PHASES" 5 7 >out.txt || fail "record --timeline"
check_eq "the program's own counts" "$(cat out.txt)" "a 5 b 7 leaf 14 mark 3 w 3 getppid 7"
"$ZOND" export -f chrome -i rec.db -o rec.json || fail "export -f chrome"
check_eq "record: every call, in order and nested" "$(calls rec.json)" "$(expected)"
check_eq "record: events per thread" "$(grep '^events' check.txt | cut -d' ' -f3 | tr '\n' ' ')" "30 4 "

# --time: the window from the end of the first mark() to the start of the
# second holds main (cut at both ends) and the five calls of a(); 0~ everything.
bound() { awk -v n="$1" -v end="$2" '$3 == "mark" && ++k == n { t = end ? $4 + $5 : $4; printf "%.0f", t * 1000 }' check.txt; }
from=$(bound 1 1) to=$(bound 2 0)
"$ZOND" dump -i rec.db --time "${from}ns~${to}ns" >win.txt || fail "dump --time"
check_eq "window between marks: functions" "$(grep '^function' win.txt | tr '\n' '|')" \
	"function a calls=5|function main calls=1|"
check_eq "window between marks: edges" "$(grep '^call' win.txt | tr '\n' '|')" \
	"call - -> main calls=1|call main -> a calls=5|"
"$ZOND" report -i rec.db --time "${from}ns~${to}ns" >report.txt || fail "report --time"
check_eq "report names its window" "$(grep -c "^window: *${from}ns~${to}ns of the timeline" report.txt)" 1
"$ZOND" dump -i rec.db --time "0~" >all.txt || fail "dump --time 0~"
"$ZOND" dump -i rec.db >run.txt || fail "dump"
check_eq "window 0~: the run's calls" "$(grep -v '^threads' all.txt)" "$(grep -v '^threads' run.txt)"
"$ZOND" export -f chrome -i rec.db --time "${from}ns~${to}ns" -o win.json || fail "export --time"
check_eq "chrome of a window: its calls, main cut at both ends" "$(calls win.json)" \
	"M 0 main cut-start cut-end|M 1 a|M 1 a|M 1 a|M 1 a|M 1 a|"

# A block (zond.h) is on the timeline as a function is: a window's stacks keep
# it (they were main;b;leaf, a stack that never happened), sampled and exact.
for time in sampled exact; do
	"$ZOND" record --time $time --timeline -q -o blk.db -- "$PHASES" 5 7 block >/dev/null ||
		fail "record --timeline, a block, $time"
	"$ZOND" export -f chrome -i blk.db -o blk.json || fail "export blk"
	python3 "$CHROME_CHECK" blk.json >check.txt || fail "blk: chrome_check"
	from=$(bound 2 1) to=$(bound 3 0)
	"$ZOND" dump -i blk.db --time "${from}ns~${to}ns" >win.txt || fail "dump --time, a block"
	check_eq "a window of a block, $time: its stacks" "$(grep '^context' win.txt | tr '\n' '|')" \
		"context main calls=1|context main;bs calls=1|context main;bs;b calls=7|context main;bs;b;leaf calls=14|"
done

# A full timeline: 30 calls on the main thread are 60 events.  Keeping the
# oldest 20: the first 20 events, the 40 others dropped; calls still open at
# the 20th event end there, cut.
"$ZOND" record --timeline-size 20 -q -o old.db -- "$PHASES" 5 7 >/dev/null || fail "record --timeline-size"
"$ZOND" export -f chrome -i old.db -o old.json || fail "export old"
check_eq "keep oldest: the first 20 events" "$(calls old.json)" \
	"M 0 main cut-end|M 1 mark|M 1 a|M 1 a|M 1 a|M 1 a|M 1 a|M 1 mark|M 1 b cut-end|M 2 leaf|M 2 leaf|\
W 0 worker|W 1 w|W 1 w|W 1 w|"
"$ZOND" report -i old.db >old.txt
check_eq "keep oldest: dropped counted" "$(grep -c 'timeline_dropped = 40 events (the timeline keeps the oldest)' old.txt)" 1
# Keeping the newest 20: the last 20 events of 60, as many as the oldest (the
# ring has one slot more, the one written next, never read: it may be half
# written): from the entry of the 5th b()'s first leaf() on, its b() and main cut.
"$ZOND" record --timeline-size 20 --timeline-keep newest -q -o new.db -- "$PHASES" 5 7 >/dev/null ||
	fail "record --timeline-keep newest"
"$ZOND" export -f chrome -i new.db -o new.json || fail "export new"
check_eq "keep newest: the last 20 events" "$(calls new.json)" \
	"M 0 main cut-start|M 1 b cut-start|M 2 leaf|M 2 leaf|M 1 b|M 2 leaf|M 2 leaf|\
M 1 b|M 2 leaf|M 2 leaf|M 1 mark|\
W 0 worker|W 1 w|W 1 w|W 1 w|"
"$ZOND" report -i new.db >new.txt
check_eq "keep newest: dropped counted" "$(grep -c 'timeline_dropped = 40 events (the timeline keeps the newest)' new.txt)" 1

# A crash keeps the timeline up to it: killed by SIGABRT after the second
# mark(), main still open (cut where the thread was last seen).
"$ZOND" record --timeline -q -o crash.db -- "$PHASES" 5 7 abort >/dev/null 2>&1
check_eq "crash: zond ends as the program did" "$?" 134
"$ZOND" export -f chrome -i crash.db -o crash.json || fail "export crash"
check_eq "crash: every call up to the crash" "$(calls crash.json)" \
	"M 0 main cut-end|M 1 mark|M 1 a|M 1 a|M 1 a|M 1 a|M 1 a|M 1 mark|W 0 worker|W 1 w|W 1 w|W 1 w|"

# libcalls: the library calls, getppid() once per b()
"$ZOND" libcalls --timeline -q -o lib.db -- "$PHASES" 5 7 >/dev/null || fail "libcalls --timeline"
"$ZOND" export -f chrome -i lib.db -o lib.json || fail "export lib"
python3 "$CHROME_CHECK" lib.json >lib.txt || fail "libcalls: chrome_check"
check_eq "libcalls: getppid's calls" "$(awk '$3 == "getppid"' lib.txt | wc -l)" 7

# errors: one line each
"$ZOND" record -q -o plain.db -- "$PHASES" 1 1 >/dev/null || fail "record"
check_error "--time without a timeline" "run 1 has no timeline: record it with --timeline to use --time" \
	"$ZOND" report -i plain.db --time 0~1ms
# threads that end while new ones take their slots (--threads 4, 12 threads two at a time):
# their timelines are not kept, and zond says so with the option that keeps them, at the
# end of the run and in the report (QA s15 W1 F2: the header named a full ring); as many
# slots as threads keep them all
"$ZOND" record -q --threads 4 --timeline -o churn.db -- "$SHORTTHR" 12 >/dev/null 2>err.txt ||
	fail "churn: $(cat err.txt)"
grep -q "^zond record: warning: timeline_ended_threads = [1-9][0-9]*: .*(raise --threads to as many threads as the run starts)$" err.txt ||
	fail "churn: no warning at the end of the run: $(cat err.txt)"
"$ZOND" report -i churn.db >churn.txt || fail "churn: report"
grep -q "timeline_dropped = [0-9]* events (all [0-9]* of threads that ended with their slots taken by new threads, their timelines not kept: --threads as many as the run starts keeps them)" churn.txt ||
	fail "churn: the header: $(grep timeline_dropped churn.txt)"
"$ZOND" record -q --threads 16 --timeline -o churn16.db -- "$SHORTTHR" 12 >/dev/null 2>err.txt ||
	fail "churn16: $(cat err.txt)"
check_eq "churn, 16 slots: no warning" "$(cat err.txt)" ""
check_eq "churn, 16 slots: every burn() on the timeline" "$("$ZOND" export -f chrome -i churn16.db |
	python3 -c 'import json, sys
print(sum(1 for e in json.load(sys.stdin)["traceEvents"] if e.get("ph") == "X" and e["name"] == "burn"))')" \
	"$("$ZOND" dump -i churn16.db | sed -n 's/^function burn calls=//p')"
check_error "chrome without a timeline" "run 1 has no timeline: record it with --timeline" \
	"$ZOND" export -f chrome -i plain.db
check_error "a bad window" "--time wants FROM~TO, ~TO or FROM~" "$ZOND" report -i rec.db --time 5ms
check_error "a bad unit" "--time wants FROM~TO" "$ZOND" graph -i rec.db --time 1h~2h
check_error "an empty window" "the window ends before it starts" "$ZOND" report -i rec.db --time 2ms~1ms
check_error "timeline without frames" "--timeline needs the calls' frames: not with --no-time" \
	"$ZOND" record --timeline --no-time -o x.db -- "$PHASES" 1 1
check_error "a bad size" "--timeline-size wants a number from 1 to" \
	"$ZOND" record --timeline-size 0 -o x.db -- "$PHASES" 1 1
check_error "a bad keep" "--timeline-keep wants oldest or newest, not 'all'" \
	"$ZOND" libcalls --timeline-keep all -o x.db -- "$PHASES" 1 1
finish
