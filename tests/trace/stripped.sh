#!/bin/sh
# stripped.sh - a stripped program's functions are named by their unwind entries (FDEs),
# "[prog+0xADDR]", each with its own calls, also the one whose FDE starts its section
# (progs/first.c at -O2: main first in .text), apart from the section's code without
# one ("[.text]": the CRT's helpers).  QA s16 X3 F10: main was merged into that lump (4
# calls).  Truths: nm of the unstripped build (the functions' addresses), readelf's FDEs,
# the program's own calls (main 1, a2 and a1 10); the stripped run's self costs equal the
# unstripped run's per function.  Built with unwind tables (riscv64's gcc makes none by
# default); a function strip leaves a dynamic symbol for (riscv64's main) keeps that name.
#
# Usage: stripped.sh ZOND ARCH WORKDIR SRCDIR    (exit 77: cross tools missing)
set -u
zond=$1 arch=$2 dir=$3/stripped-$2 src=$4/progs
cc=$arch-linux-gnu-gcc strip=$arch-linux-gnu-strip nm=$arch-linux-gnu-nm
readelf=$arch-linux-gnu-readelf sysroot=/usr/$arch-linux-gnu
[ $arch = x86_64 ] && cc=gcc strip=strip nm=nm readelf=readelf sysroot=/
command -v "$cc" >/dev/null && command -v "qemu-$arch" >/dev/null || exit 77
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
status=0
fail() { echo "FAIL ($arch): $*"; status=1; }

$cc -O2 -fasynchronous-unwind-tables -o full "$src/first.c" && $strip -o st full || { fail build; exit 1; }
"$zond" trace record -q -L "$sysroot" -o full.ztrace -- ./full >/dev/null &&
	"$zond" trace record -q -L "$sysroot" -o st.ztrace -- ./st >/dev/null &&
	"$zond" trace report -q -o full.db full.ztrace &&
	"$zond" trace report -q -o st.db st.ztrace || { fail "record or report"; exit 1; }
"$zond" dump --times -i full.db >full.txt && "$zond" dump --times -i st.db >st.txt ||
	fail dump
text=$($readelf -SW st | awk '$2 == ".text" { print $4 }' | sed 's/^0*//')
first=
for f in "main 1" "a2 10" "a1 10"; do
	set -- $f
	addr=$($nm full | awk -v f=$1 '$3 == f { sub(/^0+/, "", $1); print $1 }')
	$readelf --debug-dump=frames st | grep -q "pc=0*$addr\.\." ||
		{ fail "readelf lists no FDE at $1 ($addr)"; continue; }
	[ "$addr" = "$text" ] && first=$1
	self=$(sed -n "s/^function $1 calls=[0-9]* self.Ir=\([0-9]*\) .*/\1/p" full.txt)
	want="calls=$2 self.Ir=$self"
	# named by the dynamic symbols strip keeps (riscv64 exports main), else by its FDE
	name=$($nm -D --defined-only st | awk -v a=$addr '{ v = $1; sub(/^0+/, "", v) }
		v == a && $2 ~ /^[TtWw]$/ { print $3; exit }')
	[ -n "$name" ] || name="[st+0x$addr]"
	got=$(awk -v n="$name" '$1 == "function" && $2 == n { print $3, $4 }' st.txt)
	[ "$got" = "$want" ] || fail "$name ($1): '$got', not '$want'"
done
# the case this test is for: else the build lays the sections out otherwise
[ -n "$first" ] || fail "no function's FDE starts .text (0x$text): the case is not tested"
[ $status -eq 0 ] && echo "ok ($arch): stripped functions named by their FDEs, $first's at .text's start too"
exit $status
