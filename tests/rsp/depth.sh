#!/bin/sh
# depth.sh - zond inject --elf --depth N: the shadow stack sized for the
# firmware (progs/deep.c: walk() runs a recursion 51 calls deep, 3 times,
# each level but the last calling leaf()), on qemu-system-riscv32/64:
#   - scratch RAM of 8 KiB, which the default 256 calls (8 KiB of frames
#     on rv32, 16 on rv64) do not fit in: one line saying it is full, the
#     firmware's output and status as without zond; with --depth 64 the run
#     fits there, every call measured, calls and inclusive instructions
#     exact against QEMU's log;
#   - --depth 8, calls nested deeper than that: the output and status as
#     without zond, every call counted (calls equal to QEMU's log), the
#     calls beyond the 8th level counted as lost_depth_calls (exactly the
#     firmware's: 3 walks x (rec's 44 levels beyond + leaf's 44)), not
#     timed, and the measured ones still exact: walk's and rec's inclusive
#     instructions equal QEMU's log (the unmeasured calls' payload is taken
#     out of the measured call they run inside);
#   - --depth 0, negative, not a number, beyond 1048576: one line, status 2;
#     --depth without --elf (Linux inject) and with --region: refused.
# Before, the depth was a constant: --depth was an unknown option.
#
# Usage: depth.sh ZOND WORKDIR SRCDIR    (exit 77: cross tools missing)
set -u
zond=$1 dir=$2/depth src=$3
. "$src/rv.sh"
rv_need qemu-system-riscv32 qemu-system-riscv64
mkdir -p "$dir" && cd "$dir" || exit 1
rm -f ./*.db
. "$src/../cli/lib.sh"

levels=50 walks=3 # deep.c's LEVELS and WALKS
small=0x80080000,0x2000 # RAM in the gap after the flash image, within a jal's reach
for xlen in 32 64; do
	elf=deep$xlen.elf
	rv_build $xlen $elf "$src/progs/deep.c" || exit 1
	qemu=$(rv_qemu $xlen)
	$qemu -kernel $elf >want.txt 2>/dev/null
	check_eq "rv$xlen: plain status" $? 5
	check_eq "rv$xlen: plain output" "$(cat want.txt)" "walk=3 rec=153 leaf=150 sum=539"
	rv_truth $xlen $elf | grep -E '^(walk|rec|leaf) ' | LC_ALL=C sort >truth.txt

	# the default shadow stack does not fit in 8 KiB: one line, the firmware unchanged
	"$zond" inject -q -o full$xlen.db --elf $elf -f walk -f rec -f leaf --scratch $small -- \
		$qemu -kernel $elf >got.txt 2>err.txt
	check_eq "rv$xlen default depth in 8 KiB: status" $? 5
	check_same "rv$xlen default depth in 8 KiB: output" got.txt want.txt
	grep -q "^zond inject: qemu-system-riscv$xlen (pid [0-9]*): scratch RAM 0x80080000,0x2000 is full: [0-9]* bytes more wanted (--scratch ADDR,LEN gives more)$" err.txt ||
		fail "rv$xlen default depth in 8 KiB: the line: $(cat err.txt)"

	# --depth 64: fits, nothing deeper, all exact
	"$zond" inject -q -o d64_$xlen.db --elf $elf -f walk -f rec -f leaf --scratch $small \
		--depth 64 -- $qemu -kernel $elf >got.txt 2>err.txt
	check_eq "rv$xlen --depth 64 in 8 KiB: status" $? 5
	check_same "rv$xlen --depth 64 in 8 KiB: output" got.txt want.txt
	check_eq "rv$xlen --depth 64 in 8 KiB: zond's lines" "$(grep '^zond' err.txt)" ""
	check_eq "rv$xlen --depth 64 in 8 KiB: calls and inclusive exact" \
		"$(rv_table d64_$xlen.db)" "$(cat truth.txt)"
	"$zond" dump -i d64_$xlen.db | grep -q lost_depth_calls &&
		fail "rv$xlen --depth 64: lost_depth_calls: $("$zond" dump -i d64_$xlen.db | grep lost_depth)"

	# --depth 8: the calls nested deeper are counted, not timed; the rest exact
	"$zond" inject -o d8_$xlen.db --elf $elf -f walk -f rec -f leaf --depth 8 -- \
		$qemu -kernel $elf >got.txt 2>err.txt
	check_eq "rv$xlen --depth 8: status" $? 5
	check_same "rv$xlen --depth 8: output" got.txt want.txt
	lost=$((walks * 2 * (levels + 2 - 8))) # rec at levels 2..52, leaf at 3..52, walk at 1
	check_eq "rv$xlen --depth 8: lost_depth_calls" \
		"$("$zond" dump -i d8_$xlen.db | grep '^lost_depth_calls ')" "lost_depth_calls $lost"
	grep -q "^zond inject: $lost calls were deeper than the 8 measured calls nested at once the shadow stack holds: counted in their functions' calls, not timed" err.txt ||
		fail "rv$xlen --depth 8: the line: $(cat err.txt)"
	check_eq "rv$xlen --depth 8: calls of all, walk's and rec's inclusive exact" \
		"$(rv_table d8_$xlen.db | awk '$1 == "leaf" { $3 = "-" } 1')" \
		"$(awk '$1 == "leaf" { $3 = "-" } 1' truth.txt)"
done

# --coverage takes --depth as the run does: scratch RAM placed (scanning down
# from 1 MiB above the code) where --depth 1's window of trampolines is within
# a jal's reach of every function and the default depth's, 8160 bytes longer
# on rv32, is not for the lowest ones: their counts differ, and a run left out
# as many as --coverage says at each depth
elf=deep32.elf qemu=$(rv_qemu 32)
count() { "$zond" inject --coverage $elf "$@" | sed -n '1s/^\([0-9]*\) of .*/\1/p'; }
all=$(count)
at=$((0x80100000))
while [ $at -gt $((0x80080000)) ] && [ "$(count --scratch $(printf 0x%x $at),0x100000 --depth 1)" != "$all" ]; do
	at=$((at - 0x1000))
done
far=$(printf 0x%x $at),0x100000
d1=$(count --scratch $far --depth 1) d256=$(count --scratch $far)
check_eq "--coverage --scratch $far --depth 1" "$d1" "$all"
[ "$d256" -lt "$all" ] || fail "--coverage --scratch $far: $d256 of the $all functions, as --depth 1"
check_eq "--coverage --scratch $far --depth 256: as without --depth" "$(count --scratch $far --depth 256)" "$d256"
"$zond" inject -o far.db --elf $elf --scratch $far -- $qemu -kernel $elf >got.txt 2>err.txt
check_eq "default depth, scratch $far: status" $? 5
check_eq "default depth, scratch $far: output" "$(cat got.txt)" "walk=3 rec=153 leaf=150 sum=539"
check_eq "default depth, scratch $far: left out as --coverage says" \
	"$(sed -n 's/^zond inject: \([0-9]*\) functions left out: .*/\1/p' err.txt)" "$((all - d256))"
"$zond" inject -o far1.db --elf $elf --scratch $far --depth 1 -- $qemu -kernel $elf >got.txt 2>err.txt
check_eq "--depth 1, scratch $far: status" $? 5
check_eq "--depth 1, scratch $far: output" "$(cat got.txt)" "walk=3 rec=153 leaf=150 sum=539"
grep -q "functions left out" err.txt && fail "--depth 1, scratch $far: $(cat err.txt)"

# what --depth takes: one line, status 2
for bad in 0 -1 abc 8x 1048577 99999999999999999999; do
	check_error "--depth $bad" "--depth wants a number from 1 to 1048576, not '$bad'" \
		"$zond" inject -o bad.db --elf $elf --depth "$bad" -- $qemu -kernel $elf
	check_eq "--depth $bad: status" $rc 2
done
check_error "--depth on Linux" "--depth goes with --elf" "$zond" inject --depth 8 -- /bin/true
check_eq "--depth on Linux: status" $rc 2
check_error "--depth with --region" "--region has none" \
	"$zond" inject -o bad.db --elf $elf --region walk,leaf --depth 8 -- $qemu -kernel $elf
check_eq "--depth with --region: status" $rc 2
[ -e bad.db ] && fail "a refused --depth made a store"
finish
