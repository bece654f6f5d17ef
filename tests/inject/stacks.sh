#!/bin/sh
# stacks.sh - zond inject where a thread's returns are not those of one
# stack of calls: the program's output and status must be those of a plain
# run whatever is measured, its counts ("count NAME N") zond's, and what
# zond could not time or measure said in the stored run.
#   - makecontext/swapcontext coroutines (ucontext.c): every function
#     measured, and each alone;
#   - C++ exceptions (excs.cpp): rethrow, nested try, a destructor that
#     throws and catches while another exception unwinds, std::terminate;
#   - a caught exception (exctime.cpp): the frames still live where it was
#     caught keep their times, and what runs after main is not under it;
#   - recursion past the shadow stack's 256 frames (deep.c): the report's
#     header and zond dump say how many calls were not measured.
#
# Usage: stacks.sh ZOND UCONTEXT EXCS EXCTIME DEEP WORKDIR
set -u
zond=$1 uctx=$2 excs=$3 exctime=$4 deep=$5 dir=$6/stacks
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
. "$(dirname "$0")/lib.sh"

# same_run WHAT PLAIN_OUT PLAIN_RC OUT RC: output and status as without zond.
same_run() {
	[ "$5" -eq "$3" ] || fail "$1: exit status $5 under zond inject, $3 without"
	diff -u "$2" "$4" >/dev/null || fail "$1: output differs: $(diff "$2" "$4" | head -5)"
}

# Coroutines: with every function measured and with each alone.
"$uctx" >uc.plain
plain=$?
for f in "" run step work yield_ coro main; do
	"$zond" inject -q -o "uc$f.db" ${f:+-f "$f"} -- "$uctx" >uc.out 2>uc.err
	same_run "ucontext (${f:-every function})" uc.plain $plain uc.out $?
	"$zond" dump -i "uc$f.db" >uc.dump || fail "zond dump (ucontext $f)"
	if [ -n "$f" ]; then
		grep "^count $f " uc.plain >uc.want || echo "count main 1" >uc.want
	else
		cp uc.plain uc.want
	fi
	compare_counts uc.want uc.dump
done
# The frames open across a switch lost their times: said in the run, the report and at the end.
"$zond" report -i uc.db | grep -q '^warning: *inject_calls_untimed = [1-9]' ||
	fail "ucontext: the report does not say calls were counted without their time"
grep -q 'counted without their time' uc.err || fail "ucontext: zond did not say so at the end"

# Exceptions: every function measured; then std::terminate (SIGABRT).
"$excs" >ex.plain
plain=$?
"$zond" inject -q -o ex.db -- "$excs" >ex.out 2>ex.err
same_run "exceptions" ex.plain $plain ex.out $?
"$zond" dump -i ex.db >ex.dump || fail "zond dump (exceptions)"
compare_counts ex.plain ex.dump
grep -qx 'function Guard::~Guard() calls=20' ex.dump ||
	fail "exceptions: ~Guard: $(grep Guard ex.dump | head -1)"
"$excs" terminate >ext.plain 2>/dev/null
plain=$?
"$zond" inject -q -o ext.db -- "$excs" terminate >ext.out 2>/dev/null
same_run "std::terminate" ext.plain $plain ext.out $?

# A caught exception: catcher, heavy and main return measured, with their times.
"$exctime" >et.plain
plain=$?
"$zond" inject -q -o et.db -- "$exctime" >et.out 2>et.err
same_run "caught exception" et.plain $plain et.out $?
"$zond" dump -i et.db >et.dump || fail "zond dump (caught exception)"
compare_counts et.plain et.dump
"$zond" export -f json -i et.db | python3 -c '
import json, sys
d = json.load(sys.stdin)
t = {n["name"]: n["incl"]["time"] for n in d["nodes"]}
work = t.get("work", 0)
bad = [f for f in ("main", "heavy") if not t.get(f, 0) > work]
if bad or not t.get("catcher", 0) > 0:
	sys.exit("inclusive ns: %s (main and heavy must exceed work, catcher be > 0)" %
		 {f: t.get(f) for f in ("main", "heavy", "catcher", "work")})
' || fail "caught exception: times of the frames it left live"
"$zond" export -f folded -e calls -i et.db >et.folded || fail "zond export (caught exception)"
grep -E '^main;.*(_fini|__do_global_dtors_aux)' et.folded &&
	fail "caught exception: code run after main returned is filed under main"

# Deeper than the shadow stack: the run says how many calls were not measured.
"$deep" >dp.plain
"$zond" inject -q -o dp.db -- "$deep" >dp.out 2>dp.err
diff -u dp.plain dp.out || fail "deep: output differs"
grep -q 'deeper than the 256 frames' dp.err || fail "deep: no line at the end with -q"
"$zond" dump -i dp.db >dp.dump || fail "zond dump (deep)"
grep -qx 'lost_depth_calls 745' dp.dump || fail "deep: zond dump says $(sed -n 2p dp.dump)"
"$zond" report -i dp.db | grep -q '^warning: *lost_depth_calls = 745 ' ||
	fail "deep: no warning in the report's header"

[ $status -eq 0 ] && echo "stacks: ok"
exit $status
