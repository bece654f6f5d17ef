#!/bin/sh
# sigs.sh - signal handlers that call measured functions while measured
# functions run on the same thread (sigs.c: SIGUSR1 and SIGUSR2 sent back
# to back to three workers thousands of times, SIGUSR2's handler
# interrupting SIGUSR1's, SIGPROF from a timer on top), every function and
# handler measured: the program exits normally with its own output, and
# zond's calls are the program's counts, in each of three runs, none lost.
# Before, the program died of SIGSEGV (a jump to 0) in nearly every run:
# the exit popped its frame before it read the return address from it, and
# a handler's measured call in between took the frame.  With SIGUSR1's
# handler leaving by siglongjmp (sigs.c "jump"), twice: the same, but a
# call a jump cut short may or may not count, so each function's calls
# lie between its call sites' count less the jumps and that count.
#
# Usage: sigs.sh ZOND SIGS WORKDIR
set -u
zond=$1 sigs=$2 dir=$3/sigs
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
. "$(dirname "$0")/lib.sh"

funcs="-f leaf -f mid -f on_usr1 -f on_usr2 -f on_prof"

# ran WHAT OUT RC DB: status 0, the program's last line, enough signals, nothing lost.
ran() {
	[ "$3" -eq 0 ] || fail "$1: exit status $3 under zond inject (plain: 0)"
	[ "$(tail -1 "$2")" = done ] || fail "$1: the program's output ends early: $(tail -2 "$2")"
	n=$(sed -n 's/^signals usr1 \([0-9]*\) .*/\1/p' "$2")
	[ "${n:-0}" -ge 50 ] || fail "$1: only ${n:-no} SIGUSR1 handled: nothing was tested"
	"$zond" dump -i "$4" >"$4.dump" || fail "$1: zond dump"
	! grep -q '^lost_' "$4.dump" || fail "$1: $(grep '^lost_' "$4.dump")"
}

"$sigs" >plain.out || fail "sigs.c exits with status $? without zond"

for i in 1 2 3; do
	# shellcheck disable=SC2086
	"$zond" inject -q -o "run$i.db" $funcs -- "$sigs" >"run$i.out" 2>"run$i.err"
	ran "run $i" "run$i.out" $? "run$i.db"
	compare_counts "run$i.out" "run$i.db.dump"
	[ "$(grep -c '^count ' "run$i.out")" -eq 5 ] || fail "run $i: the program printed no counts"
done

for i in 1 2; do
	# shellcheck disable=SC2086
	"$zond" inject -q -o "jump$i.db" $funcs -- "$sigs" jump >"jump$i.out" 2>"jump$i.err"
	ran "jump $i" "jump$i.out" $? "jump$i.db"
	compare_counts "jump$i.out" "jump$i.db.dump"
	jumps=$(sed -n 's/^jumps //p' "jump$i.out")
	for f in leaf mid; do
		site=$(sed -n "s/^site $f //p" "jump$i.out")
		got=$(sed -n "s/^function $f calls=//p" "jump$i.db.dump")
		[ -n "$site" ] && [ -n "$got" ] && [ "$got" -le "$site" ] &&
			[ "$got" -ge $((site - jumps)) ] ||
			fail "jump $i: $f: zond ${got:-none}, the call sites $site, jumps $jumps"
	done
done
exit $status
