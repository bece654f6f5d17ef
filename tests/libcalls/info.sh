#!/bin/sh
# info.sh ZOND GOTCALLS STATIC WORKDIR - `zond info`: a program with calls through the GOT
# and a -Bsymbolic library (its own modules' blocks, exactly), each function of a library's
# relocations once, a static program, a setuid
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

# a function in several relocations (two tables holding it, a destructor's two symbols
# of one name) is listed once and counted once
cat >"$work/dup.cc" <<'END'
int twice(int x) { return 2 * x; }
namespace ns { struct S { virtual ~S(); virtual int f() const; }; S::~S() {} int S::f() const { return 1; } }
int (*const tab1[])(int) = {twice};
int (*tab2[])(int) = {twice, twice};
END
echo 'int main(void) { return 0; }' >"$work/dupmain.c"
if c++ -shared -fPIC -O1 -o "$work/libdup.so" "$work/dup.cc" &&
	cc -o "$work/dupmain" "$work/dupmain.c" -L"$work" -Wl,--no-as-needed -ldup -Wl,-rpath,"$work"; then
	"$zond" info "$work/dupmain" >"$work/dup.out" 2>&1 || fail "dup: exit $?"
	got=$(grep -A3 '/libdup.so$' "$work/dup.out" | sed -n 3,4p)
	want='  not seen: 3 functions called or taken through the GOT (-fno-plt, address taken):
    ns::S::f() const ns::S::~S() twice(int)'
	[ "$got" = "$want" ] || fail "a function of several relocations: $got"
else
	fail "dup: build"
fi

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
