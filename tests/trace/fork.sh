#!/bin/sh
# fork.sh - `zond trace record` of a program that forks (issue 8 item 3), one architecture:
# tests/trace/scenarios/forks.c forks once, twice, and once with a grandchild; each process
# prints its pid and its own count of leaf() calls (the truth).  Checked: output and exit
# status as plainly under qemu-user; one trace per process (FILE, FILE.PID); `trace report
# FILE` stores one run with one thread group per process, leaf's calls in each group exactly
# the process's own count, the run's total their sum, nothing on stderr with -q (no warning,
# no corrupt trace); a FILE.PID of another recording is not read into the run; the online
# mode keeps output and status and says that the children are not traced.
#
# Usage: fork.sh ZOND ARCH WORKDIR SRCDIR    (exit 77: cross tools missing)
name=fork
. "$4/guest.sh"
$cc -O1 -g -static -o forks "$src/forks.c" || { fail "build forks"; exit 1; }

for args in 1 2 "1 nest"; do
	name="forks $args"
	$qemu ./forks $args >plain.out
	want=$?
	rm -f f.db f.ztrace f.ztrace.*
	"$zond" trace record -q -o f.ztrace -- ./forks $args >zond.out 2>err.txt
	rc=$?
	[ $rc -eq $want ] || fail "$name: zond returned $rc, plainly $want"
	[ -s err.txt ] && fail "$name: record said: $(cat err.txt)"
	# The same lines but for the pids, which differ from run to run.
	sed 's/^pid [0-9]* //' plain.out | sort >a.txt
	sed 's/^pid [0-9]* //' zond.out | sort >b.txt
	cmp -s a.txt b.txt || fail "$name: output differs: $(diff a.txt b.txt)"
	nproc=$(wc -l <zond.out)
	nfiles=$(ls f.ztrace.* 2>/dev/null | wc -l)
	[ "$nfiles" = $((nproc - 1)) ] || fail "$name: $nfiles child traces for $((nproc - 1)) children"
	"$zond" trace report -q -o f.db f.ztrace 2>err.txt || fail "$name: report: $(cat err.txt)"
	[ -s err.txt ] && fail "$name: report said: $(cat err.txt)"
	[ "$("$zond" dump -i f.db | sed -n 's/^threads //p')" = $nproc ] ||
		fail "$name: $("$zond" dump -i f.db | grep threads) for $nproc processes"
	total=0
	while read -r _ pid _ n _; do
		got=$(calls leaf f.db $pid/0)
		[ "$got" = $n ] || fail "$name: process $pid: leaf $got calls, it counted $n"
		total=$((total + n))
	done <zond.out
	[ "$(calls leaf f.db)" = $total ] || fail "$name: leaf $(calls leaf f.db) calls in the run, not $total"
done

# A FILE.PID of another recording beside FILE is not part of its run.
cp "$(ls f.ztrace.* | head -1)" keep.trace
"$zond" trace record -q -o f.ztrace -- ./forks 1 >zond.out
rm -f f.ztrace.*
cp keep.trace f.ztrace.1
"$zond" trace report -q -o g.db f.ztrace 2>err.txt || fail "stranger: report: $(cat err.txt)"
[ "$("$zond" dump -i g.db | sed -n 's/^threads //p')" = 1 ] || fail "stranger: read into the run"
[ "$(calls leaf g.db)" = 30 ] || fail "stranger: leaf $(calls leaf g.db) calls, not the parent's 30"

# Online: the parent's profile, the children untraced and said so.
$qemu ./forks 2 >plain.out
want=$?
"$zond" trace record -q --online -o o.db -- ./forks 2 >zond.out 2>err.txt
rc=$?
[ $rc -eq $want ] || fail "online: zond returned $rc, plainly $want"
grep -q "2 processes (fork): they are not traced" err.txt || fail "online: $(cat err.txt)"
[ "$(calls leaf o.db)" = 30 ] || fail "online: leaf $(calls leaf o.db) calls, not the parent's 30"

[ $status -eq 0 ] && echo "ok ($arch): fork once, twice, a grandchild: one run, a thread group per process"
exit $status
