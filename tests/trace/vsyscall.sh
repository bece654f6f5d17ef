#!/bin/sh
# vsyscall.sh - x86-64: a call into the legacy vsyscall page, which qemu-user
# emulates without mapping it (QEMU lists its instruction with no bytes),
# keeps the run: the plugin records it as the return it acts as, its code
# named by page; leaf's calls, every function's self cost and the page's own
# equal QEMU's -d nochain log, from a trace and --online alike.  Before, the
# recording failed ("a translated block too large to record") and lost all.
#
# Usage: vsyscall.sh ZOND WORKDIR SRCDIR    (exit 77: qemu-x86_64 missing)
zond=$1 dir=$2/vsyscall src=$3
command -v qemu-x86_64 >/dev/null || { echo "SKIP: no qemu-x86_64"; exit 77; }
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
. "$src/qlog.sh"
gcc -O1 -static -o v "$src/progs/vsyscall.c" || { echo "FAIL: build"; exit 1; }
qlog q.log ./v >want.out || { echo "FAIL: qemu-x86_64 ./v"; exit 1; }
page=ffffffffff600000
status=0
fail() { echo "FAIL: $*"; status=1; }
# FUNC's calls and self instructions in DB ("calls self")
stats() {
	"$zond" report -i "$1" --raw 2>/dev/null | awk -v f="$2" '$NF == f { print $1, $3 }'
}
check() {
	what=$1 db=$2
	for f in leaf main; do
		want=$(qfunc q.log v $f)
		got=$(stats "$db" $f)
		[ "${got#* }" = "$want" ] || fail "$what: $f ran '${got#* }' instructions, QEMU's log $want"
	done
	[ "$(stats "$db" leaf)" = "20 $(qfunc q.log v leaf)" ] || fail "$what: leaf: '$(stats "$db" leaf)', not 20 calls"
	want=$(qcount q.log $page ffffffffff601000)
	got=$(stats "$db" "[0x$page]")
	[ "$got" = "1 $want" ] || fail "$what: the vsyscall page: '$got', not 1 call of $want instructions"
}
"$zond" trace record -q -o v.ztrace -- ./v >out 2>err || fail "record: status $?: $(cat err)"
cmp -s out want.out || fail "record: the program's output differs"
[ -s err ] && fail "record said: $(cat err)"
"$zond" trace report -q -o v.db v.ztrace 2>err || fail "report: $(cat err)"
check trace v.db
"$zond" trace record -q --online -o o.db -- ./v >out 2>err || fail "online: status $?: $(cat err)"
[ -s err ] && fail "online said: $(cat err)"
check online o.db
[ $status -eq 0 ] && echo "vsyscall: ok"
exit $status
