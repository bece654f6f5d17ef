#!/bin/sh
# isr.sh - zond inject over GDB of a firmware whose timer interrupt handler
# calls a measured function the interrupted code calls too (progs/isr.c on
# qemu-system-riscv32/64, 40 interrupts at periods of 2-6 mtime ticks,
# most landing inside zond's payload): the payload is reentrant, so
#   - the firmware's output and status are as without zond (before, a
#     handler's call nested in an exit took the frame just popped: the
#     interrupted call returned into the handler's context, s0 lost, the
#     handler faulted for ever: QA s15 W3 F4);
#   - leaf's and work's calls are the firmware's own counts (no update of a
#     sum lost to a handler), with one counter and with two (--event
#     mcycle,minstret: the exit's other register set).
# QEMU runs without sleep=off: QEMU 7.2 hangs when resumed from a gdb stop
# with sleep=off and a timer armed.  --duration ends a hung firmware.
#
# Usage: isr.sh ZOND WORKDIR SRCDIR    (exit 77: cross tools missing)
set -u
zond=$1 dir=$2/isr src=$3
. "$src/rv.sh"
rv_need qemu-system-riscv32 qemu-system-riscv64
mkdir -p "$dir" && cd "$dir" || exit 1
rm -f ./*.db
. "$src/../cli/lib.sh"

for xlen in 32 64; do
	elf=isr$xlen.elf
	rv_build $xlen $elf "$src/progs/isr.c" || exit 1
	qemu=$(rv_qemu $xlen | sed 's/,sleep=off//')
	$qemu -kernel $elf >want.txt 2>/dev/null
	check_eq "rv$xlen: plain status" $? 3
	check_eq "rv$xlen: plain output" "$(cat want.txt)" "leaf=3040 work=40 handled=40"
	for ev in mcycle mcycle,minstret; do
		db=i$xlen-$(echo $ev | tr , -).db
		"$zond" inject -q -o $db --elf $elf -f leaf -f work --event $ev --duration 5 -- \
			$qemu -kernel $elf >got.txt 2>err.txt
		check_eq "rv$xlen $ev: status under zond inject" $? 3
		check_same "rv$xlen $ev: output" got.txt want.txt
		# one counter: the run's event is time (ns) under -icount; two: the first's table
		sel=""
		[ $ev = mcycle ] || sel="-e mcycle"
		check_eq "rv$xlen $ev: calls" \
			"$("$zond" report -i $db --raw $sel |
				awk '$8 == "leaf" || $8 == "work" { print $8, $1 }' |
				LC_ALL=C sort)" "leaf 3040
work 40"
	done
done
finish
