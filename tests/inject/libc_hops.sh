#!/bin/sh
# libc_hops.sh - glibc's memcpy family on this machine's libc: each
# __memcpy_* that its __mempcpy_* enters at +3 is a hop in --coverage (not
# refused); a program calling memcpy 700 and mempcpy 300 times, each from
# a function of its own, with those measured: its output and status as
# without zond, exactly 700 calls from copy_memcpy to the memcpy variant
# the C library chose and 300 from copy_mempcpy to its mempcpy, none from
# copy_mempcpy to a memcpy variant (mempcpy jumps into it, it does not
# call it).  Skipped (77) when the libc has no symbols of that family
# entered at +3, or its memcpy resolves to a variant that is no hop.
#
# Usage: libc_hops.sh ZOND HOPS LIBC WORKDIR
set -u
zond=$1 prog=$2 libc=$3 dir=$4/libc_hops
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
status=0
fail() { echo "FAIL: $*"; status=1; }

[ -r "$libc" ] || { echo "skipped: no $libc"; exit 77; }
"$zond" inject --coverage "$libc" >coverage.out || { echo "FAIL: --coverage $libc: status $?"; exit 1; }
# the family: functions __mempcpy_* jump into at +3
grep ': __mempcpy_[a-z0-9_]* jumps to +3, ' coverage.out >family.out ||
	{ echo "skipped: no __mempcpy_* of $libc jumps to a function's +3"; exit 77; }
grep -v '^hop ' family.out | sed 's/^/FAIL: not a hop: /' | grep . && exit 1
sed -n 's/^hop \([^ @]*\)[^ ]* (0x[0-9a-f]*): .*/\1/p' family.out >hops.txt
set --
while read -r name; do set -- "$@" -f "libc.so.6:$name"; done <hops.txt

"$prog" libc >plain.out
plain=$?
"$zond" inject -q -o libc.db "$@" -f 'libc.so.6:__mempcpy_*' -f 'copy_*' -- "$prog" libc \
	>inject.out 2>inject.err
rc=$?
[ $rc -eq $plain ] || fail "exit status $rc under zond inject, $plain without: $(cat inject.err)"
diff -u plain.out inject.out || fail "output differs under zond inject"
"$zond" dump -i libc.db >dump.txt || fail "zond dump"
chosen=$(sed -n 's/^call copy_memcpy -> \([^ ]*\) calls=.*/\1/p' dump.txt)
if [ -z "$chosen" ]; then
	echo "skipped: memcpy resolves to none of the hops: $(tr '\n' ' ' <hops.txt)"
	exit 77
fi
grep -qx "call copy_memcpy -> $chosen calls=700" dump.txt ||
	fail "copy_memcpy's calls: $(grep '^call copy_memcpy' dump.txt)"
grep -qx 'call copy_mempcpy -> __mempcpy_[a-z0-9_]* calls=300' dump.txt ||
	fail "copy_mempcpy's calls: $(grep '^call copy_mempcpy' dump.txt)"
grep '^call copy_mempcpy -> ' dump.txt | grep -v ' -> __mempcpy_' && fail "mempcpy's jump counted as a call"

[ $status -eq 0 ] && echo "libc_hops: ok ($chosen)"
exit $status
