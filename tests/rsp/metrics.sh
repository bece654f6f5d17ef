#!/bin/sh
# metrics.sh - zond inject --metrics and --event over GDB on
# qemu-system-riscv32 (progs/calls.c), against QEMU's execution log of the
# plain program (truth.py, region_truth.py; independent of zond):
#   - a run's whole is the program's own count from its entry point to
#     _exit (the counter's difference less the payload's instructions),
#     exactly the log's; so --metrics' share (inclusive / whole) and
#     per-call (inclusive / calls) of every measured function are the
#     log's values, as printed (%.4g); a region run's whole is the same;
#   - --event minstret and --event mhpmcounter3=2 (mhpmevent3 programmed
#     through GDB: QEMU's instructions event): calls and inclusive counts
#     exactly the log's (-icount shift=0: instructions); a region read
#     from mhpmcounter4=1 (cycles) too;
#   - bad --event: one line each (an unknown counter, =EVENT on minstret,
#     a counter the target's description does not have: then the program
#     runs as without zond, its output and status zond's).
#
# Usage: metrics.sh ZOND WORKDIR SRCDIR    (exit 77: cross tools missing)
set -u
zond=$1 dir=$2/metrics src=$3
truth=$src/../../tests/bare/truth.py
. "$src/rv.sh"
rv_need riscv64-unknown-elf-objdump riscv64-unknown-elf-nm qemu-system-riscv32 python3 sqlite3
mkdir -p "$dir" && cd "$dir" || exit 1
rm -f ./*.db
. "$src/../cli/lib.sh"

addr_of() { riscv64-unknown-elf-nm "$1" | awk -v f="$2" '$3 == f { print $1 }'; }

elf=calls32.elf
rv_build 32 $elf "$src/progs/calls.c" -fno-optimize-sibling-calls || exit 1
qemu=$(rv_qemu 32)
$qemu -singlestep -d exec,nochain -D exec.log -kernel $elf >/dev/null 2>&1
python3 "$truth" $elf riscv64-unknown-elf-objdump exec.log | LC_ALL=C sort >truth.txt
entry=$(riscv64-unknown-elf-readelf -h $elf | awk '/Entry point/ { sub("0x", "", $4); print $4 }')
whole=$(python3 "$src/region_truth.py" exec.log $entry $(addr_of $elf _exit) | cut -d' ' -f2)
python3 "$src/region_truth.py" exec.log $(addr_of $elf work) $(addr_of $elf fib) >region.txt
rm -f exec.log
fns="-f main -f work -f fib -f leaf -f twice"

# the whole and --metrics
"$zond" inject -o m.db -c m --elf $elf --metrics $fns -- $qemu -kernel $elf >/dev/null 2>err.txt
check_eq "--metrics: status" $? 5
check_eq "the run's whole as the log's" "$(sqlite3 m.db 'select duration_ns from runs')" "$whole"
grep '^  [a-z]* calls=' err.txt | LC_ALL=C sort >got_metrics.txt
awk '$1 ~ /^(main|work|fib|leaf|twice)$/' truth.txt | python3 -c '
import sys
whole = int(sys.argv[1])
for line in sys.stdin:
    name, calls, incl = line.split()
    calls, incl = int(calls), int(incl)
    print("  %s calls=%d share=%.4g%% per-call=%.4gns" % (name, calls, 100 * incl / whole, incl / calls))
' "$whole" >want_metrics.txt
sed 's/ self-share=[^ ]*//' got_metrics.txt >got_metrics2.txt
check_same "--metrics: share and per-call as the log's" got_metrics2.txt want_metrics.txt
"$zond" inject -q -o r.db --elf $elf --region work,fib -- $qemu -kernel $elf >/dev/null 2>&1
check_eq "a region run's whole as the log's" "$(sqlite3 r.db 'select duration_ns from runs')" "$whole"

# --event: the payload reads minstret, or mhpmcounter3 counting instructions
awk '$1 ~ /^(main|work|fib|leaf|twice)$/' truth.txt >truth5.txt
for ev in minstret mhpmcounter3=2; do
	rm -f e.db
	"$zond" inject -q -o e.db --elf $elf --event $ev $fns -- $qemu -kernel $elf >/dev/null 2>err.txt
	check_eq "--event $ev: status" $? 5
	check_eq "--event $ev: calls and inclusive as the log's" "$(rv_table e.db)" "$(cat truth5.txt)"
	check_eq "--event $ev: the run's clock" "$(sqlite3 e.db 'select clock from runs')" "$ev"
done
"$zond" inject -q -o er.db --elf $elf --event mhpmcounter4=1 --region work,fib -- $qemu -kernel $elf \
	>/dev/null 2>&1
check_eq "--event mhpmcounter4=1 --region: passes as the log's" \
	"$("$zond" report -i er.db --raw | awk '/\[block\]/ { print $1, $2, $5, $6 }')" "$(cat region.txt)"

# bad --event: one line
check_error "unknown counter" "--event mhpmcounter2: over GDB the counter is mcycle, minstret or mhpmcounterN (3..31)[=EVENT]" \
	"$zond" inject --elf $elf --event mhpmcounter2 -- $qemu -kernel $elf
check_error "=EVENT on minstret" "--event minstret=3: minstret counts what it counts" \
	"$zond" inject --elf $elf --event minstret=3 -- $qemu -kernel $elf
$qemu -kernel $elf >want.txt 2>/dev/null
"$zond" inject -q -o x.db --elf $elf --event mhpmcounter31 -f leaf -- $qemu -kernel $elf >got.txt 2>err.txt
check_eq "a counter the target lacks: the program's status" $? 5
check_same "a counter the target lacks: the program's output" got.txt want.txt
check_eq "a counter the target lacks: one line" "$(grep -v 'qemu-system.*warning' err.txt | sed 's/^.*: the target/the target/')" \
	"the target has no register mhpmcounter31"
finish
