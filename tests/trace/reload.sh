#!/bin/sh
# reload.sh - a library loaded again after dlclose (reload/host.c: la.so and lb.so each
# loaded, called and unloaded three times, mapped anew each time): the flat profile of
# each library function is the sum over every load, as its call edges and contexts are
# (QA s16 X3 F12: fa kept the 5 calls and 10 Ir of one load of 15 and 30, its avg above
# its max).  Truths: the program's own counts, objdump's length of the branchless leaves.
# From the plugin's trace and --online.
#
# Usage: reload.sh ZOND ARCH WORKDIR SRCDIR    (exit 77: cross tools missing)
set -u
zond=$1 arch=$2 dir=$3/reload-$2 src=$4/reload
cc=$arch-linux-gnu-gcc objdump=$arch-linux-gnu-objdump sysroot=/usr/$arch-linux-gnu
[ $arch = x86_64 ] && cc=gcc objdump=objdump sysroot=/
command -v "$cc" >/dev/null && command -v "qemu-$arch" >/dev/null || exit 77
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
status=0
fail() { echo "FAIL ($arch): $*"; status=1; }
. "$4/insns.sh"

$cc -O1 -shared -fPIC -DNAME=fa -o la.so "$src/lib.c" &&
	$cc -O1 -shared -fPIC -DNAME=fb -o lb.so "$src/lib.c" &&
	$cc -O1 -o host "$src/host.c" -ldl || { fail build; exit 1; }
na=$(insns la.so fa) nb=$(insns lb.so fb)
[ -n "$na" ] && [ -n "$nb" ] || { fail "no fa or fb in objdump"; exit 1; }

# check DB WHAT: fa's and fb's flat lines, call edges and contexts against the program's counts
check() {
	db=$1 what=$2
	"$zond" dump --times -i "$db" >dump.txt || { fail "$what: dump"; return; }
	for f in "fa $ca $na" "fb $cb $nb"; do
		set -- $f "$what"
		want="calls=$2 self.Ir=$(($2 * $3)) total.Ir=$(($2 * $3))"
		got=$(sed -n "s/^function $1 //p" dump.txt)
		[ "$got" = "$want" ] || fail "$4: function $1 $got, not $want"
		edges=$(awk -v f=$1 '$1 == "call" && $4 == f { sub(/calls=/, "", $5); n += $5 }
			END { print n + 0 }' dump.txt)
		ctxs=$(awk -v f=$1 '$1 == "context" && $2 ~ (";" f "$") { sub(/calls=/, "", $3); n += $3 }
			END { print n + 0 }' dump.txt)
		[ "$edges" = $2 ] && [ "$ctxs" = $2 ] ||
			fail "$4: $1's call edges say $edges calls, its contexts $ctxs, not $2"
		mm=$("$zond" report -i "$db" -m "$1" --raw | awk -v f=$1 '$NF == f { print $5, $6 }')
		[ "$mm" = "$3 $3" ] || fail "$4: $1's min and max $mm, not $3 $3"
	done
}

"$zond" trace record -q -L "$sysroot" -o host.ztrace -- ./host >out.txt 2>err.txt ||
	fail "record: $(cat err.txt)"
ca=$(sed -n 's/^fa //p' out.txt) cb=$(sed -n 's/^fb //p' out.txt)
[ "$ca" = 15 ] && [ "$cb" = 21 ] || fail "the program says fa $ca, fb $cb calls"
"$zond" trace report -q -o trace.db host.ztrace || fail "report"
check trace.db trace
"$zond" trace record -q --online -L "$sysroot" -o online.db -- ./host >/dev/null ||
	fail "record --online"
check online.db online
[ $status -eq 0 ] && echo "ok ($arch): every load of a reloaded library is in its flat profile"
exit $status
