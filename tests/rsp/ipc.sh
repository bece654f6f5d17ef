#!/bin/sh
# ipc.sh - two counters in one run over GDB: zond inject --elf --event
# mcycle,minstret on qemu-system-riscv32/64 (progs/calls.c), against
# QEMU's execution log of the plain program (tests/bare/truth.py;
# independent of zond).  Under -icount shift=0 both counters count retired
# instructions, so:
#   - both events' calls and inclusive counts are exactly the log's (the
#     payload reads the second CSR next to the first, one constant cost
#     taken out of both); every call edge's inclusive sum is the same in
#     both events (the second's own edge table);
#   - --metrics computes IPC (its inputs, cycles and instructions, in one
#     run) and it is exactly 1 for every function; share and per-call are
#     not computed (no time in this run);
#   - refused with one line: three counters, the same one twice, a
#     perf_event name over GDB, two counters with --region.
#
# Usage: ipc.sh ZOND WORKDIR SRCDIR    (exit 77: cross tools missing)
set -u
zond=$1 dir=$2/ipc src=$3
. "$src/rv.sh"
rv_need riscv64-unknown-elf-objdump qemu-system-riscv32 qemu-system-riscv64 python3 sqlite3
mkdir -p "$dir" && cd "$dir" || exit 1
rm -f ./*.db
. "$src/../cli/lib.sh"

# name calls inclusive, of event $2 in store $1
fns="-f main -f work -f fib -f leaf -f twice"
for xlen in 32 64; do
	elf=calls$xlen.elf
	rv_build $xlen $elf "$src/progs/calls.c" -fno-optimize-sibling-calls || exit 1
	qemu=$(rv_qemu $xlen)
	rv_truth $xlen $elf | awk '$1 ~ /^(main|work|fib|leaf|twice)$/' | LC_ALL=C sort >truth.txt
	$qemu -kernel $elf >want.txt 2>/dev/null
	want_status=$?
	"$zond" inject -q -o i$xlen.db -c i$xlen --elf $elf --event mcycle,minstret --metrics $fns \
		-- $qemu -kernel $elf >got.txt 2>err.txt
	check_eq "rv$xlen: the program's status" $? $want_status
	check_same "rv$xlen: the program's output" got.txt want.txt
	for ev in mcycle minstret; do
		check_eq "rv$xlen: $ev: calls and inclusive as the log's" "$(rv_table i$xlen.db -e $ev)" \
			"$(cat truth.txt)"
	done
	check_eq "rv$xlen: both events' edge sums equal" \
		"$(sqlite3 i$xlen.db 'select count(*) from edge_costs a join edge_costs b
			on a.run = b.run and a.edge = b.edge and a.event < b.event and a.incl = b.incl and a.incl > 0')" \
		"$(sqlite3 i$xlen.db 'select count(*) from edges')"
	check_eq "rv$xlen: IPC 1 for every function" \
		"$(grep '^  [a-z]* calls=' err.txt | LC_ALL=C sort)" \
		"$(awk '{ printf "  %s calls=%s ipc=1\n", $1, $2 }' truth.txt)"
	check_eq "rv$xlen: share needs time, not in this run" \
		"$(grep -c '^  share .*not computed' err.txt)" 1
done

elf=calls32.elf qemu=$(rv_qemu 32)
check_error "three counters" "--event mcycle,minstret,mhpmcounter3: over GDB at most two counters in one run (e.g. mcycle,minstret)" \
	"$zond" inject --elf $elf --event mcycle,minstret,mhpmcounter3 -- $qemu -kernel $elf
check_error "the same counter twice" "--event minstret,minstret: the same counter twice" \
	"$zond" inject --elf $elf --event minstret,minstret -- $qemu -kernel $elf
check_error "a perf_event name over GDB" "--event cycles: over GDB the counter is mcycle, minstret or mhpmcounterN (3..31)[=EVENT]" \
	"$zond" inject --elf $elf --event mcycle,cycles -- $qemu -kernel $elf
check_error "two counters and --region" "--event mcycle,minstret: two counters in one run go with functions (-f), not --region, --descend or --safe-point" \
	"$zond" inject --elf $elf --event mcycle,minstret --region work,fib -- $qemu -kernel $elf
finish
