#!/bin/sh
# region.sh - zond inject --region over GDB on qemu-system-riscv32/64:
#   - every pass's instructions from FROM to TO as QEMU's execution log of
#     the plain program gives them (region_truth.py, independent of zond):
#     passes, sum, min and max exactly (under -icount shift=0 mcycle counts
#     instructions; the counter is read at breakpoints, nothing of zond's
#     runs inside a pass);
#   - FROM,TO by name (work,fib: passes of different lengths, a TO with no
#     pass open ignored) and as 0xADDR,FUNC+OFFSET (leaf's entry to its ret:
#     as many passes as the program counts calls of leaf, all the same);
#   - the program's output and exit status as without zond;
#   - --gdb --duration on a QEMU the test started: passes measured, QEMU
#     runs on, a second attachment works (the breakpoints were taken out);
#   - QEMU killed while the program runs: the passes measured are kept,
#     one line, status 1, the run stored as partial;
#   - a point inside an instruction: one line.
#
# Usage: region.sh ZOND WORKDIR SRCDIR    (exit 77: cross tools missing)
set -u
zond=$1 dir=$2/region src=$3
. "$src/rv.sh"
rv_need riscv64-unknown-elf-objdump riscv64-unknown-elf-nm qemu-system-riscv32 \
	qemu-system-riscv64 python3 sqlite3
mkdir -p "$dir" && cd "$dir" || exit 1
rm -f ./*.db
. "$src/../cli/lib.sh"

# "passes sum min max" of the region's record in zond's report
zond_passes() {
	"$zond" report -i "$1" --raw | awk '/\[block\]/ { print $1, $2, $5, $6 }'
}
addr_of() { riscv64-unknown-elf-nm "$1" | awk -v f="$2" '$3 == f { print $1 }'; }
# ret_of ELF FUNC: the address of FUNC's first ret (hex, as objdump prints it)
ret_of() {
	riscv64-unknown-elf-objdump -d "$1" | awk -v f="<$2>:" '
		$2 == f { on = 1; next } on && /\tret/ { sub(":", "", $1); print $1; exit }'
}

for xlen in 32 64; do
	elf=calls$xlen.elf
	rv_build $xlen $elf "$src/progs/calls.c" -fno-optimize-sibling-calls || exit 1
	qemu=$(rv_qemu $xlen)
	$qemu -kernel $elf >want$xlen.txt 2>/dev/null
	check_eq "rv$xlen: plain status" $? 5
	$qemu -singlestep -d exec,nochain -D exec$xlen.log -kernel $elf >/dev/null 2>&1
	leaf=$(addr_of $elf leaf)
	# leaf+RET: the offset of leaf's ret (straight-line: one length for every pass)
	ret=$(ret_of $elf leaf)
	off=$(printf '%d' $((0x$ret - 0x$leaf)))
	for region in "work,fib $(addr_of $elf work) $(addr_of $elf fib)" \
		"0x$leaf,leaf+$off $leaf $ret"; do
		set -- $region
		python3 "$src/region_truth.py" exec$xlen.log $2 $3 >truth.txt
		db=r$xlen-$(echo "$1" | tr -c 'a-z0-9\n' _).db
		"$zond" inject -q -o $db --elf $elf --region $1 -- $qemu -kernel $elf >got.txt 2>err.txt
		rc=$?
		check_eq "rv$xlen --region $1: status ($(grep -v warning err.txt))" $rc 5
		check_same "rv$xlen --region $1: output" got.txt want$xlen.txt
		check_eq "rv$xlen --region $1: passes sum min max as QEMU's log" \
			"$(zond_passes $db)" "$(cat truth.txt)"
		[ "$(cut -d' ' -f1 truth.txt)" -gt 1 ] || fail "rv$xlen --region $1: $(cat truth.txt) passes"
	done
	want=$(sed -n 's/.*leaf=\([0-9]*\).*/\1/p' want$xlen.txt)
	check_eq "rv$xlen: passes through leaf as the program counts its calls" \
		"$(zond_passes r$xlen-0x${leaf}_leaf_$off.db | cut -d' ' -f1)" "$want"
	rm -f exec$xlen.log
done

# QEMU killed mid-run: the passes measured are kept, one line, status 1
qemu=$(rv_qemu 32)
rv_build 32 forever.elf "$src/progs/forever.c" || exit 1
tick=$(addr_of forever.elf tick) ret=$(ret_of forever.elf tick)
"$zond" inject -q -o lost.db --elf forever.elf --region tick,0x$ret -- $qemu -kernel forever.elf \
	>lost.out 2>lost.err &
zpid=$!
# killed once the program said it ran tick (100 passes, each read at its breakpoints), not
# after a time a loaded machine may need for less
rv_kill_qemu $zpid "lost connection" lost.out "^ticking$"
wait $zpid
check_eq "lost connection: status" $? 1
check_eq "lost connection: one line of zond" "$(grep -c "^zond" lost.err)" 1
grep -q "zond inject: .*the connection was closed by the target[^;]*; the results read [0-9]* ms after the start are kept; stored as a partial run" lost.err ||
	fail "lost connection: message: $(cat lost.err)"
check_eq "lost connection: meta" "$(sqlite3 lost.db "select value from run_meta where key = 'inject_connection_lost'")" 1
set -- $(zond_passes lost.db)
[ "${1:-0}" -gt 0 ] || fail "lost connection: no passes kept: $*"
want=$(riscv64-unknown-elf-objdump -d forever.elf | awk -v a=$tick -v r=$ret '
	$1 ~ /^[0-9a-f]+:$/ { x = substr($1, 1, length($1) - 1); if (x >= a && x < r) n++ }
	END { print n }')
check_eq "lost connection: every pass tick's instructions before its ret" "$3 $4" "$want $want"
check_eq "lost connection: sum" "$2" "$(($1 * want))"

# --gdb --duration: a QEMU the test started; twice, each time the breakpoints go and QEMU runs on
rm -f g.sock
$qemu -kernel forever.elf -gdb unix:$PWD/g.sock,server=on,wait=off -S >/dev/null 2>&1 &
qpid=$!
for pass in 1 2; do
	rm -f dur.db
	"$zond" inject -q -o dur.db --elf forever.elf --gdb "$PWD/g.sock" --region tick,0x$ret \
		--duration 0.5 2>dur.err
	check_eq "--gdb --duration, pass $pass: status" $? 0
	kill -0 $qpid 2>/dev/null || fail "--gdb --duration, pass $pass: QEMU is gone"
	set -- $(zond_passes dur.db)
	[ "${1:-0}" -gt 0 ] || fail "--gdb --duration, pass $pass: no passes: $(cat dur.err)"
	check_eq "--gdb --duration, pass $pass: min max" "${3:-} ${4:-}" "$want $want"
done
kill $qpid
wait $qpid 2>/dev/null

# bad input: one line
check_error "a point inside an instruction" "leaf+1: +1 is not the start of an instruction" \
	"$zond" inject -q --elf calls32.elf --region leaf+1,fib -- $qemu -kernel calls32.elf
check_error "no such function" "nosuch: no function nosuch in calls32.elf" \
	"$zond" inject -q --elf calls32.elf --region nosuch,fib -- $qemu -kernel calls32.elf
check_error "--gdb with a region and no stub" "cannot connect" \
	"$zond" inject -q --elf calls32.elf --region work,fib --gdb 127.0.0.1:1
finish
