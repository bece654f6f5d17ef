#!/bin/sh
# crash.sh - zond inject over GDB on a program that crashes
# (progs/crash.c on qemu-system-riscv32: an illegal instruction inside
# fall(), reported by picolibc's trap handler, which exits with status 1):
#   - its output and status are as without zond (the fault's report names
#     the same cause and pc; ra differs: zond replaced fall's return address);
#   - what was measured is kept: step's 100 calls and inclusive instructions
#     as QEMU's execution log gives them (truth.py), main and fall counted
#     as calls that never returned (meta inject_calls_never_returned 2).
#
# Usage: crash.sh ZOND WORKDIR SRCDIR    (exit 77: cross tools missing)
set -u
zond=$1 dir=$2/crash src=$3
truth=$src/../../tests/bare/truth.py
. "$src/rv.sh"
rv_need riscv64-unknown-elf-objdump qemu-system-riscv32 python3 sqlite3
mkdir -p "$dir" && cd "$dir" || exit 1
rm -f ./*.db
. "$src/../cli/lib.sh"

elf=crash.elf
rv_build 32 $elf "$src/progs/crash.c" || exit 1
qemu=$(rv_qemu 32)
$qemu -kernel $elf >want.txt 2>/dev/null
check_eq "plain status" $? 1
$qemu -singlestep -d exec,nochain -D exec.log -kernel $elf >/dev/null 2>&1
python3 "$truth" $elf riscv64-unknown-elf-objdump exec.log | awk '$1 == "step"' >truth.txt
rm -f exec.log

"$zond" inject -q -o c.db --elf $elf -f step -f fall -f main -- $qemu -kernel $elf >got.txt 2>err.txt
check_eq "status under zond inject" $? 1
grep -v '^	x1 ' want.txt >want2.txt
grep -v '^	x1 ' got.txt >got2.txt
check_same "output but ra" got2.txt want2.txt
grep -q "mcause:   0x00000002" got.txt || fail "no illegal-instruction fault: $(cat got.txt)"
check_eq "step's calls and inclusive as QEMU's log" \
	"$("$zond" report -i c.db --raw | awk '$8 == "step" { print $8, $1, $2 }')" "$(cat truth.txt)"
check_eq "main and fall: one call each, never returned" \
	"$("$zond" report -i c.db --raw | awk '$8 == "main" || $8 == "fall" { print $8, $1 }' | LC_ALL=C sort)" \
	"fall 1
main 1"
check_eq "meta" "$(sqlite3 c.db "select value from run_meta where key = 'inject_calls_never_returned'")" 2
finish
