#!/bin/sh
# callers.sh - the program behaves as without zond when it measures functions
# that look at their caller (QA U F1) and when glibc loads libgcc_s.so.1 later
# to unwind (F5), on callers.c:
# - -f 'libc.so.6:dl*': dlsym(RTLD_NEXT) works (before, its return address was
#   the trampoline's: "RTLD_NEXT used in code not dynamically loaded", exit 4);
#   the glob's note counts those left out; -f libc.so.6:dlsym is refused with
#   its reason, the run goes on with main;
# - backtrace() from measured functions gives every frame (before, 2: the
#   libgcc_s glibc dlopens was never patched, its unwinder stopped at za_exit).
#
# Usage: callers.sh ZOND CALLERS WORKDIR
set -u
zond=$1 prog=$2 dir=$3/callers
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
. "$(dirname "$0")/lib.sh"

"$prog" >plain.out || fail "callers.c exits with status $? without zond"
grep -q 'backtrace: [5-9] frames: show mid top main' plain.out ||
	fail "unexpected plain output: $(tr '\n' ' ' <plain.out)"

# run NAME ARGS...: zond inject ARGS -- prog; output and status as the plain run's.
run() {
	name=$1
	shift
	"$zond" inject -o "$name.db" "$@" -- "$prog" >"$name.out" 2>"$name.err"
	rc=$?
	[ $rc -eq 0 ] || fail "$name: exit status $rc under zond inject (plain: 0): $(cat "$name.err")"
	cmp -s plain.out "$name.out" ||
		fail "$name: output differs: $(tr '\n' ' ' <"$name.out") (plain: $(tr '\n' ' ' <plain.out))"
}

run glob -f 'libc.so.6:dl*' -f main
grep -q "functions that look at their caller's address left out" glob.err ||
	fail "glob: no note of the functions left out: $(cat glob.err)"
run exact -f 'libc.so.6:dlsym' -f main
grep -q "^zond inject: -f libc.so.6:dlsym: not measured: .*looks at its caller's address" exact.err ||
	fail "exact: no refusal naming why: $(cat exact.err)"
"$zond" dump -i exact.db | grep -q '^function main calls=1$' || fail "exact: main not measured"
run stack -f show -f mid -f top -f main
"$zond" dump -i stack.db | grep -q '^function show calls=4$' ||
	fail "stack: show not measured 4 times: $("$zond" dump -i stack.db | grep show)"
exit $status
