#!/bin/sh
# info.sh ZOND GOTCALLS STATIC WORKDIR - `zond info`: a program with calls through the GOT
# and a -Bsymbolic library (its own modules' blocks, exactly), a static program, a setuid
# copy, bad input (one error line, exit 1), usage (exit 2).
set -u
zond=$1 prog=$2 static=$3 work=$4 expected=$(dirname "$0")/expected/info.txt
rm -rf "$work" && mkdir -p "$work" || exit 1
rc=0
fail() { echo "FAIL: $*"; rc=1; }

"$zond" info "$prog" >"$work/out" 2>&1 || fail "zond info exited $?"
# the blocks of the test's own modules, by base name (libc's differ between systems)
awk '/^\// { keep = $0 ~ /lc_gotcalls|libmylib|libsymlib/ } keep' "$work/out" |
	sed 's|^/[^ :]*/||' >"$work/actual"
[ "${ZOND_UPDATE_EXPECTED:-}" = 1 ] && cp "$work/actual" "$expected"
diff -u "$expected" "$work/actual" || rc=1
grep -q '^never seen: calls through pointers from dlsym' "$work/out" || fail "no 'never seen' line"

"$zond" info "$static" >"$work/static" 2>&1 || fail "static: exit $?"
grep -q ": statically linked (no loader): LD_AUDIT does nothing" "$work/static" ||
	fail "static: $(cat "$work/static")"

cp "$prog" "$work/suid" && chmod u+s "$work/suid"
"$zond" info "$work/suid" >"$work/suid.out" 2>&1
grep -q "suid: setuid or setgid: the loader ignores LD_AUDIT unless" "$work/suid.out" ||
	fail "setuid: $(head -3 "$work/suid.out")"

echo "not a program" >"$work/text"
for bad in "$work/missing" "$work/text" /; do
	"$zond" info "$bad" >"$work/bad" 2>&1
	status=$?
	[ $status = 1 ] && [ "$(wc -l <"$work/bad")" = 1 ] && grep -q '^zond info: ' "$work/bad" ||
		fail "$bad: exit $status, $(cat "$work/bad")"
done
"$zond" info >/dev/null 2>&1
[ $? = 2 ] || fail "no program: not a usage error"
exit $rc
