#!/bin/sh
# Every view built from the timeline (--time windows, chrome) rebuilds calls
# from enter and exit events; on programs that switch stacks it must keep
# each call under its real callers, as the whole run's profile does.  The
# programs are tests/runtime's: swapcontext coroutines (coroutines.c), more
# of them than a fixed stash held and one resumed in a forked child
# (manycoro.c), getcontext/setcontext ones (setcontext.c), and a forked child
# continuing its parent's calls (fork.c).  For each, `zond dump --time 0~`
# and `zond export -f folded -e calls --time 0~` must equal the whole run's,
# and the stacks must be the program's own.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

# "path calls" lines of the folded export, sorted
folded() {
	"$ZOND" export -f folded -e calls "$@" -o - | sort
}
# the dump's stacks, edges and counts
dumped() {
	"$ZOND" dump "$@" | grep -E '^(function|call|context) '
}

for prog in coroutines manycoro setcontext fork; do
	case $prog in
	coroutines) bin=$COROUTINES ;;
	manycoro) bin=$MANYCORO ;;
	setcontext) bin=$SETCONTEXT ;;
	fork) bin=$FORK ;;
	esac
	"$ZOND" record --timeline -q -o $prog.db -- "$bin" >$prog.out 2>$prog.err ||
		fail "$prog: record --timeline"
	dumped -i $prog.db >$prog.run.txt
	dumped -i $prog.db --time 0~ >$prog.win.txt
	check_same "$prog: dump --time 0~ is the run's" $prog.run.txt $prog.win.txt
	folded -i $prog.db >$prog.run.folded
	folded -i $prog.db --time 0~ >$prog.win.folded
	check_same "$prog: folded --time 0~ is the run's" $prog.run.folded $prog.win.folded
done

# the programs' own stacks (calls)
check_eq "coroutines: stacks" "$(tr '\n' '|' <coroutines.win.folded)" \
	"coro 2|coro;step 4|coro;step;work 7|coro;step;yield_to_main 4|main 1|main;resume 5|"
check_eq "setcontext: stacks" "$(tr '\n' '|' <setcontext.win.folded)" \
	"gen 1|gen;step 10|gen;step;leaf 20|main 1|main;consume 11|main;consume;leaf 11|"
check_eq "fork: stacks" "$(tr '\n' '|' <fork.win.folded)" \
	"main 1|main;after 1|main;before 1|main;spawn 1|main;spawn;child_work 3|"
check_eq "manycoro: stacks" "$(grep -v '^dive' manycoro.win.folded | tr '\n' '|')" \
	"main 1|main;make 1503|task 1501|task;step 3001|task;step;after 3000|task;step;after;leaf 3000|task;step;leaf 3001|"
check_eq "manycoro: the deep coroutines" "$(grep -c '^dive' manycoro.win.folded)" 135
check_eq "manycoro: the child's calls on a stack parked in its parent" \
	"$(grep -E '^function (after|step|leaf) ' manycoro.win.txt | tr '\n' '|')" \
	"function after calls=3001|function leaf calls=6141|function step calls=3002|"
"$ZOND" report -i manycoro.db --time 0~ >manycoro.report 2>&1
check_eq "manycoro: counted, not filed under other callers" \
	"$(grep -c 'lost_stack_calls = 4' manycoro.report)" 1

# chrome: main spans every call of its own stack, in pieces: a call's span ends where its
# stack is switched away and goes on where it is back (args continued, suspended), so that
# no two spans of one thread overlap but by nesting (a suspended coroutine's spans went on
# under the other stack's, its time counted twice)
"$ZOND" export -f chrome -i coroutines.db -o coroutines.json || fail "export chrome"
python3 - coroutines.json >chrome.txt <<'PY' || fail "chrome: not read"
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))['traceEvents'] if e.get('ph') == 'X']
mains = [e for e in ev if e['name'] == 'main']
resumes = [e for e in ev if e['name'] == 'resume']
eps = 0.0005  # times in us with ns digits: the sums' rounding
inside = [r for r in resumes if any(m['ts'] <= r['ts'] + eps and
                                    r['ts'] + r['dur'] <= m['ts'] + m['dur'] + eps for m in mains)]
calls = [r for r in resumes if not r.get('args', {}).get('continued')]
ev.sort(key=lambda e: (e['ts'], -e['dur']))
crossed = sum(1 for i, a in enumerate(ev) for b in ev[i + 1:]
              if b['ts'] + eps < a['ts'] + a['dur'] < b['ts'] + b['dur'] - eps)
print(len(inside) == len(resumes), len(calls), crossed)
PY
check_eq "chrome: every resume inside main, 5 calls, no spans crossing" "$(cat chrome.txt)" "True 5 0"
finish
