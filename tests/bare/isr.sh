#!/bin/sh
# isr.sh - an instrumented interrupt handler (mret, not ret) under zond record: its calls are
# the program's own count, and each of its calls costs what the handler runs, not the time
# until the interrupted function returns (the handler's epilogue restores the interrupted
# code's ra, which the runtime took for the handler's return address: each call was charged
# thousands of instructions, the rest of the spin loop).  The spin loop's inclusive holds its
# 2 x 20000 instructions.
#
# Usage: isr.sh ZOND XLEN WORKDIR SRCDIR    (exit 77: cross tools missing)
set -u
zond=$1 xlen=$2 src=$4
dir=$3/isr-rv$xlen
. "$src/../cli/lib.sh"
. "$src/build.sh"

riscv64-unknown-elf-gcc $flags $cflags -o isr.elf "$src/progs/isr.c" $libs || exit 1
"$zond" record -q -o isr.db -- $run -kernel isr.elf >out.txt 2>err.txt
check_eq "status under zond record" $? 0
check_eq "output" "$(cat out.txt)" "handled=6 ticked=6"
"$zond" report -i isr.db --raw -n 0 >report.txt || fail "report"
# columns: calls total self avg min max share name
row() { awk -v f="$1" '$NF == f' report.txt; }
check_eq "handler calls" "$(row on_timer | awk '{ print $1 }')" 6
check_eq "count_tick calls" "$(row count_tick | awk '{ print $1 }')" 6
# the handler's body, its call and its register saves: well under 300 instructions a call
max=$(row on_timer | awk '{ print $6 }')
[ -n "$max" ] && [ "$max" -lt 300 ] && pass ||
	fail "the handler's dearest call: '$max' instructions (its body is about 110)"
spin=$(row spin | awk '{ print $2 }')
[ -n "$spin" ] && [ "$spin" -ge 40000 ] && pass || fail "spin's inclusive '$spin' < its loop's 40000"
finish
