#!/bin/sh
# sharedtls.sh - a clone(CLONE_VM) child sharing its parent's thread pointer
# (sharedtls.c: no CLONE_SETTLS) runs measured code at the same time as its
# parent: the program's output and status as without zond, in two runs;
# the 10 calls of work() (and 20 of leaf2()) the parent made before the
# clone measured, every call after it not measured but counted: meta
# lost_shared_tls_calls 12000001 (2 x 2,000,000 work, twice as many leaf2,
# child), zond's line naming the cause.  Before, both tasks pushed and
# popped one shadow stack: SIGSEGV or garbage statuses in every run (QA s11
# F1).
#
# Usage: sharedtls.sh ZOND SHAREDTLS WORKDIR
set -u
zond=$1 prog=$2 dir=$3/sharedtls
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
. "$(dirname "$0")/lib.sh"

"$prog" >plain.out || fail "sharedtls.c exits with status $? without zond"
for i in 1 2; do
	"$zond" inject -q -o "run$i.db" -f main -f child -f work -f leaf2 -- "$prog" >"run$i.out" 2>"run$i.err"
	rc=$?
	[ $rc -eq 0 ] || fail "run $i: exit status $rc under zond inject (plain: 0)"
	cmp -s plain.out "run$i.out" || fail "run $i: output $(cat "run$i.out"), plain $(cat plain.out)"
	"$zond" dump -i "run$i.db" >"run$i.dump" || fail "run $i: zond dump"
	for want in 'function main calls=1' 'function work calls=10' 'function leaf2 calls=20' \
		'lost_shared_tls_calls 12000001'; do
		grep -qx "$want" "run$i.dump" || fail "run $i: no '$want': $(grep -e '^function' -e '^lost' "run$i.dump" | tr '\n' ' ')"
	done
	grep -q 'sharing one thread pointer (clone with CLONE_VM and without CLONE_SETTLS)' "run$i.err" ||
		fail "run $i: no line naming the cause: $(cat "run$i.err")"
done
exit $status
