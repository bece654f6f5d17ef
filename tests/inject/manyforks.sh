#!/bin/sh
# manyforks.sh - 300 forked children (manyforks.c), more than the 256 shared
# blocks of a run (the main thread takes one, each child one for the whole
# run): the output and status of a plain run; work's calls exactly those
# of the main thread (300000) and of the 255 children that got a block
# (255000); the 45 children without one measure nothing and their calls are
# counted: meta lost_process_calls 45000, zond's line naming the cause; no
# inject_calls_never_returned (work always returns).  Before, those
# children went on in their parent's block, racing it: calls lost without a
# word and a bogus inject_calls_never_returned (QA s11 F3).
#
# Usage: manyforks.sh ZOND MANYFORKS WORKDIR
set -u
zond=$1 prog=$2 dir=$3/manyforks
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
. "$(dirname "$0")/lib.sh"

"$prog" >plain.out || fail "manyforks.c exits with status $? without zond"
"$zond" inject -q -o run.db -f main -f work -- "$prog" >run.out 2>run.err
rc=$?
[ $rc -eq 0 ] || fail "exit status $rc under zond inject (plain: 0)"
cmp -s plain.out run.out || fail "output $(cat run.out), plain $(cat plain.out)"
"$zond" dump -i run.db >run.dump || fail "zond dump"
for want in 'function main calls=1' 'function work calls=555000' 'lost_process_calls 45000'; do
	grep -qx "$want" run.dump || fail "no '$want': $(grep -e '^function' -e '^lost' run.dump | tr '\n' ' ')"
done
"$zond" runs -i run.db >/dev/null
"$zond" report -i run.db >run.report 2>&1
! grep -q 'never_returned' run.report || fail "calls reported as never returned: $(grep never run.report)"
grep -q 'made in forked children after the 256 blocks of a run were taken' run.err ||
	fail "no line naming the cause: $(cat run.err)"
exit $status
