#!/bin/sh
# harden.sh - zond trace against what programs and users do (issue 8's trace items), one
# architecture, on the programs of tests/trace/scenarios/.  Each run under zond is compared
# with the same command run plainly under qemu-user: output, exit status, death by signal.
#   - a program of one basic block: record, report, the QEMU log importer and the online
#     mode (exit status 7); 1- to 10-line prefixes of real PC lists and QEMU logs never crash
#     the importers;
#   - a fault, abort(), TERM/INT/HUP/QUIT sent to zond, KILL to zond: zond dies of the
#     program's signal and the trace holds what ran (leaf's 1000 calls before the crash);
#     a fault or abort() completed by zond is read as complete, in one line saying of which
#     signal the program died (not "cut short"); the online mode says its profile is lost;
#   - the traced program deleted before the report: one warning line naming it (x86-64 too);
#   - a program that closes every descriptor from 3 and opens its own output file: it sees
#     the descriptors it sees plainly, its file holds its own bytes, the trace is complete;
#   - execve: the program's exit status, the trace of what ran before; online: its profile;
#   - fork: output and status as plainly, the parent's and the child's traces read into one
#     run (leaf's 100 + 50 calls; fork.sh has the rest), one online run and nothing on stderr
#     with -q but zond's note that the child is not traced;
#   - argv[0] and AT_EXECFN as typed, PATH searched (a symbolic link there kept); online runs
#     keep arguments and status;
#   - bad -L, --qemu that fails, a dynamic program without -L, a directory given to report,
#     /dev/zero and a 10 MB line given to the importers (in 1 GB of address space): one line
#     saying what is wrong, never "trace written"; options after report's trace file; a
#     header with a damaged program path or entry point keeps the names.
#
# Usage: harden.sh ZOND ARCH WORKDIR SRCDIR    (exit 77: cross tools missing)
name=harden
. "$4/guest.sh"

for p in crash fds exec fork argv; do
	$cc -O1 -g -static -o $p "$src/$p.c" || { fail "build $p"; exit 1; }
done
$cc -nostdlib -static -o onebb "$src/onebb-$arch.S" || { fail "build onebb"; exit 1; }

# One basic block.
"$zond" trace record -q -o onebb.ztrace -- ./onebb
rc=$?; [ $rc -eq 7 ] || fail "onebb: record returned $rc, not 7"
"$zond" trace report -q -o onebb.db onebb.ztrace 2>err.txt || fail "onebb: report: $(cat err.txt)"
runs=2
if [ $arch != x86_64 ]; then # the importers read fixed-size instruction words only
	$qemu -d in_asm,exec,nochain -D onebb.log ./onebb
	"$zond" trace import -q -o onebb.db -f qemu-log -a $arch -e onebb onebb.log 2>err.txt ||
		fail "onebb: qemu-log import: $(cat err.txt)"
	runs=3
fi
"$zond" trace record -q --online -o onebb.db -- ./onebb 2>err.txt
rc=$?; [ $rc -eq 7 ] || fail "onebb: online returned $rc, not 7: $(cat err.txt)"
n=$("$zond" runs -i onebb.db | grep -c ' trace ')
[ "$n" = $runs ] || fail "onebb: $n runs stored, not $runs"
# a comma in a file name (QEMU splits its -plugin option at commas)
"$zond" trace record -q -o 'one,bb.ztrace' -- ./onebb 2>err.txt
rc=$?; [ $rc -eq 7 ] || fail "a comma in -o: record returned $rc, not 7: $(cat err.txt)"
"$zond" trace report -q -o 'one,bb.db' 'one,bb.ztrace' 2>err.txt || fail "a comma: report: $(cat err.txt)"
"$zond" trace record -q --online -o 'one,bb.db' -- ./onebb 2>err.txt
rc=$?; [ $rc -eq 7 ] || fail "a comma in --online -o: returned $rc, not 7: $(cat err.txt)"
n=$("$zond" runs -i 'one,bb.db' | grep -c ' trace ')
[ "$n" = 2 ] || fail "a comma: $n runs stored, not 2"

# Prefixes of real traces (issue 8 item 14).
"$zond" trace record -q -o crash.ztrace -- ./crash >/dev/null
"$zond" trace convert -o words.pcs crash.ztrace || fail "convert"
cut -d' ' -f1 words.pcs >bare.pcs
$qemu -d in_asm,exec,nochain -D crash.log ./crash >/dev/null
for k in 1 2 3 4 5 6 7 8 9 10 20 40; do
	for f in words.pcs bare.pcs crash.log; do
		fmt=pcs
		[ $f = crash.log ] && fmt=qemu-log
		head -n $k $f >prefix.$fmt
		"$zond" trace import -q -o prefix.db -f $fmt -a $arch -e crash prefix.$fmt 2>err.txt
		rc=$?
		[ $rc -le 1 ] || fail "$k lines of $f: exit status $rc"
		[ $rc -eq 0 ] || [ "$(wc -l <err.txt)" = 1 ] || fail "$k lines of $f: $(cat err.txt)"
	done
done

# A fault and abort(): zond dies as the program does, the trace holds leaf's 1000 calls.
for how in segv abort; do
	$qemu ./crash $how >plain.out 2>/dev/null
	want=$?
	rm -f c.db
	"$zond" trace record -q -o c.ztrace -- ./crash $how >zond.out 2>err.txt
	rc=$?
	[ $rc -eq $want ] || fail "$how: zond returned $rc, the program plainly $want"
	cmp -s plain.out zond.out || fail "$how: output differs"
	grep -q "killed by signal" err.txt || fail "$how: not said: $(cat err.txt)"
	"$zond" trace report -q -o c.db c.ztrace 2>err.txt || fail "$how: report: $(cat err.txt)"
	# complete: zond appended QEMU's last records and the EXIT record; not "cut short"
	grep -q "killed by signal $((want - 128)) .*the trace is complete" err.txt ||
		fail "$how: not said complete: $(cat err.txt)"
	grep -q "cut short" err.txt && fail "$how: a complete trace said cut short: $(cat err.txt)"
	[ "$(wc -l <err.txt)" = 1 ] || fail "$how: report said: $(cat err.txt)"
	"$zond" runs -i c.db | grep -q "signal $((want - 128)) " || fail "$how: $("$zond" runs -i c.db)"
	[ "$(calls leaf c.db)" = 1000 ] && [ "$(calls main c.db)" = 1 ] ||
		fail "$how: leaf $(calls leaf c.db), main $(calls main c.db) calls"
	"$zond" trace record -q --online -o c.db -- ./crash $how >/dev/null 2>err.txt
	rc=$?
	[ $rc -eq $want ] || fail "$how online: zond returned $rc, not $want"
	grep -q "online profile is lost" err.txt || fail "$how online: not said: $(cat err.txt)"
done

# wait_for TEST...: polls (no time limit but the test's) until TEST holds.
wait_for() { while ! "$@"; do sleep 0.1; done; }
# ready: the program said so, or zond ended without it (a QEMU that could not start: fail, not hang)
ready() { grep -q ready k.out 2>/dev/null || ! kill -0 "$zpid" 2>/dev/null; }
chunk() { [ "$(stat -c %s k.ztrace 2>/dev/null || echo 0)" -gt 200 ] || ! kill -0 "$zpid" 2>/dev/null; }
chunks() { [ "$(stat -c %s k.ztrace 2>/dev/null || echo 0)" -gt 100000 ] || ! kill -0 "$zpid" 2>/dev/null; }

# Signals sent to zond: passed to the program, which dies of them; zond does too.
for s in TERM:15 INT:2 HUP:1 QUIT:3 KILL:9; do
	sig=${s%:*}
	rm -f k.out k.ztrace k.db
	env --default-signal "$zond" trace record -q -o k.ztrace -- ./crash spin >k.out 2>err.txt &
	zpid=$!
	wait_for ready
	[ $sig = TERM ] && wait_for chunks # for the cuts below
	if [ $sig = KILL ]; then
		wait_for chunk # nobody completes the trace after KILL: whole chunks only
		qpid=$(pgrep -P $zpid)
	fi
	kill -$sig $zpid
	wait $zpid
	rc=$?
	want=$((128 + ${s#*:}))
	[ $rc -eq $want ] || fail "$sig: zond returned $rc, not $want"
	if [ $sig = KILL ]; then # zond's end is not the program's: it runs on until stopped
		sleep 0.2
		kill -0 "$qpid" 2>/dev/null || fail "KILL to zond ended the program"
		kill -TERM "$qpid"
		wait_for sh -c "! kill -0 $qpid 2>/dev/null"
	fi
	"$zond" trace report -q -o k.db k.ztrace 2>err.txt || fail "$sig: report: $(cat err.txt)"
	leaf=$(calls leaf k.db)
	[ "${leaf:-0}" -ge 1000 ] && [ "$(calls main k.db)" = 1 ] ||
		fail "$sig: leaf $leaf, main $(calls main k.db) calls"
	[ $sig = TERM ] && cp k.ztrace term.ztrace
done

# That trace cut anywhere: read up to its last complete chunk with a warning, or refused in
# one line when no chunk of executions is complete.
size=$(stat -c %s term.ztrace) read=0
for k in 1 2 3 4 5 6 7 8 9; do
	head -c $((size * k / 10)) term.ztrace >cut.ztrace
	rm -f cut.db
	if "$zond" trace report -q -o cut.db cut.ztrace 2>err.txt; then
		grep -q "cut short" err.txt || fail "cut at $k/10: no warning"
		[ "$(calls main cut.db)" = 1 ] || fail "cut at $k/10: main $(calls main cut.db) calls"
		read=$((read + 1))
	else
		[ "$(wc -l <err.txt)" = 1 ] || fail "cut at $k/10: $(cat err.txt)"
	fi
done
[ $read -ge 5 ] || fail "only $read of 9 cut traces read"

# Descriptors: none of zond's for the program to see or close.
$qemu ./fds plain.txt >plain.out
want=$?
"$zond" trace record -q -o fds.ztrace -- ./fds mine.txt >zond.out
rc=$?
[ $rc -eq $want ] || fail "fds: zond returned $rc, plainly $want"
cmp -s plain.out zond.out || fail "fds: the program saw other descriptors: $(diff plain.out zond.out)"
[ "$(cat mine.txt)" = mine ] || fail "fds: the program's own file holds: $(head -c 40 mine.txt)"
"$zond" trace report -q -o fds.db fds.ztrace 2>err.txt || fail "fds: report: $(cat err.txt)"
[ -s err.txt ] && fail "fds: $(cat err.txt)"
[ "$(calls leaf fds.db)" = 100 ] || fail "fds: leaf $(calls leaf fds.db) calls"

# execve: the new image's exit status; the trace (or online profile) of what ran before.
"$zond" trace record -q -o exec.ztrace -- ./exec >/dev/null 2>err.txt
rc=$?
[ $rc -eq 6 ] || fail "exec: zond returned $rc, not 6"
grep -q execve err.txt || fail "exec: not said: $(cat err.txt)"
"$zond" trace report -q -o exec.db exec.ztrace 2>err.txt || fail "exec: report: $(cat err.txt)"
[ "$(calls leaf exec.db)" = 100 ] || fail "exec: leaf $(calls leaf exec.db) calls"
rm -f exec.db
"$zond" trace record -q --online -o exec.db -- ./exec >/dev/null 2>err.txt
rc=$?
[ $rc -eq 6 ] || fail "exec online: zond returned $rc, not 6: $(cat err.txt)"
[ "$(calls leaf exec.db)" = 100 ] || fail "exec online: leaf $(calls leaf exec.db) calls"

# fork.
$qemu ./fork >plain.out
want=$?
"$zond" trace record -q -o fork.ztrace -- ./fork >zond.out 2>err.txt
rc=$?
[ $rc -eq $want ] || fail "fork: zond returned $rc, plainly $want"
cmp -s plain.out zond.out || fail "fork: output differs"
[ -s err.txt ] && fail "fork: record said: $(cat err.txt)"
"$zond" trace report -q -o fork.db fork.ztrace 2>err.txt || fail "fork: report: $(cat err.txt)"
[ -s err.txt ] && fail "fork: $(cat err.txt)"
[ "$(calls leaf fork.db)" = 150 ] || fail "fork: leaf $(calls leaf fork.db) calls (100 + the child's 50)"
rm -f fork.db
"$zond" trace record -q --online -o fork.db -- ./fork >zond.out 2>err.txt
rc=$?
[ $rc -eq $want ] || fail "fork online: zond returned $rc, plainly $want"
cmp -s plain.out zond.out || fail "fork online: output differs"
[ "$(grep -vc 'process (fork)' err.txt)" = 0 ] || fail "fork online: stderr: $(cat err.txt)"
n=$("$zond" runs -i fork.db | grep -c ' trace ')
[ "$n" = 1 ] || fail "fork online: $n runs stored"
# its thread carries the process's id, PID/TID as in a trace's run (it was 0/0)
"$zond" report -i fork.db --per-thread 2>&1 | grep -q '^thread [1-9][0-9]*/0:' ||
	fail "fork online: threads $("$zond" report -i fork.db --per-thread 2>&1 | grep '^thread')"

# argv[0], AT_EXECFN, PATH; the online run's command line and status.
$qemu ./argv a 'b c' >plain.out
want=$?
"$zond" trace record -q -o argv.ztrace -- ./argv a 'b c' >zond.out
rc=$?
[ $rc -eq $want ] || fail "argv: zond returned $rc, plainly $want"
cmp -s plain.out zond.out || fail "argv: $(diff plain.out zond.out)"
here=$(pwd -P)
PATH=$here:$PATH "$zond" trace record -q -o argv.ztrace -- argv >zond.out ||
	[ $? -eq 1 ] || fail "argv along PATH: $(cat zond.out)"
[ "$(head -1 zond.out)" = "argv0=argv execfn=$here/argv pdeathsig=0" ] || fail "argv along PATH: $(cat zond.out)"
# ... through a symbolic link along PATH: the link's path, as the shell runs it (QA s16 X3 F8:
# zond gave QEMU the link's target)
rm -rf links && mkdir links && ln -s ../argv links/argvlink || fail "ln -s"
link=$(PATH=$here/links:$PATH command -v argvlink)
$qemu -0 argvlink "$link" >plain.out
PATH=$here/links:$PATH "$zond" trace record -q -o argv.ztrace -- argvlink >zond.out ||
	[ $? -eq 1 ] || fail "argv through a link along PATH: $(cat zond.out)"
[ "$(head -1 zond.out)" = "argv0=argvlink execfn=$here/links/argvlink pdeathsig=0" ] &&
	cmp -s plain.out zond.out || fail "argv through a link along PATH: $(cat zond.out), plainly $(cat plain.out)"
"$zond" trace record -q --online -o argv.db -- ./argv a 'b c' >/dev/null
"$zond" runs -i argv.db >runs.txt
grep -q "exit $want" runs.txt && grep -q "./argv a b c" runs.txt || fail "online run: $(cat runs.txt)"
# ... and its times: when QEMU began and how long it ran (it stored 0 s, begun in the second
# it ended)
rm -f times.db
before=$(date +%s%N)
"$zond" trace record -q --online -o times.db -- ./argv >/dev/null
after=$(date +%s%N)
times=$(sqlite3 times.db "SELECT start_ns, duration_ns FROM runs")
start=${times%|*} duration=${times#*|}
[ "$start" -ge "$before" ] && [ "$duration" -gt 0 ] && [ $((start + duration)) -le "$after" ] ||
	fail "online run's times: start $start, duration $duration, not within $before..$after"
# ... and one its store cannot take (a full disk, when this user may mount a tmpfs): kept in a
# store of its own in $TMPDIR, two lines say why and where, and the status is not 0
rm -rf tmp && mkdir -p mnt tmp
if mount -t tmpfs -o size=64k zondtrace mnt 2>/dev/null; then
	head -c 64k /dev/zero >mnt/fill 2>/dev/null
	$qemu ./argv >/dev/null
	plain=$?
	TMPDIR=$PWD/tmp "$zond" trace record -q --online -o mnt/full.db -- ./argv >/dev/null 2>err.txt
	rc=$?
	[ $rc -eq $plain ] || { [ $plain -eq 0 ] && [ $rc -eq 1 ]; } ||
		fail "online, store full: status $rc (plainly $plain)"
	grep -qx "zond trace: online profile not stored: mnt/full.db: database or disk is full" err.txt ||
		fail "online, store full: why not said: $(cat err.txt)"
	kept=$(sed -n 's|^zond trace: online profile kept in \([^ ,]*\), a store of its own (zond report -i \1)$|\1|p' err.txt)
	[ -n "$kept" ] && [ "$("$zond" runs -i "$kept" | grep -c ' trace ')" = 1 ] ||
		fail "online, store full: not kept: $(cat err.txt)"
	umount mnt
else
	echo "note: cannot mount a tmpfs here: an online run its store cannot take is not checked"
fi
# a trace's run keeps them too: the command as typed, the status
"$zond" trace record -q -o argv.ztrace -- ./argv a 'b c' >/dev/null
rm -f argvt.db
"$zond" trace report -q -o argvt.db argv.ztrace 2>err.txt || fail "argv report: $(cat err.txt)"
"$zond" runs -i argvt.db >runs.txt
grep -q "exit $want" runs.txt && grep -q "./argv a b c" runs.txt || fail "trace's run: $(cat runs.txt)"

# Bad options and inputs: one line saying what is wrong.
one_line() { # WHAT EXPECT COMMAND...: exit status 1..127, one line holding EXPECT
	what=$1 expect=$2
	shift 2
	"$@" >/dev/null 2>err.txt
	rc=$?
	[ $rc -ge 1 ] && [ $rc -le 127 ] || fail "$what: exit status $rc"
	[ "$(wc -l <err.txt)" = 1 ] || fail "$what: not one line: $(cat err.txt)"
	grep -q -- "$expect" err.txt || fail "$what: '$expect' not in: $(cat err.txt)"
	grep -q "trace written" err.txt && fail "$what: says trace written"
}
one_line "-L /nonexistent" "/nonexistent" "$zond" trace record -L /nonexistent -o x.ztrace -- ./crash
one_line "--qemu /bin/false" "before the program ran" \
	"$zond" trace record --qemu /bin/false -o x.ztrace -- ./crash
one_line "report of a directory" "directory" "$zond" trace report -o x.db .
# a directory where nothing can be created although access() allows it (to root), checked
# before QEMU starts (it was three lines: the plugin's, QEMU's and zond's)
one_line "-o /proc/x.ztrace" "/proc/x.ztrace: cannot create" \
	"$zond" trace record -o /proc/x.ztrace -- ./crash
rm -f ./-
one_line "-o -" "standard output" "$zond" trace record -o - -- ./crash
[ -e ./- ] && fail "-o -: a file named - written"
one_line "program not found" "not found" "$zond" trace record -o x.ztrace -- ./nonexistent
if [ $arch != x86_64 ]; then
	$cc -O1 -o dynamic "$src/argv.c" || fail "build dynamic"
	"$zond" trace record -o x.ztrace -- ./dynamic >/dev/null 2>err.txt
	rc=$?
	[ $rc -ne 0 ] || fail "dynamic without -L: exit status 0"
	grep -q "trace written" err.txt && fail "dynamic without -L: says trace written"
	grep -q "before the program ran" err.txt || fail "dynamic without -L: $(cat err.txt)"
fi
# Readers bound their memory by their limits, not by their input (1 GB of address space,
# unless zond cannot start in it: a sanitizer build reserves terabytes for its shadow).
head -c 10000000 /dev/zero | tr '\0' 1 >long.pcs
limit="ulimit -v 1000000;"
sh -c "$limit exec '$zond' trace --help" >/dev/null 2>&1 || limit=""
for f in /dev/zero long.pcs; do
	for fmt in pcs qemu-log; do
		one_line "$fmt import of $f" "line 1: " sh -c \
			"$limit exec '$zond' trace import -o x.db -f $fmt -a $arch $f"
	done
done
one_line "report of /dev/zero" "not a zond trace" "$zond" trace report -o x.db /dev/zero

# A damaged header entry costs no names: the program's path (found among the mappings) or
# its entry point (the program's own, for a program that is not position-independent).
for damage in 's/^(.*?exe [^\n]*)h\n/$1X\n/s' 's/^(.*?\nentr)y/${1}z/s'; do
	perl -0777 -pe "$damage" crash.ztrace >damaged.ztrace
	cmp -s crash.ztrace damaged.ztrace && fail "header damage '$damage' not made"
	rm -f damaged.db
	"$zond" trace report -q -o damaged.db damaged.ztrace 2>err.txt ||
		fail "damaged header: $(cat err.txt)"
	grep -q "warning" err.txt || fail "damaged header '$damage': no warning"
	[ "$(calls leaf damaged.db)" = 1000 ] || fail "damaged header '$damage': leaf not named"
done

# The traced program gone: its code is named by address, and one warning line says why (on
# x86-64 too, where QEMU's own executable, an x86-64 program among the mapped files, was taken
# for it and the trace refused as "another build").
cp crash gone
"$zond" trace record -q -o gone.ztrace -- ./gone >/dev/null
rm -f gone gone.db
"$zond" trace report -q -o gone.db gone.ztrace 2>err.txt || fail "program gone: $(cat err.txt)"
[ "$(wc -l <err.txt)" = 1 ] && grep -q "warning: .*/gone: no such file: .*named by address" err.txt ||
	fail "program gone: $(cat err.txt)"

# Options after the trace file.
rm -f late.db
"$zond" trace report crash.ztrace -q -o late.db || fail "options after the trace file"
[ -f late.db ] || fail "options after the trace file: -o ignored"

[ $status -eq 0 ] && echo "ok ($arch): crashes, signals, descriptors, exec, fork, argv and bad input"
exit $status
