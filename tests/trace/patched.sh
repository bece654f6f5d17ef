#!/bin/sh
# patched.sh - x86-64: code that differs from its file when it runs is
# counted as it ran, with one warning naming where (not refused as "a trace
# of another build"): a library with text relocations (ld.so writes getp's
# address into its .text) and a program that patches its own f() between two
# loops.  Calls and self costs equal objdump's (getp) and QEMU's -d nochain
# log (hotpatch), from a trace and --online alike.
#
# Usage: patched.sh ZOND WORKDIR SRCDIR    (exit 77: qemu-x86_64 missing)
zond=$1 dir=$2/patched src=$3
command -v qemu-x86_64 >/dev/null || { echo "SKIP: no qemu-x86_64"; exit 77; }
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
. "$src/qlog.sh"
objdump=objdump
. "$src/insns.sh"
gcc -shared -o libt.so "$src/progs/textrel.S" -Wl,-z,notext &&
	gcc -O1 -no-pie -o u "$src/progs/textrel_main.c" -L. -lt -Wl,-rpath,"$PWD" &&
	gcc -O1 -static -o h "$src/progs/hotpatch.c" || { echo "FAIL: build"; exit 1; }
qlog q.log ./h >/dev/null || { echo "FAIL: qemu-x86_64 ./h"; exit 1; }
status=0
fail() { echo "FAIL: $*"; status=1; }
# FUNC's calls and self instructions in DB ("calls self")
stats() {
	"$zond" report -i "$1" --raw 2>/dev/null | awk -v f="$2" '$NF == f { print $1, $3 }'
}
# WHAT ERRFILE FILE: exactly one line, a warning naming FILE's patched code
warned() {
	[ "$(grep -c 'ran unlike the file' "$2")" -eq 1 ] && grep -q "$3" "$2" ||
		fail "$1: not one warning naming $3: $(cat "$2")"
	[ "$(wc -l <"$2")" -eq 1 ] || fail "$1: more than the warning: $(cat "$2")"
}
getp="5 $((5 * $(insns libt.so getp)))"
"$zond" trace record -q -L / -o u.ztrace -- ./u >/dev/null || fail "record u: status $?"
"$zond" trace report -q -o u.db u.ztrace 2>err || fail "report u: $(cat err)"
warned "report u" err libt.so
[ "$(stats u.db getp)" = "$getp" ] || fail "trace: getp: '$(stats u.db getp)', not $getp"
"$zond" trace record -q -L / --online -o uo.db -- ./u >/dev/null 2>err || fail "online u: $(cat err)"
warned "online u" err libt.so
[ "$(stats uo.db getp)" = "$getp" ] || fail "online: getp: '$(stats uo.db getp)', not $getp"
"$zond" trace record -q -o h.ztrace -- ./h >/dev/null || fail "record h: status $?"
"$zond" trace report -q -o h.db h.ztrace 2>err || fail "report h: $(cat err)"
warned "report h" err "$PWD/h"
"$zond" trace record -q --online -o ho.db -- ./h >/dev/null 2>err || fail "online h: $(cat err)"
warned "online h" err "$PWD/h"
for db in h.db ho.db; do
	[ "$(stats $db f)" = "20 $(qfunc q.log h f)" ] ||
		fail "$db: f: '$(stats $db f)', not 20 calls of QEMU's $(qfunc q.log h f) instructions"
	[ "$(stats $db main | cut -d' ' -f2)" = "$(qfunc q.log h main)" ] ||
		fail "$db: main ran '$(stats $db main)', QEMU's log $(qfunc q.log h main)"
done
[ $status -eq 0 ] && echo "patched: ok"
exit $status
