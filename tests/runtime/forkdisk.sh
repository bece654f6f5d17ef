#!/bin/sh
# forkdisk.sh ZOND FORKMANY WORKDIR
#
# A process that makes few calls takes little disk: the runtime reserves its
# tables' blocks as they fill, not their whole layout (a slot's first
# functions, edges and contexts).  20 forked children, each with its raw file
# (--keep-raw), take under 3 MiB each (whole first context blocks reserved
# made it ~10 MiB each: a program forking 1,600 times filled 16 GB); their
# calls are all stored.
set -u
zond=$1 forkmany=$2 work=$3
rm -rf "$work"
mkdir -p "$work/tmp"
cd "$work" || exit 1
rc=0
fail() {
	echo "FAIL: $*"
	rc=1
}

TMPDIR=$work/tmp "$zond" record -q --keep-raw -o fd.db -- "$forkmany" 20 >out.txt 2>err.txt ||
	fail "record: $(cat err.txt)"
[ "$(cat out.txt)" = "work 200" ] || fail "the program's output: $(cat out.txt)"
"$zond" dump -i fd.db | grep -qx "function work calls=200" ||
	fail "work's calls: $("$zond" dump -i fd.db | grep work)"
raw=$(ls -d "$work"/tmp/zond-* 2>/dev/null | head -1)
files=$(ls "$raw"/*.zraw 2>/dev/null | wc -l)
[ "$files" -eq 21 ] || fail "21 raw files wanted, $files in $raw"
kib=$(du -sk "$raw" | cut -f1)
[ "$kib" -lt $((21 * 3072)) ] || fail "21 processes took $kib KiB of disk (3 MiB each at most)"
echo "21 processes: $kib KiB"
rm -rf "$raw"
exit $rc
