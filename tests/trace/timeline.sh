#!/bin/sh
# timeline.sh - `zond trace report --timeline` (and import, record --online): the timeline of a
# trace run in instructions, for tests/trace/timeline/timeline.c at -O0 and -O2:
#   - the export (zond export -f chrome, read by tests/export/chrome_check.py, which checks the
#     JSON as viewers need it and derives the nesting itself) holds the program's own calls in
#     the order and at the depths the program logged them itself (its "call DEPTH NAME" lines);
#   - each call's span is its exact inclusive instruction count: for the branchless functions
#     (leaf_x, leaf_y, pair, outer) their objdump length plus their callees'; against the calling
#     contexts the trace's rebuild gives (trace_contexts_dump), every context has as many spans
#     as calls, summing to its inclusive cost, each between its min and max, and for the
#     program's own functions min = max = the span;
#   - QEMU's `-d in_asm,exec,nochain` log imported with --timeline, and the online mode, give
#     the same spans;
#   - --time: a window of plain instruction counts around rec's outermost call is rec's calls
#     and cost exactly; a window with time units is refused with one line, and so is --time on
#     a trace run without a timeline;
#   - --timeline-size K: keeping the oldest, the first K events of the full timeline (complete
#     spans as they were, the calls they did not see end cut), timeline_dropped = 2 x spans - K;
#     keeping the newest, the last K events (the calls they did not see start cut);
#   - a program that forks (tests/trace/scenarios/forks.c): one timeline per process, and the
#     run's timeline_dropped counts every process's;
#   - `zond trace record --timeline` without --online is refused with one line.
#
# Usage: timeline.sh ZOND CONTEXTS_DUMP ARCH WORKDIR SRCDIR CHROME_CHECK  (77: cross tools missing)
set -u
zond=$1 dump=$2 arch=$3 dir=$4/timeline-$3 src=$5 check=$6
cc=$arch-linux-gnu-gcc objdump=$arch-linux-gnu-objdump
qemu=$(command -v "qemu-$arch") && command -v "$cc" >/dev/null && command -v python3 >/dev/null ||
	exit 77
mkdir -p "$dir" && cd "$dir" || exit 1
status=0
fail() { echo "FAIL ($arch $variant): $*"; status=1; }
own="main outer pair leaf_x leaf_y rec"

. "$src/insns.sh"

# spans DB [zond export options]: chrome_check.py's lines of the run's export
spans() {
	db=$1
	shift
	"$zond" export -i "$db" -f chrome -o spans.json "$@" && python3 "$check" spans.json
}

# own FILE: "DEPTH NAME TS DUR" of the program's own calls, depth from main's.
own() {
	awk -v own="$own" 'BEGIN { n = split(own, o, " "); for (i = 1; i <= n; i++) keep[o[i]] = 1 }
		$1 !~ /\// || !($3 in keep) { next }
		$3 == "main" && base == "" { base = $2 }
		{ print $2 - base, $3, $4 + 0, $5 + 0 }' "$1"
}

# paths FILE: "PATH DUR" for every complete span, PATH its calling context from the root.
paths() {
	awk '$1 ~ /\// && NF == 5 { st[$2] = $3; p = ""; for (i = 0; i <= $2; i++) p = p (i ? ";" : "") st[i]
		print p, $5 + 0 }' "$1"
}

for variant in O0 O2; do
	$cc -$variant -g -static -o timeline "$src/timeline/timeline.c" || { fail build; continue; }
	rm -f z.db on.db log.db old.db new.db plain.db
	env -i "$qemu" ./timeline >plain.txt || fail "plain run"
	env -i "$zond" trace record -q -o t.ztrace -- ./timeline >out.txt || fail "record"
	cmp -s plain.txt out.txt || fail "output differs under zond trace"
	"$zond" trace report -q --timeline -o z.db t.ztrace || fail "report --timeline"
	spans z.db >full.txt 2>err.txt || fail "export: $(cat err.txt)"

	# the order and nesting the program logged
	sed -n 's/^call //p' plain.txt >want.seq
	own full.txt >own.txt
	cut -d' ' -f1,2 own.txt >got.seq
	cmp -s want.seq got.seq || fail "calls differ from the program's log: $(diff want.seq got.seq)"

	# branchless functions: objdump's length plus the callees'
	x=$(insns timeline leaf_x) y=$(insns timeline leaf_y) p=$(insns timeline pair) o=$(insns timeline outer)
	[ -n "$x" ] && [ -n "$y" ] && [ -n "$p" ] && [ -n "$o" ] || fail "objdump: '$x' '$y' '$p' '$o'"
	pair=$((p + x + y))
	outer=$((o + 2 * pair + x))
	bad=$(awk -v x=$x -v y=$y -v pair=$pair -v outer=$outer '
		($2 == "leaf_x" && $4 != x) || ($2 == "leaf_y" && $4 != y) ||
		($2 == "pair" && $4 != pair) || ($2 == "outer" && $4 != outer)' own.txt)
	[ -z "$bad" ] || fail "leaf_x $x, leaf_y $y, pair $pair, outer $outer instructions; spans: $bad"

	# every call: its context's inclusive cost, as the rebuild counts it
	"$dump" ztrace t.ztrace >ctx.dump || fail "contexts_dump"
	paths full.txt >paths.txt
	bad=$(awk -v own="$own" '
		BEGIN { n = split(own, o, " "); for (i = 1; i <= n; i++) keep[o[i]] = 1 }
		NR == FNR { if ($1 !~ /^=/) { calls[$2] = $3; incl[$2] = $5; min[$2] = $6; max[$2] = $7 }
			next }
		{ n = split($1, f, ";"); got[$1]++; sum[$1] += $2 }
		!($1 in min) || $2 < min[$1] || $2 > max[$1] || ((f[n] in keep) && min[$1] != max[$1]) {
			print "span", $0 }
		END { for (p in calls) if (got[p] != calls[p] || sum[p] != incl[p])
			print p ": " got[p] + 0 " spans of " sum[p] + 0 ", not " calls[p] " of " incl[p] }
		' ctx.dump paths.txt | head -5)
	[ -z "$bad" ] || fail "spans other than their contexts' inclusive costs: $bad"
	n=$(awk '$1 == "events" { print $3 }' full.txt)
	c=$(awk '!/^=/ { n += $3 } END { print n }' ctx.dump)
	[ "$n" = "$c" ] || fail "$n spans for $c calls"

	# QEMU's own log and the online mode: the same spans
	# the same output file, so that the program's stdio runs the same instructions
	env -i "$qemu" -d in_asm,exec,nochain -D qemu.log ./timeline >out.txt || fail "qemu -d"
	"$zond" trace import -q --timeline -o log.db -f qemu-log -a $arch -e timeline qemu.log ||
		fail "import --timeline"
	spans log.db | grep '^[0-9]' | cut -d' ' -f2- >log.txt
	env -i "$zond" trace record -q --online --timeline -o on.db -- ./timeline >out.txt ||
		fail "record --online --timeline"
	spans on.db | grep '^[0-9]' | cut -d' ' -f2- >on.txt
	# without the pids, which differ between runs
	grep '^[0-9]' full.txt | cut -d' ' -f2- >full.cmp
	for other in log on; do
		cmp -s full.cmp $other.txt || fail "$other's spans differ: $(diff full.cmp $other.txt | head -5)"
	done

	# a window of instructions: rec's outermost call
	set -- $(awk '$2 == "rec" { print $3, $3 + $4; exit }' own.txt)
	"$zond" report -i z.db --raw --time "$1~$2" >win.txt 2>err.txt || fail "--time $1~$2: $(cat err.txt)"
	got=$(awk '$NF == "rec" || $NF == "leaf_y" { print $NF, $1, $2 }' win.txt | sort | tr '\n' ' ')
	want="leaf_y 1 $y rec 4 $(($2 - $1)) "
	[ "$got" = "$want" ] || fail "window $1~$2: '$got', not '$want'"
	"$zond" report -i z.db --time 1ms~2ms >/dev/null 2>err.txt && fail "--time with units taken"
	[ $(wc -l <err.txt) = 1 ] && grep -q "counts instructions: give --time without units" err.txt ||
		fail "--time 1ms~2ms: $(cat err.txt)"

	"$zond" trace report -q -o plain.db t.ztrace || fail "report"
	"$zond" report -i plain.db --time 1~2 >/dev/null 2>err.txt && fail "--time without a timeline taken"
	[ "$(cat err.txt)" = "zond report: run 1 has no timeline: read its trace with \`zond trace report --timeline\` to use --time" ] ||
		fail "--time without a timeline: $(cat err.txt)"
	"$zond" export -i plain.db -f chrome >/dev/null 2>err.txt && fail "chrome without a timeline taken"
	[ "$(cat err.txt)" = "zond export: run 1 has no timeline: read its trace with \`zond trace report --timeline\`" ] ||
		fail "chrome without a timeline: $(cat err.txt)"

	# bounded: the first or the last K events of the full timeline
	k=25 total=$((2 * n))
	"$zond" trace report -q --timeline-size $k -o old.db t.ztrace || fail "--timeline-size"
	"$zond" trace report -q --timeline-size $k --timeline-keep newest -o new.db t.ztrace ||
		fail "--timeline-keep newest"
	for keep in oldest newest; do
		db=old.db
		[ $keep = newest ] && db=new.db
		"$zond" report -i $db 2>&1 | grep -q "timeline_dropped = $((total - k)) events (the timeline keeps the $keep)" ||
			fail "$keep: no timeline_dropped = $((total - k)): $("$zond" report -i $db 2>&1 | grep warn)"
		spans $db | grep '^[0-9]' | cut -d' ' -f3- >cut.txt
		# each complete span is one of the full timeline's, each cut one ends or starts as one
		bad=$(awk -v keep=$keep '
			NR == FNR { if ($1 ~ /\//) { whole[$3 " " $4 " " $5] = 1; start[$3 " " $4] = 1
				end[$3 " " $4 + $5] = 1 }; next }
			{ events += NF == 3 ? 2 : 1 }
			NF == 3 && !($0 in whole) { print "not in the full timeline:", $0 }
			$4 == "cut-end" && (keep != "oldest" || !(($1 " " $2) in start)) { print "cut:", $0 }
			$4 == "cut-start" && (keep != "newest" || !(($1 " " $2 + $3) in end)) { print "cut:", $0 }
			END { if (events != '$k') print events " events, not '$k'" }' full.txt cut.txt | head -5)
		[ -z "$bad" ] || fail "$keep $k: $bad"
	done
done
# a program that forks: one timeline per process, the run's facts count every process's events
variant=forks
$cc -O1 -g -static -o forks "$src/scenarios/forks.c" || fail build
rm -f f.ztrace* f.db
env -i "$zond" trace record -q -o f.ztrace -- ./forks >/dev/null 2>&1
"$zond" trace report -q --timeline -o f.db f.ztrace || fail "report --timeline"
spans f.db >f.txt || fail export
set -- f.ztrace*
got=$(awk '$1 == "events" { n++; e += 2 * $3 - 10 } END { print n, e }' f.txt)
"$zond" trace report -q --timeline-size 10 -o f.db f.ztrace || fail "report --timeline-size"
dropped=$("$zond" report -i f.db | sed -n 's/^warning: *timeline_dropped = \([0-9]*\) events.*/\1/p')
[ "$got" = "$# $dropped" ] || fail "$# traces, $dropped events dropped; the full export: $got"
env -i "$zond" trace record -q --timeline -o t.ztrace -- ./timeline >/dev/null 2>err.txt &&
	fail "record --timeline without --online taken"
[ $(wc -l <err.txt) = 1 ] && grep -q "give it to .zond trace report" err.txt ||
	fail "record --timeline: $(cat err.txt)"
[ $status -eq 0 ] && echo "ok ($arch): trace timelines hold the program's calls and their exact instruction counts"
exit $status
