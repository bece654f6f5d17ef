#!/bin/sh
# descend.sh - zond inject --descend over GDB on qemu-system-riscv32
# (progs/calls.c: main -> work -> leaf, twice -> leaf, fib), a fresh QEMU
# per run, against QEMU's execution log of the plain program (truth.py):
#   - --threshold 0: every function reached measured alone, one run each,
#     calls and inclusive instructions exactly the log's; the first pass
#     is a campaign of its own (NAME.graph);
#   - --threshold 90: twice is pruned with the bound its one caller gives
#     (work's inclusive count, from the log) against the whole (main's);
#     fib and leaf are not (their callers: work and fib itself, work and
#     twice, add up to more than 90% of main) and are measured, exactly;
#   - the program's output once per run, its exit status zond's;
#   - every function (no -f): _cstart and exit, which never return, are
#     passed through: main and below measured, exactly;
#   - --descend with --gdb (a target that cannot be rerun): one line.
#
# Usage: descend.sh ZOND WORKDIR SRCDIR    (exit 77: cross tools missing)
set -u
zond=$1 dir=$2/descend src=$3
. "$src/rv.sh"
rv_need riscv64-unknown-elf-objdump qemu-system-riscv32 python3 sqlite3
mkdir -p "$dir" && cd "$dir" || exit 1
rm -f ./*.db
. "$src/../cli/lib.sh"

elf=calls32.elf
rv_build 32 $elf "$src/progs/calls.c" -fno-optimize-sibling-calls || exit 1
qemu=$(rv_qemu 32)
$qemu -kernel $elf >want.txt 2>/dev/null
rv_truth 32 $elf | awk '$1 ~ /^(main|work|fib|leaf|twice)$/' | LC_ALL=C sort >truth.txt
incl() { awk -v f=$1 '$1 == f { print $3 }' truth.txt; }
fns="-f main -f work -f fib -f leaf -f twice"

"$zond" inject -o d.db -c all --elf $elf --descend --threshold 0 $fns -- $qemu -kernel $elf \
	>got.txt 2>err.txt
check_eq "--threshold 0: status" $? 5
check_eq "--threshold 0: output once per run" "$(sort -u got.txt) $(wc -l <got.txt)" "$(cat want.txt) 6"
check_eq "--threshold 0: runs" "$(sqlite3 d.db "select count(*) from runs join campaigns c on c.id = campaign where c.name = 'all'")" 5
check_eq "--threshold 0: the first pass" \
	"$(sqlite3 d.db "select count(*) from runs join campaigns c on c.id = campaign where c.name = 'all.graph'")" 1
check_eq "--threshold 0: calls and inclusive as QEMU's log" "$(rv_table d.db -C all)" "$(cat truth.txt)"
grep -q "descent: 5 functions measured, 0 pruned, 0 never reached" err.txt ||
	fail "--threshold 0: $(grep descent: err.txt)"

"$zond" inject -o d.db -c t90 --elf $elf --descend --threshold 90 $fns -- $qemu -kernel $elf \
	>got.txt 2>err.txt
check_eq "--threshold 90: status" $? 5
check_eq "--threshold 90: measured as QEMU's log" "$(rv_table d.db -C t90)" \
	"$(awk '$1 != "twice"' truth.txt)"
check_eq "--threshold 90: pruned" "$(grep "pruned [a-z]*:" err.txt)" \
	"zond inject: pruned twice: bound $(incl work) ns, under 90% of $(incl main) ns"
grep -q "descent: 4 functions measured, 1 pruned, 0 never reached" err.txt ||
	fail "--threshold 90: $(grep descent: err.txt)"

# every function (no -f): picolibc's roots _cstart and exit never return (no root edge in
# the first pass), the descent goes on from their callees: main and below measured as QEMU's
# log gives them (QA s12 F5: "0 functions measured")
"$zond" inject -o d.db -c nof --elf $elf --descend --threshold 0 -- $qemu -kernel $elf \
	>got.txt 2>err.txt
check_eq "every function: status" $? 5
check_eq "every function: main and below as QEMU's log" \
	"$(rv_table d.db -C nof | awk '$1 ~ /^(main|work|fib|leaf|twice)$/')" "$(cat truth.txt)"
grep -q "descent: 0 functions measured" err.txt && fail "every function: $(grep descent: err.txt)"

check_error "--descend with --gdb" "--descend reruns the program: give QEMU's command after --, not --gdb" \
	"$zond" inject --elf $elf --descend --gdb 127.0.0.1:1
finish
