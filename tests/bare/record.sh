#!/bin/sh
# record.sh - the bare-metal runtime end to end on one RISC-V target: a
# program built with `zond config --target`, run under qemu-system with
# semihosting and -icount shift=0 by `zond record`, checked against
#   - the program itself: same output and exit status as without zond, and
#     its own call counters equal zond's counts (a loop, a recursion and its
#     self edge, a block around a critical section with interrupts off);
#   - QEMU's execution log of the same binary (-singlestep -d exec,nochain,
#     read by truth.py): under icount the cycle counter is the number of
#     instructions retired, and zond's inclusive cycles of every function
#     must equal the instructions the function ran, zond's own left out.
# A program without the runtime, an unknown target, a missing ELF and a
# Linux-only option give one error line each.
#
# Usage: record.sh ZOND XLEN WORKDIR SRCDIR    (exit 77: cross tools missing)
set -u
zond=$1 xlen=$2 src=$4
dir=$3/rv$xlen
. "$src/../cli/lib.sh"
. "$src/build.sh"

# The program as it is, then under zond: the same output and status.
$run -kernel plain.elf >want.txt 2>&1
check_eq "status without zond" $? 3
check_eq "output" "$(cat want.txt)" "leaf=13 fib=465 critical=3 fixed=7 sum=296"
"$zond" record -q -o zond.db --keep-raw -- $run -kernel app.elf >got.txt 2>record.err
check_eq "status under zond record" $? 3
check_same "output under zond record" got.txt want.txt
kept=$(sed -n 's/^zond record: raw data kept in \([^ ]*\).*/\1/p' record.err)
[ -d "$kept" ] || fail "no raw data directory in: $(cat record.err)"

# Counts: the program's own counters, and the recursion's self edge.
"$zond" report -i zond.db --raw -s name >report.txt || fail "report"
calls() { awk -v f="$1" '$NF == f { print $1 }' report.txt; }
check_eq "leaf calls" "$(calls leaf)" 13
check_eq "fib calls" "$(calls fib)" 465
check_eq "fixed calls" "$(calls fixed)" 7
check_eq "critical block" "$(awk 'NF > 2 && $(NF-1) == "critical" && $NF == "[block]" { print $1 }' report.txt)" 3
"$zond" dump -i zond.db >dump.txt || fail "dump"
grep -qx "call fib -> fib calls=464" dump.txt || fail "fib -> fib edge: $(grep 'fib -> fib' dump.txt)"
grep -qx "call critical -> leaf calls=3" dump.txt || fail "critical -> leaf edge: $(grep critical dump.txt)"
check_eq "arch" "$(sed -n 's/^arch: *//p' report.txt)" riscv$xlen

# Calling contexts (the call tree): fib(12)'s calls at each depth of its
# recursion, counted here from fib's definition, and leaf's calls straight
# from main (its 10) apart from those inside the critical block (3).
"$zond" graph --tree -i zond.db >tree.txt || fail "graph --tree"
check_eq "fib calls per depth" "$(awk '$NF == "fib" { printf "%s ", $1 }' tree.txt)" \
	"$(awk 'function f(n, d) { c[d]++; if (n >= 2) { f(n - 1, d + 1); f(n - 2, d + 1) } }
		BEGIN { f(12, 0); for (d = 0; d in c; d++) printf "%d ", c[d] }')"
leaf_ctx() { awk '$NF == "leaf" { match($0, /%  */); print RLENGTH, $1 }' tree.txt | sort -n | awk '{ printf "%s ", $2 }'; }
check_eq "leaf calls per context (main, then the block)" "$(leaf_ctx)" "10 3 "
check_eq "clock" "$(sed -n 's/^clock: *//p' report.txt)" mcycle

# zond's own cost, accounted exactly (doc/bare-metal.md): against QEMU's
# log of the same binary (-singlestep -d exec,nochain, where under icount
# each logged instruction is one cycle), every instrumented function's
# calls and inclusive cycles equal the instructions it ran, zond's entry
# points and everything they ran left out (truth.py, which reads only the
# log and the ELF).  A block is not in the truth; the functions around one are.
check_truth() { # check_truth ELF REPORT: zond's calls and inclusive cycles against QEMU's log
	$run -singlestep -d exec,nochain -D exec.log -kernel "$1" >/dev/null 2>&1
	python3 "$src/truth.py" "$1" riscv64-unknown-elf-objdump exec.log >truth.txt || fail "truth.py"
	rm -f exec.log
	awk '!/^@/ { print $1, $2, $3 }' truth.txt | LC_ALL=C sort >want_incl.txt
	awk 'NF >= 8 && $1 ~ /^[0-9]+$/ && $NF != "[block]" { print $NF, $1, $2 }' "$2" |
		LC_ALL=C sort >got_incl.txt
	check_eq "$1: functions in the truth" "$(awk '{ printf "%s ", $1 }' want_incl.txt)" "critical down fib fixed leaf main square "
	check_same "$1: calls and inclusive cycles of every function = QEMU's log" got_incl.txt want_incl.txt
	zond_insns=$(sed -n 's/^@zond //p' truth.txt)
	[ "$zond_insns" -gt 0 ] || fail "no instruction of zond's in the log"
	echo "rv$xlen $1: every function exact; zond ran $zond_insns of $(sed -n 's/^@total //p' truth.txt) instructions"
}
check_truth app.elf report.txt

# -msave-restore (a common size option): prologues call libgcc's millicode (jal t0,
# __riscv_save_N, back with jr t0) and epilogues jump to __riscv_restore_N; leaf, run from
# RAM, reaches them only by auipc and jalr.  The millicode is the function's.
build_counts sr.elf -msave-restore -DCOUNTS_RAM
"$zond" record -q -o sr.db -- $run -kernel sr.elf >got.txt 2>record.err
check_eq "status of the -msave-restore build under zond record" $? 3
check_same "output of the -msave-restore build" got.txt want.txt
"$zond" report -i sr.db --raw -s name >sr.txt || fail "report sr.db"
check_truth sr.elf sr.txt

# A program without the runtime: one line, and its own status.
check_error "no runtime" "left no profile data" "$zond" record -q -o zond.db -- $run -kernel plain.elf
check_error "unknown target" "unknown target 'rv99'" "$zond" config --target rv99 --cflags
check_error "not a RISC-V ELF" "$zond: not a RISC-V ELF file" "$zond" record -q -o zond.db --elf "$zond" -- $run -kernel app.elf
check_error "missing ELF" "nothere.elf" "$zond" record -q -o zond.db --elf nothere.elf -- $run -kernel app.elf
check_error "bare target with a Linux option" "bare-metal target" "$zond" record -q -o zond.db --no-time -- $run -kernel app.elf
rm -rf "$kept"
finish
