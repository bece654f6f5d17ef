#!/bin/sh
# stop.sh - zond inject --elf with QEMU's command on a program that never
# ends (progs/forever.c: tick() for ever), stopped from outside (QA s12 F4):
#   (each signal is sent once zond said it measures, or the program that
#   it runs patched, never after a fixed delay: a loaded machine may not
#   have got that far);
#   - SIGTERM to zond alone: the measuring stops, what was measured is
#     stored (tick's calls), one line says so, QEMU (zond's child) is gone,
#     zond ends as SIGTERM asks (143);
#   - SIGINT to zond alone, zond a background job of a script (which
#     starts it with SIGINT ignored): the same (130);
#   - --duration 1: one second measured, then QEMU ended and the run
#     stored, status 0;
#   - SIGKILL to zond: QEMU goes too (PR_SET_PDEATHSIG);
#   - zond's measuring line: once, when the first calls are read while
#     the program runs (none with -q).
#
# Usage: stop.sh ZOND WORKDIR SRCDIR    (exit 77: cross tools missing)
set -u
zond=$1 dir=$2/stop src=$3
. "$src/rv.sh"
rv_need qemu-system-riscv32 sqlite3
mkdir -p "$dir" && cd "$dir" || exit 1
rm -f ./*.db
. "$src/../cli/lib.sh"

elf=forever.elf
rv_build 32 $elf "$src/progs/forever.c" || exit 1
qemu=$(rv_qemu 32)

calls_of_tick() { "$zond" report -i "$1" --raw | awk '$8 == "tick" { print $1 }'; }

for sig in TERM INT; do
	"$zond" inject -o $sig.db --elf $elf -f tick -- $qemu -kernel $elf >/dev/null 2>$sig.err &
	zpid=$!
	q=$(rv_qemu_of $zpid)
	rv_also="$rv_also $q"
	[ -n "$q" ] || fail "SIG$sig: no QEMU started"
	# the signal once zond has read calls of tick while the program runs, however slow the
	# machine: what is stored then holds calls
	rv_await "SIG$sig" $sig.err "^zond inject: measuring: [1-9][0-9]* calls read [0-9]* ms after the start$" $zpid
	kill -$sig $zpid
	rv_ends $zpid || { fail "SIG$sig: zond still running 30 s after it"; kill -KILL $zpid; }
	wait $zpid
	st=$?
	check_eq "SIG$sig: status" $st $([ $sig = TERM ] && echo 143 || echo 130)
	check_eq "SIG$sig: one measuring line" "$(grep -c '^zond inject: measuring:' $sig.err)" 1
	[ -n "$q" ] && { rv_ends $q || fail "SIG$sig: QEMU $q left running: $(ps -o pid=,ppid=,stat= -p $q)"; }
	grep -q "^zond inject: .*: the measuring stopped after [0-9.]* s, qemu-system-riscv32 (pid $q) ended by zond; what was measured is kept$" $sig.err ||
		fail "SIG$sig: no line: $(cat $sig.err)"
	[ -f $sig.db ] && [ "$(calls_of_tick $sig.db)" -gt 0 ] 2>/dev/null ||
		fail "SIG$sig: no calls of tick stored"
done

"$zond" inject -o d.db --elf $elf -f tick --duration 1 -- $qemu -kernel $elf >/dev/null 2>d.err &
zpid=$!
q=$(rv_qemu_of $zpid)
rv_also="$rv_also $q"
wait $zpid
check_eq "--duration 1: status" $? 0
[ -n "$q" ] && { rv_ends $q || fail "--duration: QEMU $q left running"; }
grep -q "^zond inject: --duration 1 s passed: qemu-system-riscv32 (pid $q) ended by zond$" d.err ||
	fail "--duration: no line: $(cat d.err)"
[ "$(calls_of_tick d.db)" -gt 0 ] 2>/dev/null || fail "--duration: no calls of tick stored"

"$zond" inject -q -o k.db --elf $elf -f tick -- $qemu -kernel $elf >k.out 2>&1 &
zpid=$!
q=$(rv_qemu_of $zpid)
rv_also="$rv_also $q"
rv_await "SIGKILL" k.out "^ticking$" $zpid # measuring: the program runs patched
kill -KILL $zpid
wait $zpid
[ -n "$q" ] && { rv_ends $q || fail "SIGKILL: QEMU $q left running"; }
check_eq "-q: no measuring line" "$(grep -c '^zond inject: measuring' k.out)" 0
finish
