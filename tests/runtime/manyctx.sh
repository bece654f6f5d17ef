#!/bin/sh
# manyctx.sh ZOND RUNTIME RAWDUMP RECORD_PROG LIBCALLS_PROG WORKDIR
#
# A thread with more calling contexts than the old fixed pool (65536): the
# programs walk a binary tree of calls, 131071 calls each on a path of its
# own, and print every path (progs/manyctx.c).  `zond record` and `zond
# libcalls` keep all of them: the folded stacks with call counts are exactly
# the printed paths.  With a pool of 1000 the overflow is counted exactly
# (131071 calls less the 999 contexts that fit), never a crash.  On a file
# system with room for part of the pool but not the next doubling (a small
# tmpfs, when this user may mount one), the pool ends there: the
# program's output is unchanged, and the lost calls are counted.
set -u
. "$(dirname "$0")/tmpfs.sh"
zond=$1 runtime=$2 rawdump=$3 rec=$4 lib=$5 work=$6
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1
rc=0
depth=16
calls=131071

fail() {
	echo "FAIL: $*"
	rc=1
}

# truth PREFIX: the program's printed paths as folded stacks under PREFIX, one call each
truth() {
	grep -E '^[lr]+$' plain.txt |
		sed -e 's/l/;lc_l/g' -e 's/r/;lc_r/g' -e "s|^|$1|" -e 's/$/ 1/'
}

# check NAME STORE EXPECTED_FOLDED: the run's folded call counts are exactly the expected ones
check() {
	"$zond" export -f folded -e calls -i "$2" >folded.txt 2>err.txt ||
		fail "$1: export failed: $(cat err.txt)"
	LC_ALL=C sort folded.txt >got.txt
	LC_ALL=C sort "$3" >want.txt
	cmp -s got.txt want.txt ||
		fail "$1: stacks differ from the program's paths: $(diff want.txt got.txt | head -5)"
}

"$rec" $depth >plain.txt
[ "$(tail -n 1 plain.txt)" = "calls lc_l 65536 lc_r 65535" ] || fail "the program: $(tail -n 1 plain.txt)"
[ "$(grep -cE '^[lr]+$' plain.txt)" = $calls ] || fail "the program printed no $calls paths"

# zond record: main, then the tree
{ echo "main 1"; truth main; } >want_rec.txt
"$zond" record -q -o rec.db -- "$rec" $depth >out.txt 2>err.txt
cmp -s out.txt plain.txt || fail "record: the program's output changed"
[ -s err.txt ] && fail "record: $(cat err.txt)"
check record rec.db want_rec.txt

# zond libcalls: root calls under the calling module
"$zond" libcalls -q -f 'lc_*' -o lib.db -- "$lib" $depth >out.txt 2>err.txt
cmp -s out.txt plain.txt || fail "libcalls: the program's output changed"
[ -s err.txt ] && fail "libcalls: $(cat err.txt)"
truth "[$(realpath "$lib")]" >want_lib.txt
check libcalls lib.db want_lib.txt

# a pool of 1000: the first 999 calls in it (one context is main's, or the
# calling module's), every later call counted as lost
for tool in record libcalls; do
	if [ $tool = record ]; then
		set -- -- "$rec"
	else
		set -- -f 'lc_*' -- "$lib"
	fi
	"$zond" $tool -q --contexts 1000 -o small_$tool.db "$@" $depth >out.txt 2>err.txt
	cmp -s out.txt plain.txt || fail "$tool --contexts 1000: the program's output changed"
	grep -q "lost_contexts = $((calls - 999))" err.txt ||
		fail "$tool --contexts 1000: not $((calls - 999)) lost: $(cat err.txt)"
	# the calling module's root context has no calls of its own: no stack
	want=1000
	[ $tool = libcalls ] && want=999
	n=$("$zond" export -f folded -e calls -i small_$tool.db | wc -l)
	[ "$n" -eq $want ] || fail "$tool --contexts 1000: $n stacks, not $want"
done

# a file system with room for the pool's first 65536 contexts only (it doubles its
# reserved part: 4096, 8192, ..., 65536, then 131072 wanted ~5 MiB more)
mnt=$work/mnt
if ! mount_tmpfs "$mnt" 8m; then
	echo "SKIP (full file system part): cannot mount a tmpfs here (needs root, no container limits)"
	exit $rc
fi
ZOND_DIR=$mnt LD_PRELOAD=$runtime "$rec" $depth >out.txt 2>&1
echo "status $?" >>out.txt
{ cat plain.txt; echo "status 0"; } | cmp -s - out.txt || fail "tmpfs: the program changed"
"$rawdump" -m "$mnt" >dump.txt 2>&1 || fail "tmpfs: rawdump: $(cat dump.txt)"
# the reserved part holds main's context and 65535 of the tree's
for line in "meta lost_room 1" "meta lost_contexts $((calls - 65535))" \
	"function lc_l calls=65536" "function lc_r calls=65535"; do
	grep -qx "$line" dump.txt || fail "tmpfs: no '$line' in: $(grep meta dump.txt)"
done
exit $rc
