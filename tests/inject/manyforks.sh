#!/bin/sh
# manyforks.sh - 300 forked children (manyforks.c), more than the 256 shared
# blocks of a run (the main thread takes one, each child one while it
# lives): the output and status of a plain run; work's calls exactly those
# the program made (600000: the main thread's and every child's, the ended
# children's blocks given back for the later ones), no lost_process_calls,
# no inject_calls_never_returned (work always returns).  Before blocks of
# ended children were given back, the 45 children after the 255th measured
# nothing (lost_process_calls 45000); before that, they went on in their
# parent's block, racing it: calls lost without a word and a bogus
# inject_calls_never_returned (QA s11 F3).
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
for want in 'function main calls=1' 'function work calls=600000'; do
	grep -qx "$want" run.dump || fail "no '$want': $(grep -e '^function' -e '^lost' run.dump | tr '\n' ' ')"
done
"$zond" runs -i run.db >/dev/null
"$zond" report -i run.db >run.report 2>&1
! grep -q 'never_returned' run.report || fail "calls reported as never returned: $(grep never run.report)"
! grep -q '^lost' run.dump || fail "calls lost: $(grep '^lost' run.dump)"
! grep -q 'not measured' run.err || fail "$(cat run.err)"
exit $status
