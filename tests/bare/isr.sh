#!/bin/sh
# isr.sh - an instrumented interrupt handler (mret, not ret) under zond record: its calls are
# the program's own count, and each of its calls costs what the handler runs, not the time
# until the interrupted function returns (the handler's epilogue restores the interrupted
# code's ra, which the runtime took for the handler's return address: each call was charged
# thousands of instructions, the rest of the spin loop).  The spin loop's inclusive holds its
# 2 x 20000 instructions.  The same with interrupts landing inside the hooks (below).
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

# -DISR_IN_HOOKS: 40 interrupts land all over the hooks' shells while main calls an empty
# instrumented function; the handler's hooks run inside them.  No function may be charged more
# than it ran (bound.py, QEMU's log of the same run: every instruction but the runtime's, the
# handler's all counted): before, a handler's hooks that ended between a hook's last counter
# read and its write of zb_own were lost, their cost charged to the program (QA s15 W3 F1:
# main +27%, a 73-instruction call charged 2296).  A call may hold one pass of a hook's first
# reads more (a handler's hooks ended there: read again), a few instructions.
riscv64-unknown-elf-gcc $flags $cflags -DISR_IN_HOOKS -o hooks.elf "$src/progs/isr.c" $libs || exit 1
"$zond" record -q -o hooks.db -- $run -kernel hooks.elf -singlestep -d exec,nochain -D exec.log \
	>out.txt 2>err.txt
check_eq "in hooks: status" $? 0
check_eq "in hooks: output" "$(cat out.txt)" "handled=40 ticked=40"
"$zond" report -i hooks.db --raw -n 0 >report.txt || fail "report"
lib=$(echo "$libs" | sed -n 's/^-L\([^ ]*\) .*/\1/p')/libzond-$march.a
python3 "$src/bound.py" hooks.elf riscv64-unknown-elf-objdump exec.log "$lib" main pause_once \
	>bound.txt || fail "bound.py"
rm -f exec.log
check_eq "in hooks: handler calls" "$(row on_timer | awk '{ print $1 }')" 40
check_eq "in hooks: count_tick calls" "$(row count_tick | awk '{ print $1 }')" 40
bound() { awk -v f="$1" -v c="$2" '$1 == f { print $c }' bound.txt; }
main=$(row main | awk '{ print $2 }')
[ -n "$main" ] && [ "$main" -le "$(bound main 2)" ] && pass ||
	fail "in hooks: main's inclusive '$main' > the $(bound main 2) instructions it ran at most"
max=$(row pause_once | awk '{ print $6 }')
[ -n "$max" ] && [ "$max" -le $(($(bound pause_once 3) + 24)) ] && pass ||
	fail "in hooks: pause_once's dearest call '$max' > the $(bound pause_once 3) instructions of its longest"
finish
