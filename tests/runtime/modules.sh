#!/bin/sh
# modules.sh ZOND LIB PROG WORKDIR
#
# More objects loaded and unloaded than the runtime has module records (512):
# 600 copies of LIB (entry -> a_only), each loaded twice by PROG (dlmany).  The
# calls of an object whose module has no record are counted as lost
# (lost_module_calls), never on another object's functions: every entry and
# a_only of a recorded object has exactly its 6 calls, and the recorded calls
# plus the lost ones are every call.  The same for zond libcalls (entry alone,
# through dlsym pointers).
set -u
zond=$1 lib=$2 prog=$3 work=$4
rm -rf "$work"
mkdir -p "$work/libs"
rc=0
fail() {
	echo "FAIL: $*"
	rc=1
}
n=600
i=0
while [ $i -lt $n ]; do
	cp "$lib" "$work/libs/lib$i.so"
	i=$((i + 1))
done

# check NAME DB FUNCS TOTAL: in DB every function of FUNCS (a regex) has 6 calls, none
# more, and their calls plus lost_module_calls are TOTAL; some modules were lost
check() {
	name=$1 db=$2 funcs=$3 total=$4
	"$zond" dump -i "$db" >"$work/dump" 2>&1 || fail "$name: dump failed: $(cat "$work/dump")"
	bad=$(grep -E "^function ($funcs) calls=" "$work/dump" | grep -vc " calls=6$")
	[ "$bad" = 0 ] || fail "$name: calls of other objects on a recorded one's: \
$(grep -E "^function ($funcs) calls=" "$work/dump" | grep -v " calls=6$" | head -3)"
	got=$(awk -v f="^($funcs)\$" '$1 == "function" && $2 ~ f { split($3, a, "="); s += a[2] }
		$1 == "lost_module_calls" { s += $2 } END { print s + 0 }' "$work/dump")
	[ "$got" = "$total" ] || fail "$name: $got calls recorded or lost, not $total"
	grep -q "^lost_modules [1-9]" "$work/dump" || fail "$name: no lost_modules"
	grep -q "^lost_module_calls [1-9]" "$work/dump" || fail "$name: no lost_module_calls"
}

out=$("$zond" record -q -o "$work/r.db" -- "$prog" "$work/libs" $n 2 2>"$work/err")
[ "$out" = "sum 21600 entry calls 3600" ] || fail "record: program said '$out': $(cat "$work/err")"
check record "$work/r.db" "entry|a_only" 7200
grep -q "warning: lost_module_calls = [1-9][0-9]*: calls of functions of modules not recorded" \
	"$work/err" || fail "record: no lost_module_calls warning: $(cat "$work/err")"

out=$("$zond" libcalls -q --dlsym -f entry -o "$work/l.db" -- "$prog" "$work/libs" $n 2 \
	2>"$work/err")
[ "$out" = "sum 21600 entry calls 3600" ] || fail "libcalls: program said '$out': $(cat "$work/err")"
check libcalls "$work/l.db" "entry" 3600
exit $rc
