#!/bin/sh
# ljdeep.sh - after a longjmp out of a measured function (fail), measured
# calls made deeper in the stack than fail's frame was, with no call at or
# above its slot in between (ljdeep.c: qsort's comparator, handlers of
# signals main raises, on the stack and on a sigaltstack below it, a call
# from an unmeasured recursion) hang under main, not under fail: fail is a
# leaf in every stack and has no time of its own; counts exact.  Before,
# the dead frame stayed on the shadow stack (its slot lies above the new
# calls'): main;fail;cmp, main;fail;handler;work, fail's inclusive time
# theirs (QA s12 F1).
#
# Usage: ljdeep.sh ZOND LJDEEP WORKDIR
set -u
zond=$1 prog=$2 dir=$3/ljdeep
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
. "$(dirname "$0")/lib.sh"

"$prog" >plain.out || fail "ljdeep.c exits with status $? without zond"
"$zond" inject -q -o run.db -f main -f fail -f cmp -f handler -f work -- "$prog" >run.out 2>run.err
rc=$?
[ $rc -eq 0 ] || fail "exit status $rc under zond inject (plain: 0): $(cat run.err)"
cmp -s plain.out run.out || fail "output differs from the plain run's"
"$zond" dump -i run.db >run.dump || fail "zond dump"
compare_counts run.out run.dump
"$zond" export -i run.db -f folded >run.folded || fail "zond export -f folded"
grep -q 'fail;' run.folded && fail "calls filed under fail, left by longjmp: $(grep 'fail;' run.folded | tr '\n' ' ')"
for s in 'main;cmp' 'main;handler;work' 'main;work'; do
	grep -q "^$s " run.folded || fail "no stack $s: $(tr '\n' ' ' <run.folded)"
done
exit $status
