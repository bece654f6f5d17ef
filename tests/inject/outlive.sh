#!/bin/sh
# outlive.sh - a child that outlives the program (outlive.c: an orphan, a
# daemon(3), a double fork with setsid): zond inject waits for it, says so
# on stderr (with -q too), and the run has its calls on a thread of its
# own (the child's process id) beside the program's: main 1, childwork 2
# (1 + 1), work 36 (3 + 33).  The program's output and status are a plain
# run's; the child's note is written by the time zond returns.  The child
# makes its calls only once zond has said it waits (the test lets it go).
# Before,
# zond read the results when the program ended: the child's 34 calls were
# lost without a word.
#
# Usage: outlive.sh ZOND OUTLIVE WORKDIR
set -u
zond=$1 prog=$2 dir=$3/outlive
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
. "$(dirname "$0")/lib.sh"

touch plain.go
"$prog" orphan plain.note plain.go >plain.out
plain=$?
for how in orphan daemon dfork; do
	"$zond" inject -q -o "$how.db" -f main -f childwork -f work -- "$prog" "$how" "$how.note" \
		"$how.go" >"$how.out" 2>"$how.err" &
	zond_pid=$!
	i=0
	until grep -q "^zond inject: waiting for the processes .* left running" "$how.err" 2>/dev/null ||
		[ $i -ge 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ $i -lt 300 ] || fail "$how: zond did not say it waits in 30 s: $(cat "$how.err")"
	touch "$how.go"
	wait $zond_pid
	rc=$?
	[ $rc -eq $plain ] || fail "$how: exit status $rc under zond inject, $plain without"
	diff -u plain.out "$how.out" || fail "$how: output differs under zond inject"
	[ "$(cat "$how.note" 2>/dev/null)" = done ] || fail "$how: zond returned before the child ended"
	"$zond" dump -i "$how.db" >"$how.dump" || fail "$how: zond dump"
	for want in "function main calls=1" "function childwork calls=2" "function work calls=36" \
		"threads 2"; do
		grep -qx "$want" "$how.dump" ||
			fail "$how: not '$want': $(grep "^${want%% *} ${want#* }" "$how.dump" | head -3)"
	done
	# the child's own stacks start at its calls (its inherited main is its parent's)
	for want in "context main;childwork;work calls=3" "context childwork;work calls=33"; do
		grep -qx "$want" "$how.dump" || fail "$how: no '$want'"
	done
done
exit $status
