#!/bin/sh
# e2e.sh - zond trace end to end for one architecture: record a program under
# qemu-user with zond's plugin, rebuild and store its profile, and check it
# against real consumers:
#   - instruction conservation: callgrind_annotate's total of both exports
#     equals the trace length zond counted;
#   - entry counts of every user function equal gprof's (-pg build, same arch);
#   - KCachegrind loads the export without a Loading complaint;
#   - a 4-thread program: one exact profile per thread, recorded and online (the same
#     profiles of the four workers);
#   - truncated, corrupt and mismatched traces and an unknown architecture
#     give one error line naming the file (and offset), never a crash.
#
# Usage: e2e.sh ZOND ARCH WORKDIR SRCDIR    (exit 77: cross tools missing)
set -u
zond=$1 arch=$2 dir=$3/$2 src=$4
cc=$arch-linux-gnu-gcc
command -v "$cc" >/dev/null && command -v "qemu-$arch" >/dev/null || exit 77
mkdir -p "$dir" && cd "$dir" || exit 1
rm -f zond.db gmon.out
status=0
fail() { echo "FAIL ($arch): $*"; status=1; }

$cc -O1 -g -static -o calls "$src/progs/calls.c" || exit 1
$cc -O1 -g -static -pg -o calls.pg "$src/progs/calls.c" || exit 1

"$zond" trace record -q -o calls.ztrace -- ./calls 15 >out.txt || fail "record"
[ "$(cat out.txt)" = 34424 ] || fail "program output under the plugin: $(cat out.txt)"
"$zond" trace report -o zond.db -n 0 calls.ztrace 2>summary.txt || fail "report: $(cat summary.txt)"
insns=$(sed -n 's/.*: \([0-9]*\) instructions.*/\1/p' summary.txt)
[ -n "$insns" ] && [ "$insns" -gt 10000 ] || fail "no instruction count in: $(cat summary.txt)"

# Conservation, as callgrind_annotate reads our exports.
for fmt in callgrind callgrind-bb; do
	"$zond" export -i zond.db --format $fmt -o $fmt.out || fail "export $fmt"
	total=$(callgrind_annotate $fmt.out 2>/dev/null | sed -n 's/^\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' | tr -d ,)
	[ "$total" = "$insns" ] || fail "$fmt: callgrind_annotate total '$total' != $insns instructions"
done

# Entry counts against gprof's.
qemu-$arch ./calls.pg 15 >/dev/null || fail "gprof build did not run"
$arch-linux-gnu-gprof -b -q ./calls.pg gmon.out |
	awk '/^\[[0-9]+\]/ && !/as a whole/ { n = split($5, a, "+"); c = 0;
		for (i = 1; i <= n; i++) c += a[i]; print $6, c }' | sort >gprof.txt
"$zond" report -i zond.db --raw -s name |
	awk 'NR > 1 && $1 ~ /^[0-9]+$/ { print $NF, $1 }' | sort >zond.txt
n=0
while read -r name calls; do
	z=$(awk -v f="$name" '$1 == f { print $2 }' zond.txt)
	[ "$z" = "$calls" ] || fail "$name: gprof counts $calls entries, zond '$z'"
	n=$((n + 1))
done <gprof.txt
[ $n -ge 7 ] || fail "gprof listed only $n functions"

# KCachegrind loads both exports and opens them on main (it selects a function called
# "main" after loading: in the basic-block export that is main's entry block, which
# KCachegrind may show as "main <cycle N>": returns from blocks shared by several callers close
# cycles in that graph).  The two run at once, in subshells: failures go through a file.
kcachegrind_loads() {
	file=$1 log=kcachegrind-$1.log
	: >$log # before the background start: a stale log's "Selected" must not end the wait
	QT_QPA_PLATFORM=offscreen timeout -k 5 60 dbus-run-session -- kcachegrind $file >$log 2>&1 &
	runner=$!
	i=0
	while [ $i -lt 600 ] && ! grep -q '^Selected' $log; do sleep 0.1; i=$((i + 1)); done
	session=$(pgrep -P "$runner")
	[ -n "$session" ] && app=$(pgrep -x -P "$session" kcachegrind) && kill "$app"
	wait "$runner"
	grep -q '^Loading' $log && echo "kcachegrind $file: $(grep '^Loading' $log)" >>kcachegrind.fail
	grep -Eq '^Selected  "main( <cycle [0-9]+>)?"$' $log ||
		echo "kcachegrind did not open $file on main: $(cat $log)" >>kcachegrind.fail
}
rm -f kcachegrind.fail
kcachegrind_loads callgrind.out &
kcachegrind_loads callgrind-bb.out &
wait
[ -s kcachegrind.fail ] && fail "$(cat kcachegrind.fail)"

# Bad input: one line naming the file, exit status 1, never a crash.
bad() {
	what=$1 file=$2 expect=$3
	"$zond" trace report -q -o bad.db "$file" 2>err.txt
	rc=$?
	[ $rc -eq 1 ] || fail "$what: exit status $rc"
	[ "$(wc -l <err.txt)" -eq 1 ] || fail "$what: not one line: $(cat err.txt)"
	grep -q "$file" err.txt || fail "$what: file not named: $(cat err.txt)"
	grep -q "$expect" err.txt || fail "$what: '$expect' not in: $(cat err.txt)"
}
size=$(wc -c <calls.ztrace)
head -c $((size / 2)) calls.ztrace >truncated.ztrace
bad truncated truncated.ztrace "offset"
head -c 10 calls.ztrace >short.ztrace
bad short short.ztrace "offset"
cp calls.ztrace corrupt.ztrace
printf '\377\377\377\377' | dd of=corrupt.ztrace bs=1 seek=$((size / 3)) conv=notrunc 2>/dev/null
bad corrupt corrupt.ztrace "offset"
other=$(echo $arch | tr a-z n-za-m) # same length: the header's size stays right
sed "s/arch $arch/arch $other/" calls.ztrace >arch.ztrace
bad "unknown arch" arch.ztrace "unknown architecture '$other'"
# The same path, another build: the code no longer matches the trace.
cp calls calls.keep
$cc -O0 -g -static -o calls "$src/progs/calls.c"
bad "another build" calls.ztrace "does not match"
mv calls.keep calls
# A multi-threaded program: one profile per thread (zond thread k+1 is the k-th created), each
# exact: work's entries, its cost growing by one step from thread to thread (the loop body
# times 2000), and the threads' totals adding up to the trace length.
$cc -O2 -static -pthread -o threads "$src/progs/threads.c" || exit 1
rm -f threads.ztrace threads.db
"$zond" trace record -q -o threads.ztrace -- ./threads >out.txt 2>err.txt ||
	fail "threads: record failed: $(cat err.txt)"
[ "$(cat out.txt)" = done ] || fail "threads: program output $(cat out.txt)"
"$zond" trace report -o threads.db -n 0 threads.ztrace 2>summary.txt ||
	fail "threads: report: $(cat summary.txt)"
# check_threads DB SUMMARY MODE: the checks above on the profile of DB.
check_threads() {
	db=$1 mode=$3
	tinsns=$(sed -n 's/.*: \([0-9]*\) instructions.*/\1/p' "$2")
	sum=0 prev="" step=""
	for t in 0 1 2 3 4; do
		"$zond" report -i $db --tid $t --raw -s name >t$t.txt 2>&1 || fail "threads $mode: tid $t"
		total=$(sed -n 's/.*total \([0-9]*\)$/\1/p' t$t.txt)
		sum=$((sum + ${total:-0}))
		work=$(awk '$NF == "work" { print $1, $3 }' t$t.txt)
		if [ $t -eq 0 ]; then
			[ -z "$work" ] || fail "threads $mode: the main thread ran work: $work"
			continue
		fi
		set -- $work
		[ "${1:-}" = 2000 ] || fail "threads $mode: tid $t: work entered '${1:-}' times, not 2000"
		[ "$(awk '$NF == "run" { print $1 }' t$t.txt)" = 1 ] || fail "threads $mode: tid $t: run"
		if [ -n "$prev" ]; then
			d=$((${2:-0} - prev))
			[ -z "$step" ] && step=$d
			[ $d -eq "$step" ] && [ $((d % 2000)) -eq 0 ] && [ $d -gt 0 ] ||
				fail "threads $mode: tid $t: work's cost grew by $d, before by $step"
		fi
		prev=${2:-0}
	done
	[ -n "$tinsns" ] && [ "$sum" = "$tinsns" ] ||
		fail "threads $mode: threads' totals add up to $sum, not '$tinsns'"
}
check_threads threads.db summary.txt recorded
"$zond" trace convert -o threads.pcs threads.ztrace 2>err.txt && fail "threads: converted"
grep -q "several threads" err.txt || fail "threads: convert: $(cat err.txt)"
# The online mode: per-vCPU counting from the second thread on, a rebuild per thread.  The
# same checks, and the workers' profiles (dump --times) equal the recorded ones.  The main
# thread's differ from run to run in either mode (pthread_join's futex waits), so it is
# checked as above only.
rm -f threads-online.db
"$zond" trace record --online -o threads-online.db -- ./threads >out.txt 2>err.txt ||
	fail "threads online: record failed: $(cat err.txt)"
[ "$(cat out.txt)" = done ] || fail "threads online: program output $(cat out.txt)"
grep -q "5 threads" err.txt || fail "threads online: $(cat err.txt)"
check_threads threads-online.db err.txt online
for t in 1 2 3 4; do
	"$zond" dump -i threads.db --tid $t --times >dump-rec-$t.txt
	"$zond" dump -i threads-online.db --tid $t --times >dump-on-$t.txt
	[ -s dump-on-$t.txt ] && cmp -s dump-rec-$t.txt dump-on-$t.txt ||
		fail "threads online: tid $t differs from the recorded profile: $(diff dump-rec-$t.txt dump-on-$t.txt | head -5)"
done

[ $status -eq 0 ] && echo "ok ($arch): $insns instructions, gprof counts of $n functions match"
exit $status
