#!/bin/sh
# inject.sh - zond inject's functions scenario on programs that keep their
# own call counts ("count NAME N" lines): the program's output and status
# are those of a plain run, and zond's calls per function equal the
# program's counts (recursion, threads, longjmp, a signal handler on an
# alternate stack); --per-run 1 measures one function per run and the
# campaign's runs merged give the same counts; a program killed by SIGKILL
# keeps every call measured before.  Results are per thread (gettid).
#
# Usage: inject.sh ZOND CALLS CRASH THROWS FORKS CORO WORKDIR
set -u
zond=$1 calls=$2 crash=$3 throws=$4 forks=$5 coro=$6 dir=$7/inject
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
. "$(dirname "$0")/lib.sh"

"$calls" >plain.out
plain=$?
"$zond" inject -q -o one.db -- "$calls" >one.out
rc=$?
[ $rc -eq $plain ] || fail "exit status $rc under zond inject, $plain without"
diff -u plain.out one.out || fail "output differs under zond inject"
"$zond" dump -i one.db >one.dump || fail "zond dump"
compare_counts one.out one.dump
[ "$(grep -c '^count ' one.out)" -eq 11 ] || fail "the program printed no counts"
# Call edges, as calls.c makes them: leaf 1000 times from main's loop and once from
# each of 7 interrupted(); fib once from main, the rest from itself; thread_leaf
# from the 4 workers' loops; a handler's calls nest under the interrupted function.
for e in 'main -> leaf calls=1000' 'interrupted -> leaf calls=7' 'main -> fib calls=1' \
	'fib -> fib calls=1972' 'worker -> thread_leaf calls=20000' 'interrupted -> on_signal calls=7' \
	'on_signal -> handler_work calls=7' 'main -> jumper calls=10' \
	'main -> tail_top calls=100' 'tail_top -> tail_mid calls=100' 'main -> tail_mid calls=50' \
	'tail_mid -> tail_callee calls=150'; do
	grep -qx "call $e" one.dump || fail "no edge '$e': $(grep "^call .*${e%% *}" one.dump)"
done
# Calling contexts, as calls.c makes them (the paths from main and the
# workers; calls counted at entry, so paths longjmp left count too):
# tail calls nested as the calls they replace (the caller's frame lives on),
# fib(15)'s calls per depth of its recursion, deep's per level under jumper
# (levels i % 4 for i < 10), a handler's calls under the function it interrupted.
python3 - >contexts.want <<'PY'
def fib(n, depth, per):
    per[depth] = per.get(depth, 0) + 1
    if n >= 2:
        fib(n - 1, depth + 1, per)
        fib(n - 2, depth + 1, per)
per = {}
fib(15, 1, per)
lines = ["main calls=1", "main;leaf calls=1000", "main;jumper calls=10",
         "main;interrupted calls=7", "main;interrupted;leaf calls=7",
         "main;interrupted;on_signal calls=7", "main;interrupted;on_signal;handler_work calls=7",
         "worker calls=4", "worker;thread_leaf calls=20000",
         "main;tail_top calls=100", "main;tail_top;tail_mid calls=100",
         "main;tail_top;tail_mid;tail_callee calls=100", "main;tail_mid calls=50",
         "main;tail_mid;tail_callee calls=50"]
lines += ["main;" + ";".join(["fib"] * d) + " calls=%d" % n for d, n in per.items()]
levels = [i % 4 for i in range(10)]
for d in range(1, 5):
    lines.append("main;jumper;" + ";".join(["deep"] * d) + " calls=%d" % sum(l >= d - 1 for l in levels))
for l in sorted("context " + x for x in lines):
    print(l)
PY
grep -E '^context (main|worker)( |;)' one.dump | LC_ALL=C sort >contexts.got
LC_ALL=C sort contexts.want | diff -u - contexts.got || fail "calling contexts differ from the program's"

# Per thread: main and 4 workers, each worker 5000 calls of thread_leaf (PER_THREAD).
grep -qx 'threads 5' one.dump || fail "not 5 threads: $(head -1 one.dump)"
n=$("$zond" report -i one.db --per-thread | grep -c ' 5000 .* thread_leaf$')
[ "$n" -eq 4 ] || fail "thread_leaf: $n threads with 5000 calls, not 4"

# Times are in ns: main's inclusive time (the payload's units, finer than a
# counter tick, converted with their own rate) lies within the run's duration.
"$zond" export -f json -i one.db | python3 -c '
import json, sys
d = json.load(sys.stdin)
main = [n for n in d["nodes"] if n["name"] == "main"][0]
if not 0 < main["incl"]["time"] <= d["run"]["duration_ns"]:
	sys.exit("main: %d ns inclusive, the run took %d ns" % (main["incl"]["time"], d["run"]["duration_ns"]))
' || fail "main's time is not within the run's"

# One function per run, every counted function; the campaign merges them.
set -- $(grep '^count ' plain.out | awk '{ printf "-f %s ", $2 }')
"$zond" inject -q -o per.db --per-run 1 -c percall "$@" -- "$calls" >per.out 2>per.err
rc=$?
[ $rc -eq $plain ] || fail "--per-run 1: exit status $rc"
nf=$(grep -c '^count ' plain.out)
[ "$("$zond" runs -i per.db | grep -c '\[percall\]')" -eq "$nf" ] || fail "--per-run 1: not $nf runs"
"$zond" dump -i per.db -C percall >per.dump || fail "zond dump -C"
compare_counts plain.out per.dump
[ "$(grep -c '^function ' per.dump)" -eq "$nf" ] || fail "--per-run 1: not the $nf functions asked"
# its runs measured different functions: the merged self times take out the callees
# measured elsewhere by the call graph pass (campaign percall.graph, QA s12 R F3,
# combine.sh); a campaign of one run says nothing of it
"$zond" report -i per.db -C percall >per.report 2>&1 || fail "zond report -C percall"
[ "$(grep -c '^self: *callees measured in other runs taken out' per.report)" -eq 1 ] ||
	fail "--per-run 1: report -C does not say its self times are corrected by the call graph"
grep -q 'the runs measured different functions' per.report &&
	fail "--per-run 1: report -C warns although the call graph is there"
for i in 1 2; do "$zond" inject -q -o same.db -c same "$@" -- "$calls" >/dev/null 2>&1; done
"$zond" report -i same.db -C same >same.report 2>&1 || fail "zond report -C same"
[ "$(grep -c 'the runs measured different functions' same.report)" -eq 0 ] ||
	fail "two runs of the same functions: report -C warns of different functions"

# The descend scenario with no pruning (--threshold 0): every function the
# first pass's call graph reaches from the roots is measured, one a run, with
# the program's own counts (deep is reached through no edge: longjmp drops
# its frames before they return, so it has none and is never reached).
"$zond" inject -q -o descend.db --descend --threshold 0 -c dsc -- "$calls" >descend.out
rc=$?
[ $rc -eq $plain ] || fail "--descend: exit status $rc"
"$zond" dump -i descend.db -C dsc >descend.dump || fail "zond dump -C dsc"
grep -v '^count deep ' one.out >descend.counts
compare_counts descend.counts descend.dump
grep -q '^function deep ' descend.dump && fail "--descend measured deep, which no edge reaches"
runs=$("$zond" runs -i descend.db | grep -c '\[dsc\]')
[ "$runs" -eq "$(grep -c '^function ' descend.dump)" ] || fail "--descend: $runs runs, not one per function"
# --threshold 5: roots are pruned like callees where their own first-pass
# time is under the threshold (QA s11 F7: _init, frame_dummy,
# __do_global_dtors_aux and _fini each took a run of their own); main runs.
# A root whose first pass gave no time (0 ns: _fini here, or a main that never
# returns, whose callees were then never descended into) is measured.
"$zond" inject -o d5.db --descend --threshold 5 -c d5 -- "$calls" >d5.out 2>d5.err
"$zond" dump -i d5.db -C d5 >d5.dump || fail "zond dump -C d5"
for f in _init frame_dummy __do_global_dtors_aux; do
	grep -q "^zond inject: pruned $f: bound [0-9]* ns, under 5% of " d5.err ||
		fail "--descend --threshold 5: root $f not pruned: $(grep "$f" d5.err)"
	! grep -q "^function $f " d5.dump || fail "--descend --threshold 5: root $f measured"
done
grep -qx 'function main calls=1' d5.dump || fail "--descend --threshold 5: main not measured"
# --from fib: fib only (its one callee is itself).
"$zond" inject -q -o from.db --descend --from fib -c fr -- "$calls" >/dev/null
"$zond" dump -i from.db -C fr >from.dump
[ "$(grep '^function ' from.dump)" = "function fib calls=1973" ] ||
	fail "--descend --from fib: $(grep '^function ' from.dump | tr '\n' ' ')"

# C++ exceptions through measured functions (without zond's probe at the
# unwinder's entry the program would terminate: the unwinder cannot walk
# through a replaced return address).
"$throws" >throws.plain
plain=$?
"$zond" inject -q -o throws.db -f thrower -f middle -f catcher -f main -- "$throws" >throws.out
rc=$?
[ $rc -eq $plain ] || fail "C++ exceptions: exit status $rc under zond inject, $plain without"
diff -u throws.plain throws.out || fail "C++ exceptions: output differs"
"$zond" dump -i throws.db >throws.dump || fail "zond dump (throws)"
compare_counts throws.out throws.dump

# fork inside a measured function: the child returns through its own copy
# of the frames, and counts on a thread of its own while the parent runs.
"$forks" >forks.plain
plain=$?
"$zond" inject -q -o forks.db -f work -f in_fork -- "$forks" >forks.out
rc=$?
[ $rc -eq $plain ] || fail "fork: exit status $rc under zond inject, $plain without"
diff -u forks.plain forks.out || fail "fork: output differs"
"$zond" dump -i forks.db >forks.dump || fail "zond dump (forks)"
compare_counts forks.out forks.dump
grep -qx 'threads 2' forks.dump || fail "fork: the child is not a thread of its own: $(grep threads forks.dump)"

# The program's descriptors are those zond inherited (fd 7 here), not zond's
# own: libdw opens a library's separate debug file (libc6-dbg) and its
# debuginfod client a socket pair without O_CLOEXEC, which the program once
# inherited.
ls /proc/self/fd 7</dev/null >fds.plain
"$zond" inject -q -o fds.db -f 'libc.so.6:opendir' -- ls /proc/self/fd 7</dev/null >fds.out ||
	fail "zond inject ls: status $?"
diff -u fds.plain fds.out || fail "the program's descriptors differ under zond inject"

# Coroutines (swapcontext): calls return on another stack than the one the
# thread made its last measured call on; frames of the other stack are
# given their real return address back, never a return into the payload
# without a frame (the program's sums changed, or it crashed).
"$coro" >coro.plain
for f in "-f step_a -f step_b" "-f yield_to" ""; do
	# shellcheck disable=SC2086
	"$zond" inject -q -o coro.db $f -- "$coro" >coro.out
	rc=$?
	[ $rc -eq 0 ] || fail "coroutines ($f): exit status $rc"
	diff -u coro.plain coro.out || fail "coroutines ($f): output differs"
done
"$zond" dump -i coro.db >coro.dump || fail "zond dump (coro)"
compare_counts coro.plain coro.dump

# A program killed by SIGKILL: its measured calls are stored, zond says 128+9.
"$zond" inject -q -o crash.db -f count -- "$crash" x >crash.out
rc=$?
[ $rc -eq 137 ] || fail "killed program: zond exit status $rc, not 137"
"$zond" dump -i crash.db >crash.dump || fail "zond dump (crash)"
compare_counts crash.out crash.dump
grep -q 'count count 302' crash.out || fail "crash program output: $(cat crash.out)"

[ $status -eq 0 ] && echo "inject: ok"
exit $status
