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

# The stacks a child runs in: the ones of its fork (forkstack.c prints each process's own calls
# per stack of its own functions).  Per process, zond's folded calls of its threads, kept to the
# stacks that end in the program's functions and cut to those functions, equal the process's
# own list; every stack of a child starts at a root of its parent's stacks (a child's started
# inside the fork wrapper: main under __libc_fork, called twice); main is called once.  Forks
# from a deep call chain, a grandchild from deeper still, vfork + exec and posix_spawn, and a
# fork from a second thread.
$cc -O1 -g -static -pthread -o forkstack "$src/forkstack.c" || { fail "build forkstack"; exit 1; }
own="main tmain deep1 deep2 deep3 forker nested work leaf spawn"
# folded PID: the calls of every thread of process PID in s.db
folded() {
	for t in $threads; do
		[ "${t%/*}" = "$1" ] && "$zond" export -i s.db --tid "$t" -f folded -e calls
	done
}
for mode in plain nest spawn thread; do
	name="forkstack $mode"
	rm -f s.db s.ztrace s.ztrace.*
	"$zond" trace record -q -o s.ztrace -- ./forkstack $mode >zond.out 2>err.txt ||
		fail "$name: record returned $?: $(cat err.txt)"
	"$zond" trace report -q -o s.db s.ztrace 2>err.txt || fail "$name: report: $(cat err.txt)"
	# the exec'ing children's traces end at their exec: said, nothing else
	grep -v "cut short at offset .* (the process died or exec'd)" err.txt >other.txt
	[ -s other.txt ] && fail "$name: report said: $(cat other.txt)"
	threads=$("$zond" report -i s.db --per-thread 2>&1 | sed -n 's/^thread \([0-9]*\/[0-9]*\):.*/\1/p')
	pids=$(for t in $threads; do echo ${t%/*}; done | uniq)
	want=2 # the parent and its child; a grandchild; two exec'ing children
	[ $mode = nest ] && want=3
	[ $mode = spawn ] && want=4
	[ "$(echo "$pids" | wc -l)" = $want ] || fail "$name: $(echo $pids) processes in the run, not $want"
	# the parent's roots (read first): _start, and a second thread's start
	parent=$(echo "$pids" | head -1)
	folded $parent | awk '{ split($1, f, ";"); print f[1] }' | sort -u >roots.txt
	for pid in $pids; do
		sed -n "s/^pid $pid stack //p" zond.out | sort >want.txt
		folded $pid | awk -v own="$own" '
			BEGIN { split(own, o, " "); for (i in o) mine[o[i]] = 1 }
			{ n = split($1, f, ";"); if (!(f[n] in mine)) next
			  s = ""; for (i = 1; i <= n; i++) if (f[i] in mine) s = s (s == "" ? "" : ";") f[i]
			  sum[s] += $2 }
			END { for (s in sum) print s, sum[s] }' | sort >got.txt
		cmp -s want.txt got.txt || fail "$name: process $pid: stacks differ (< its own, > zond): $(diff want.txt got.txt | grep '^[<>]' | head -5)"
		bad=$(folded $pid | awk 'FILENAME == "roots.txt" { r[$1] = 1; next }
			{ split($1, f, ";") } !(f[1] in r)' roots.txt - | head -2)
		[ -z "$bad" ] || fail "$name: process $pid: stacks that do not start at a root of its parent's: $bad"
	done
	[ "$(calls main s.db)" = 1 ] || fail "$name: main called $(calls main s.db) times"
done

# Format versions: forked children's headers made the format version 3; a version 2 trace (one
# with this header, which the version 2 format has) reads the same, a version 4 one is refused
# in one line.
for v in 2 3 4; do
	cp s.ztrace v$v.ztrace
	printf "\\00$v" | dd of=v$v.ztrace bs=1 seek=8 conv=notrunc 2>/dev/null
	rm -f v$v.db
	"$zond" trace report -q -o v$v.db v$v.ztrace 2>err$v.txt
	echo $? >rc$v.txt
done
[ "$(cat rc2.txt rc3.txt)" = "0
0" ] || fail "versions 2 and 3 not read: $(cat err2.txt err3.txt)"
"$zond" dump -i v2.db >d2.txt && "$zond" dump -i v3.db >d3.txt && cmp -s d2.txt d3.txt ||
	fail "a version 2 trace reads otherwise than the same as version 3"
[ "$(cat rc4.txt)" != 0 ] && [ "$(cat err4.txt)" = "zond trace: v4.ztrace: offset 8: trace format version 4, this zond reads 2 to 3" ] ||
	fail "version 4: exit $(cat rc4.txt), said: $(cat err4.txt)"

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
