#!/bin/sh
# stop.sh - zond inject --elf with QEMU's command on a program that never
# ends (progs/forever.c: tick() for ever), stopped from outside (QA s12 F4):
#   - SIGTERM to zond alone: the measuring stops, what was measured is
#     stored (tick's calls), one line says so, QEMU (zond's child) is gone,
#     zond ends as SIGTERM asks (143);
#   - SIGINT to zond alone, zond a background job of a script (which
#     starts it with SIGINT ignored): the same (130);
#   - --duration 1: one second measured, then QEMU ended and the run
#     stored, status 0;
#   - SIGKILL to zond: QEMU goes too (PR_SET_PDEATHSIG).
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
qpids=""
trap 'for q in $qpids; do kill -9 $q 2>/dev/null; done' EXIT

# qemu_of ZPID: the QEMU zond started (waits for it to appear); the caller adds it to qpids
qemu_of() {
	for i in $(seq 100); do
		q=$(pgrep -P "$1" qemu-system | head -1)
		[ -n "$q" ] && { echo $q; return; }
		sleep 0.1
	done
}
# gone QPID: QEMU ended (not running, not a zombie left for ever) within 5 s
gone() {
	for i in $(seq 50); do
		st=$(ps -o stat= -p "$1" 2>/dev/null)
		[ -z "$st" ] && return 0
		sleep 0.1
	done
	return 1
}
calls_of_tick() { "$zond" report -i "$1" --raw | awk '$8 == "tick" { print $1 }'; }

for sig in TERM INT; do
	"$zond" inject -o $sig.db --elf $elf -f tick -- $qemu -kernel $elf >/dev/null 2>$sig.err &
	zpid=$!
	q=$(qemu_of $zpid)
	qpids="$qpids $q"
	[ -n "$q" ] || fail "SIG$sig: no QEMU started"
	sleep 1.5
	kill -$sig $zpid
	for i in $(seq 100); do kill -0 $zpid 2>/dev/null || break; sleep 0.1; done
	kill -0 $zpid 2>/dev/null && { fail "SIG$sig: zond still running 10 s after it"; kill -KILL $zpid; }
	wait $zpid
	st=$?
	check_eq "SIG$sig: status" $st $([ $sig = TERM ] && echo 143 || echo 130)
	[ -n "$q" ] && { gone $q || fail "SIG$sig: QEMU $q left running: $(ps -o pid=,ppid=,stat= -p $q)"; }
	grep -q "^zond inject: .*: the measuring stopped after [0-9.]* s, qemu-system-riscv32 (pid $q) ended by zond; what was measured is kept$" $sig.err ||
		fail "SIG$sig: no line: $(cat $sig.err)"
	[ -f $sig.db ] && [ "$(calls_of_tick $sig.db)" -gt 0 ] 2>/dev/null ||
		fail "SIG$sig: no calls of tick stored"
done

"$zond" inject -o d.db --elf $elf -f tick --duration 1 -- $qemu -kernel $elf >/dev/null 2>d.err &
zpid=$!
q=$(qemu_of $zpid)
qpids="$qpids $q"
wait $zpid
check_eq "--duration 1: status" $? 0
[ -n "$q" ] && { gone $q || fail "--duration: QEMU $q left running"; }
grep -q "^zond inject: --duration 1 s passed: qemu-system-riscv32 (pid $q) ended by zond$" d.err ||
	fail "--duration: no line: $(cat d.err)"
[ "$(calls_of_tick d.db)" -gt 0 ] 2>/dev/null || fail "--duration: no calls of tick stored"

"$zond" inject -q -o k.db --elf $elf -f tick -- $qemu -kernel $elf >/dev/null 2>&1 &
zpid=$!
q=$(qemu_of $zpid)
qpids="$qpids $q"
sleep 1
kill -KILL $zpid
wait $zpid
[ -n "$q" ] && { gone $q || fail "SIGKILL: QEMU $q left running"; }
finish
