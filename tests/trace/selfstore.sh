#!/bin/sh
# selfstore.sh - x86-64: generated code storing into its own page (a JIT's
# counter beside its code; self-modifying code) makes QEMU abandon the
# running block at the store and run the store again in a block of its own:
# it counts once.  Each page's calls and self cost equal QEMU's -d nochain
# log (one instruction per block there: nothing restarts), from a trace and
# --online alike.  Before, the store counted twice, with a jump to itself.
#
# Usage: selfstore.sh ZOND WORKDIR SRCDIR    (exit 77: qemu-x86_64 missing)
zond=$1 dir=$2/selfstore src=$3
command -v qemu-x86_64 >/dev/null || { echo "SKIP: no qemu-x86_64"; exit 77; }
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
. "$src/qlog.sh"
gcc -O1 -static -o s "$src/progs/selfstore.c" || { echo "FAIL: build"; exit 1; }
qlog q.log ./s >q.out || { echo "FAIL: qemu-x86_64 ./s"; exit 1; }
status=0
fail() { echo "FAIL: $*"; status=1; }
# FUNC's calls and self instructions in DB ("calls self")
stats() {
	"$zond" report -i "$1" --raw 2>/dev/null | awk -v f="$2" '$NF == f { print $1, $3 }'
}
# WHAT DB OUT: each page's calls and self cost; the pages as the run printed them
check() {
	set -- "$1" "$2" $(cat "$3")
	want0="100 $(qcount q.log $(cut -d' ' -f1 q.out) $(printf %x $((0x$(cut -d' ' -f1 q.out) + 4096))))"
	want1="10 $(qcount q.log $(cut -d' ' -f2 q.out) $(printf %x $((0x$(cut -d' ' -f2 q.out) + 4096))))"
	[ "$want0" = "100 400" ] && [ "$want1" = "10 30" ] || fail "QEMU's log: $want0, $want1"
	[ "$(stats "$2" "[0x$3]")" = "$want0" ] ||
		fail "$1: counter page: '$(stats "$2" "[0x$3]")', not $want0 (calls, instructions)"
	[ "$(stats "$2" "[0x$4]")" = "$want1" ] ||
		fail "$1: self-modifying page: '$(stats "$2" "[0x$4]")', not $want1"
	[ "$(stats "$2" main | cut -d' ' -f2)" = "$(qfunc q.log s main)" ] ||
		fail "$1: main ran '$(stats "$2" main)', QEMU's log $(qfunc q.log s main)"
}
"$zond" trace record -q -o s.ztrace -- ./s >out || fail "record: status $?"
"$zond" trace report -q -o s.db s.ztrace || fail "report"
check trace s.db out
"$zond" trace record -q --online -o o.db -- ./s >out || fail "online: status $?"
check online o.db out
[ $status -eq 0 ] && echo "selfstore: ok"
exit $status
