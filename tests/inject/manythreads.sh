#!/bin/sh
# manythreads.sh - 300 short threads one after another, never two alive,
# none reusing an ended one's stack (manythreads.c): the output and status
# of a plain run; the first 256 threads take the run's 256 slots (main makes
# no measured call), the last 44 threads' 4400 calls of work() are counted,
# not measured (lost_thread_calls 4400, work 25600), and zond's line says why:
# slots are kept for the whole run, an ended thread's too.  Before, the line
# said "threads beyond the 256 it has slots for", as if 256 were alive at
# once (QA s11 F5).
#
# Usage: manythreads.sh ZOND MANYTHREADS WORKDIR
set -u
zond=$1 prog=$2 dir=$3/manythreads
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
. "$(dirname "$0")/lib.sh"

"$prog" >plain.out || fail "manythreads.c exits with status $? without zond"
"$zond" inject -q -o run.db -f work -- "$prog" >run.out 2>run.err
rc=$?
[ $rc -eq 0 ] || fail "exit status $rc under zond inject (plain: 0)"
cmp -s plain.out run.out || fail "output $(cat run.out), plain $(cat plain.out)"
"$zond" dump -i run.db >run.dump || fail "zond dump"
for want in 'function work calls=25600' 'lost_thread_calls 4400'; do
	grep -qx "$want" run.dump || fail "no '$want': $(grep -e '^function' -e '^lost' run.dump | tr '\n' ' ')"
done
grep -q "4400 on threads started after the run's 256 thread slots were taken (each thread keeps its slot for the whole run, an ended one too" run.err ||
	fail "the line does not say why: $(cat run.err)"
exit $status
