#!/bin/sh
# crash.sh - zond inject over GDB on a program that crashes
# (progs/crash.c on qemu-system-riscv32: an illegal instruction inside
# fall(), reported by picolibc's trap handler, which exits with status 1):
#   - its output and status are as without zond (the fault's report names
#     the same cause and pc; ra differs: zond replaced fall's return address);
#   - what was measured is kept: step's 100 calls and inclusive instructions
#     as QEMU's execution log gives them (truth.py), main and fall counted
#     as calls that never returned (meta inject_calls_never_returned 2);
#   - a stop zond did not cause (QEMU's monitor pauses the machine): one
#     line, what was read kept, stored as a partial run.
#
# Usage: crash.sh ZOND WORKDIR SRCDIR    (exit 77: cross tools missing)
set -u
zond=$1 dir=$2/crash src=$3
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
rv_truth 32 $elf | awk '$1 == "step"' >truth.txt

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
# a stop zond did not cause (QEMU's monitor pauses the machine: its gdbstub reports T02):
# one line, what was read kept, a partial run; "stop" is sent once the program said it ran tick
# (with zond's entry in: calls to keep), then until zond is gone
rv_build 32 forever.elf "$src/progs/forever.c" || exit 1
rm -f mon.sock
"$zond" inject -q -o u.db --elf forever.elf -f tick -- $qemu -kernel forever.elf \
	-monitor unix:$PWD/mon.sock,server=on,wait=off >u.out 2>u.err &
zpid=$!
rv_await "unexpected stop" u.out "^ticking$" $zpid
python3 - "$PWD/mon.sock" $zpid <<'PY'
import os, socket, sys, time
path, zpid = sys.argv[1], int(sys.argv[2])
for _ in range(100):
    if os.path.exists(path):
        break
    time.sleep(0.1)
s = socket.socket(socket.AF_UNIX)
s.connect(path)
for _ in range(100):
    time.sleep(0.3)
    if not os.path.exists("/proc/%d" % zpid):
        break
    try:
        s.sendall(b"stop\n")
    except OSError:
        break
PY
wait $zpid
check_eq "unexpected stop: status" $? 1
check_eq "unexpected stop: one line" "$(grep -c '^zond' u.err)" 1
grep -q "^zond inject: .*: the target stopped unexpectedly (T02) at 0x[0-9a-f]*; stored as a partial run$" u.err ||
	fail "unexpected stop: $(cat u.err)"
calls=$("$zond" report -i u.db --raw | awk '$8 == "tick" { print $1 }')
[ "${calls:-0}" -gt 0 ] || fail "unexpected stop: no calls of tick kept"
finish
