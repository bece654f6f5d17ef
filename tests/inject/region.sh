#!/bin/sh
# region.sh - zond inject --region on passes.c: the passes counted equal
# the program's own count (two threads, a repeated FROM inside a pass, a TO
# with no pass open), with FROM,TO given as functions, as addresses (nm)
# and as FILE:LINE (DWARF);
# output and status as without zond; a point that is not the start of an
# instruction is refused with one line.
#
# Usage: region.sh ZOND PASSES WORKDIR
set -u
zond=$1 prog=$2 dir=$3/region
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
status=0
fail() { echo "FAIL: $*"; status=1; }

"$prog" >plain.out
plain=$?
want=$(sed -n 's/^count region //p' plain.out)
addr() { nm "$prog" | awk -v n="$1" '$3 == n { print "0x" $1 }' | sed 's/0x0*/0x/'; }
i=0
# passes.c's lines 15 and 20 are the bodies of pass_begin and pass_end (DWARF)
for spec in pass_begin,pass_end "$(addr pass_begin),$(addr pass_end)" passes.c:15,passes.c:20; do
	i=$((i + 1))
	"$zond" inject -q -o r$i.db --region "$spec" -- "$prog" >r$i.out
	rc=$?
	[ $rc -eq $plain ] || fail "--region $spec: status $rc, $plain without"
	diff -u plain.out r$i.out || fail "--region $spec: output differs"
	got=$("$zond" dump -i r$i.db | sed -n "s/^block region .* calls=//p")
	[ "$got" = "$want" ] || fail "--region $spec: $got passes, the program counted $want"
done
# body+1 is inside body's first instruction (push or mov: more than one byte)
err=$("$zond" inject -q -o bad.db --region body+1,pass_end -- "$prog" 2>&1 >/dev/null)
rc=$?
[ $rc -eq 1 ] && [ "$err" = "zond inject: body+1: +1 is not the start of an instruction" ] ||
	fail "--region body+1: status $rc, '$err'"
# line 9 is an #include: no code
err=$("$zond" inject -q -o bad.db --region passes.c:9,pass_end -- "$prog" 2>&1 >/dev/null)
rc=$?
[ $rc -eq 1 ] && [ "$err" = "zond inject: passes.c:9: no code at that line in $prog (DWARF)" ] ||
	fail "--region passes.c:9: status $rc, '$err'"
[ $status -eq 0 ] && echo "region: ok ($want passes)"
exit $status
