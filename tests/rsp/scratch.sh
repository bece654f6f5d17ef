#!/bin/sh
# scratch.sh - zond inject over GDB: where its scratch RAM goes (QA s15 W3 F3, F5):
#   - one function in RAM (progs/ramfunc.c: ramfn in .data, 2 MiB above the
#     flash code): the functions in flash are checked against the scratch RAM
#     the run takes (the default, after the flash image), not against the RAM
#     function's page: injectable, and measured exactly (calls and inclusive
#     instructions as QEMU's log), the program's output and status unchanged;
#     ramfn (out of a jal's reach) left out with its reason; --coverage and the
#     run agree;
#   - QEMU's sifive_e (code in XIP flash at 0x20400000, 16 KiB RAM at
#     0x80000000): the default scratch RAM is flash, where QEMU's gdbstub writes
#     but the hart's stores are dropped: one line naming --scratch, and the
#     program runs as without zond (it crashed silently before).
#
# Usage: scratch.sh ZOND WORKDIR SRCDIR    (exit 77: cross tools missing)
set -u
zond=$1 dir=$2/scratch src=$3
. "$src/rv.sh"
rv_need riscv64-unknown-elf-objdump riscv64-unknown-elf-nm qemu-system-riscv32 python3
mkdir -p "$dir" && cd "$dir" || exit 1
rm -f ./*.db
. "$src/../cli/lib.sh"

# --- one function in RAM (gas warns of the code section's attributes: expected)
rv_build 32 ram.elf "$src/progs/ramfunc.c" 2>/dev/null || exit 1
qemu=$(rv_qemu 32)
$qemu -kernel ram.elf >want.txt 2>/dev/null
check_eq "ramfunc: plain status" $? 3
rv_truth 32 ram.elf | LC_ALL=C sort >truth.txt
"$zond" inject --coverage ram.elf >cov.txt
for f in leaf mid main; do
	grep -q "^refused $f " cov.txt && fail "ramfunc: --coverage refuses $f: $(grep "^refused $f " cov.txt)"
done
grep -q "^refused ramfn (0x80200000): its trampoline (0x8000[0-9a-f]*-0x80[0-9a-f]*) is out of a jal's reach (1 MiB) from 0x80200000, and " cov.txt ||
	fail "ramfunc: ramfn's reason: $(grep ramfn cov.txt)"
"$zond" inject -q -o ram.db -c ram --elf ram.elf -f leaf -f mid -f ramfn -- $qemu -kernel ram.elf \
	>got.txt 2>err.txt
check_eq "ramfunc: status under zond" $? 3
check_same "ramfunc: output under zond" got.txt want.txt
grep -q "^zond inject: -f ramfn: ramfn (0x80200000) cannot be injected: its trampoline (0x8000[0-9a-f]*-0x80[0-9a-f]*) is out of a jal's reach (1 MiB) from 0x80200000, and " err.txt ||
	fail "ramfunc: the line for ramfn: $(cat err.txt)"
"$zond" inject -o all.db -c all --elf ram.elf -- $qemu -kernel ram.elf >got1.txt 2>err1.txt
check_eq "ramfunc, every function: status under zond" $? 3
check_same "ramfunc, every function: output under zond" got1.txt want.txt
grep -q "^zond inject: 1 functions left out: scratch RAM 0x8000[0-9a-f]*,0x[0-9a-f]* (the default: give --scratch) is out of the jump's reach" err1.txt ||
	fail "ramfunc, every function: the line for ramfn: $(cat err1.txt)"
check_eq "ramfunc, every function: as many as --coverage says" \
	"$(sed -n 's/^zond inject: \([0-9]*\) functions of ram.elf.*/\1/p' err1.txt)" \
	"$(sed -n 's/^\([0-9]*\) of .*/\1/p' cov.txt)"
check_eq "ramfunc, every function: leaf and mid exact" \
	"$(rv_table all.db | grep -E '^(leaf|mid) ')" "$(grep -E '^(leaf|mid) ' truth.txt)"
# --scratch next to the code: the same
"$zond" inject -q -o ram2.db -c ram2 --elf ram.elf -f leaf -f mid --scratch 0x80080000,0x10000 \
	-- $qemu -kernel ram.elf >got2.txt 2>err2.txt
check_eq "ramfunc --scratch: status" $? 3
check_same "ramfunc --scratch: output" got2.txt want.txt
check_eq "ramfunc --scratch: leaf and mid exact" "$(rv_table ram2.db)" "$(grep -E '^(leaf|mid) ' truth.txt)"
# --scratch too small: one line naming the QEMU zond started (it named zond's
# own socket, /tmp/zond-gdb-XXXXXX/gdb), and the program runs as without zond
"$zond" inject -q -o small.db -c small --elf ram.elf -f leaf -f mid --scratch 0x80080000,0x100 \
	-- $qemu -kernel ram.elf >got3.txt 2>err3.txt
check_eq "--scratch too small: status" $? 3
check_same "--scratch too small: output" got3.txt want.txt
grep -q "^zond inject: qemu-system-riscv32 (pid [0-9]*): scratch RAM 0x80080000,0x100 is full: [0-9]* bytes more wanted (--scratch ADDR,LEN gives more)$" err3.txt ||
	fail "--scratch too small: the line: $(cat err3.txt)"

# --- sifive_e: code in flash, 16 KiB of RAM
rv_build 32 e.elf "$src/progs/ramfunc.c" -DRAMFN_IN_FLASH -Wl,--defsym=__flash=0x20400000 \
	-Wl,--defsym=__flash_size=0x400000 -Wl,--defsym=__ram=0x80000000 \
	-Wl,--defsym=__ram_size=0x4000 2>/dev/null || exit 1
eq=$(echo "$qemu" | sed 's/-machine virt/-machine sifive_e/')
$eq -kernel e.elf >ewant.txt 2>/dev/null
check_eq "sifive_e: plain status" $? 3
timeout 60 "$zond" inject -q -o e.db -c e --elf e.elf -f leaf --duration 20 -- $eq -kernel e.elf \
	>egot.txt 2>eerr.txt
check_eq "sifive_e: status under zond (the program's)" $? 3
check_same "sifive_e: output under zond" egot.txt ewant.txt
check_eq "sifive_e: one line" "$(grep -c '^zond' eerr.txt)" 1
grep -q "^zond inject: scratch RAM at 0x204[0-9a-f]*: the debugger's writes read back but the program's own stores there do not land (flash or ROM?): give RAM the program does not use with --scratch ADDR,LEN$" eerr.txt ||
	fail "sifive_e: $(cat eerr.txt)"

finish
