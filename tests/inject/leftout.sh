#!/bin/sh
# leftout.sh - functions zond inject leaves out are said, each with its reason,
# and the program runs as without zond (QA s14 V3):
# - F1: a function reading its own return address (__builtin_return_address(0),
#   retaddr.c at -O0 and -O2, with and without a frame) is refused, found in
#   its code: --coverage and the -f line say why, the program's output is a
#   plain run's (before, measured, it saw the trampoline's address); a static
#   C++ program that throws (libgcc's uw_init_context_1 linked in) prints and
#   exits as plain with every function measured (before: SIGABRT);
# - F2: -f naming a function zond's own probe takes (libc's clone, an unwinder)
#   gets one line naming its library and the reason, with another -f too
#   (before: no word, or "-f matched none" naming the program); --coverage
#   with --event says so of close (before: listed as injectable, s15);
# - F3: a program none of whose functions can be injected (Go code only) is
#   told the most common reason (before: "no function symbols: stripped?");
# - F4: a -pg program gets one line: its gmon.out loses the measured
#   functions' call arcs; a program built without -pg gets none.
#
# Usage: leftout.sh ZOND WORKDIR RETADDR_O0 RETADDR_O2 THROWSTATIC HELLO GOLIKE_ONLY PG
set -u
zond=$1 dir=$2/leftout retaddr0=$3 retaddr2=$4 throwstatic=$5 hello=$6 golike=$7 pg=$8
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
. "$(dirname "$0")/lib.sh"

# same NAME PROG ARGS...: zond inject -o NAME.db ARGS -- PROG; output and status as plain.
same() {
	name=$1 prog=$2
	shift 2
	"$prog" >"$name.plain" 2>&1
	prc=$?
	"$zond" inject -q -o "$name.db" "$@" -- "$prog" >"$name.out" 2>"$name.err"
	rc=$?
	[ $rc -eq $prc ] && cmp -s "$name.plain" "$name.out" ||
		fail "$name: status $rc, output '$(cat "$name.out")' (plain: $prc, '$(cat "$name.plain")'): $(cat "$name.err")"
}

# F1: the readers refused, found in the code, whatever the frame
reason="it reads its own return address (+[0-9]*: mov from \[r[sb]p+0x[0-9a-f]*\]), which a probe makes the trampoline's"
for prog in "$retaddr0" "$retaddr2"; do
	n=$(basename "$prog")
	"$zond" inject --coverage "$prog" >"$n.cov"
	for f in bare framed; do
		grep -q "^refused $f (0x[0-9a-f]*): $reason$" "$n.cov" ||
			fail "$n: --coverage does not refuse $f: $(grep " $f " "$n.cov")"
	done
	grep -q "^refused work " "$n.cov" && fail "$n: work refused: $(grep ' work ' "$n.cov")"
	same "$n" "$prog"
	grep -q 'bare in text 10 of 10' "$n.plain" || fail "$n: plain output $(cat "$n.plain")"
	"$zond" dump -i "$n.db" | grep -qx 'function work calls=320' ||
		fail "$n: work: $("$zond" dump -i "$n.db" | grep '^function work')"
	same "$n.f" "$prog" -f bare -f work
	grep -q "^zond inject: -f bare: bare (0x[0-9a-f]*) cannot be injected: $reason$" "$n.f.err" ||
		fail "$n -f bare: no line with the reason: $(cat "$n.f.err")"
done
# ... libgcc's unwinder in a static program: every function measured, exceptions caught
same throw "$throwstatic"
grep -qx 's=300 caught=10' throw.plain || fail "throwstatic: plain output $(cat throw.plain)"
"$zond" dump -i throw.db | grep -qx 'function thrower(int) calls=30' ||
	fail "throwstatic: thrower: $("$zond" dump -i throw.db | grep '^function thrower')"
"$zond" inject -q -o uw.db -f uw_init_context_1 -- "$throwstatic" >/dev/null 2>uw.err
[ $? -eq 1 ] && grep -q "^zond inject: -f uw_init_context_1: uw_init_context_1 (0x[0-9a-f]*) cannot be injected: it reads its own return address" uw.err ||
	fail "-f uw_init_context_1: $(cat uw.err)"

# F2: zond's own probes' functions, said with their library and reason
libc=$(ldd "$hello" | awk '/libc\.so\.6/ { print $3 }')
clone_line="^zond inject: -f libc.so.6:clone: __clone (0x[0-9a-f]*) of $libc cannot be injected: reserved: zond's own probe (za_clone) sits there"
same clone "$hello" -f libc.so.6:clone -f bump
grep -q "$clone_line" clone.err || fail "-f libc.so.6:clone -f bump: no line for clone: $(cat clone.err)"
"$zond" dump -i clone.db | grep -qx 'function bump calls=1000' || fail "clone: bump not measured"
"$zond" inject -q -o clone1.db -f libc.so.6:clone -- "$hello" >/dev/null 2>clone1.err
[ $? -eq 1 ] && grep -q "$clone_line" clone1.err &&
	[ "$(tail -1 clone1.err)" = "zond inject: no function to measure (no -f matched one that can be injected)" ] ||
	fail "-f libc.so.6:clone alone: $(cat clone1.err)"
"$zond" inject --coverage "$libc" | grep -q "^refused __clone (0x[0-9a-f]*): reserved: zond's own probe (za_clone)" ||
	fail "--coverage $libc: clone not refused"
# ... close too with --event, given before or after --coverage (before: listed with the others)
close_line="^refused __close (0x[0-9a-f]*): reserved with --event: zond's own probe sits there"
"$zond" inject --event task-clock --coverage "$libc" | grep -q "$close_line" ||
	fail "--event --coverage $libc: close not refused"
"$zond" inject --coverage "$libc" --event task-clock | grep -q "$close_line" ||
	fail "--coverage $libc --event: close not refused"
"$zond" inject --coverage "$libc" | grep -q "^refused __close " && fail "--coverage $libc: close refused"
same unwind "$throwstatic" -f _Unwind_RaiseException -f 'thrower*'
grep -q "^zond inject: -f _Unwind_RaiseException: _Unwind_RaiseException (0x[0-9a-f]*) cannot be injected: reserved: zond's own probe (za_unwind) sits there" unwind.err ||
	fail "-f _Unwind_RaiseException: no line: $(cat unwind.err)"

# F3: nothing to inject: the reason, not "stripped?"
err=$("$zond" inject -q -o go.db -- "$golike" 2>&1 >/dev/null)
rc=$?
want="zond inject: $golike: no function to measure (0 of 3 functions can be injected; 2: Go code: its runtime moves goroutine stacks and reads their return addresses; --coverage $golike gives each one's reason)"
[ $rc -eq 1 ] && [ "$err" = "$want" ] || fail "Go code only: status $rc, '$err' (wanted 1, '$want')"

# F4: -pg: one line; none without it
same pg "$pg" -f bump
[ "$(cat pg.err)" = "zond inject: $pg calls mcount (built with -pg): its gmon.out will lack the call arcs of the measured functions (mcount reads their return address, which is the trampoline's: doc/inject.md, \"Functions that look at their caller\")" ] ||
	fail "-pg: $(cat pg.err)"
same nopg "$hello" -f bump
[ -s nopg.err ] && fail "no -pg: $(cat nopg.err)"
[ $status -eq 0 ] && echo "leftout: ok"
exit $status
