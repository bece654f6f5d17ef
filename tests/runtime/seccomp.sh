#!/bin/sh
# seccomp.sh ZOND COLLECTOR MODE PROG CASE - progs/seccomp.c (CASE filter or
# strict) under `zond COLLECTOR` (record or libcalls) in time mode MODE
# (sampled, exact, none): it runs to the status and output it has alone
# (zond's runtime makes no system call of its own once the program is under
# seccomp), and the report's header says that the program went under
# seccomp, and what stopped (sampling; in strict mode the clock).
set -u
zond=$1 collector=$2 mode=$3 prog=$4 case=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
"$prog" "$case" >plain.out 2>&1
plain=$?
case $mode in
none) opt=--no-time ;;
*) opt="--time $mode" ;;
esac
# shellcheck disable=SC2086
"$zond" "$collector" -q $opt -o s.db -- "$prog" "$case" >zond.out 2>zond.err
status=$?
[ "$status" = "$plain" ] || fail "status $status under zond, $plain alone: $(cat zond.err)"
cmp -s plain.out zond.out || fail "output differs: $(diff plain.out zond.out)"
"$zond" report -i s.db >report.txt || fail "zond report"
grep -q "^warning: *seccomp ($case) from .* zond made no system call from then on" report.txt ||
	fail "the header does not say seccomp ($case): $(head -20 report.txt)"
if [ "$mode" = sampled ]; then
	grep -q "^warning: *seccomp.*sampling stopped" report.txt || fail "sampling stopped not said"
fi
if [ "$case" = strict ]; then
	grep -q "^warning: *seccomp.*the clock stopped there" report.txt || fail "the clock stop not said"
fi
echo "ok: status $status"
