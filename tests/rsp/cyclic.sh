#!/bin/sh
# cyclic.sh - zond inject --safe-point over GDB on qemu-system-riscv32
# (progs/cycle.c: per pass tick() once, then one() once, two() twice,
# three() three and four() four times; the program sees the swaps itself
# and ends after the second, so nothing here races with the clock):
#   - two sets of two functions, each stored as a run: every set counted
#     in whole passes (its functions' calls in the ratios the loop makes),
#     and the two sets' passes add up to the passes the program counts;
#   - the same through --gdb on a QEMU the test started;
#   - a third set holding five() (2 bytes: entered through a breakpoint
#     the transport answers, in and out with its set): three sets, each in
#     whole passes, adding up to the program's passes, five() measured;
#   - a safe point the program never reaches (never_called), --duration 5:
#     zond says so in one line, the first set keeps what it measured, the
#     second is named as never measured;
#   - QEMU killed while it runs: one line, what was read kept, status 1.
#
# Usage: cyclic.sh ZOND WORKDIR SRCDIR    (exit 77: cross tools missing)
set -u
zond=$1 dir=$2/cyclic src=$3
. "$src/rv.sh"
rv_need qemu-system-riscv32 sqlite3
mkdir -p "$dir" && cd "$dir" || exit 1
rm -f ./*.db
. "$src/../cli/lib.sh"

elf=cycle.elf
rv_build 32 $elf "$src/progs/cycle.c" || exit 1
qemu=$(rv_qemu 32)
fns="-f one -f two -f three -f four"

# passes per set: calls / (calls per pass), the same for every function of the set
set_passes() {
	"$zond" inject --raw -c "$2" -o "$1" | awk -F'\t' '
		NR == 1 { next }
		{ k = $4 == "one" || $4 == "five" ? 1 : $4 == "two" ? 2 : $4 == "three" ? 3 : 4
		  if ($6 % k) bad = bad " " $4 "=" $6
		  p = $6 / k
		  if (($1 in run) && run[$1] != p) bad = bad " run " $1 ": " $4 "=" $6
		  run[$1] = p }
		END { if (bad) print "not whole:" bad; else for (r in run) print r, run[r] }' |
		LC_ALL=C sort
}

"$zond" inject -o c.db -c cy --elf $elf --safe-point tick --period 0.2 --per-run 2 $fns \
	-- $qemu -kernel $elf >got.txt 2>err.txt
check_eq "status" $? 0
passes=$(sed -n 's/^passes=\([0-9]*\) .*/\1/p' got.txt)
[ "${passes:-0}" -gt 0 ] || fail "the program's output: $(cat got.txt)"
set_passes c.db cy >sets.txt
check_eq "two sets stored" "$(cut -d' ' -f1 sets.txt | tr '\n' ' ')" "1 2 "
check_eq "the sets' whole passes add up to the program's" \
	"$(awk '{ s += $2 } END { print s }' sets.txt)" "$passes"
check_eq "meta of the second set" \
	"$(sqlite3 c.db "select value from run_meta where run = 2 and key = 'inject_cyclic_set'")" "2 of 2"

"$zond" inject -o b.db -c brk --elf $elf --safe-point tick --period 0.2 --per-run 2 $fns -f five \
	-- $qemu -kernel $elf >bgot.txt 2>berr.txt
check_eq "breakpoint entry: status" $? 0
set_passes b.db brk >bsets.txt
check_eq "breakpoint entry: three sets stored" "$(cut -d' ' -f1 bsets.txt | tr '\n' ' ')" "1 2 3 "
check_eq "breakpoint entry: the sets' whole passes add up to the program's" \
	"$(awk '{ s += $2 } END { print s }' bsets.txt)" \
	"$(sed -n 's/^passes=\([0-9]*\) .*/\1/p' bgot.txt)"
check_eq "breakpoint entry: five measured" "$(awk '$1 == 3 { print ($2 > 0) }' bsets.txt)" 1

# --gdb: a QEMU the test started; the program ends by itself while zond is connected
rm -f g.sock
$qemu -kernel $elf -gdb unix:$PWD/g.sock,server=on,wait=off -S >gq.txt 2>/dev/null &
qpid=$!
"$zond" inject -q -o g.db -c gdb --elf $elf --gdb "$PWD/g.sock" --safe-point tick --period 0.2 \
	--per-run 2 --duration 60 $fns 2>gerr.txt
check_eq "--gdb: zond's status (the program's)" $? 0
if ! rv_ends $qpid; then
	fail "--gdb: QEMU still runs after zond: $(cat gerr.txt)"
	kill $qpid
fi
wait $qpid
check_eq "--gdb: QEMU's status" $? 0
check_eq "--gdb: the sets' whole passes add up to the program's" \
	"$(set_passes g.db gdb | awk '{ s += $2; n++ } END { print n, s }')" \
	"2 $(sed -n 's/^passes=\([0-9]*\) .*/\1/p' gq.txt)"

# (the line comes two periods after the start; --duration, the only end with status 0 here, is
# 25 periods so that a zond starved on a loaded machine still gets there: 1 s failed under a
# load of 30)
"$zond" inject -o n.db -c never --elf $elf --safe-point never_called --period 0.2 --duration 5 \
	--per-run 2 $fns -- $qemu -kernel $elf >/dev/null 2>err.txt
check_eq "never reached: status" $? 0
check_eq "never reached: one line" \
	"$(grep -c 'the target has not reached the safe point never_called in 0.2 s: set 1 of 2 stays measured' err.txt)" 1
grep -q "set 2 of 2 was never measured" err.txt || fail "never reached: $(cat err.txt)"
check_eq "never reached: one run" "$(sqlite3 n.db 'select count(*) from runs')" 1
one=$("$zond" inject --raw -c never -o n.db | awk -F'\t' '$4 == "one" { print $6 }')
[ "${one:-0}" -gt 0 ] || fail "never reached: no calls of one kept"

# (killed once zond said it read calls, not after a time a loaded machine may need for less)
"$zond" inject -o l.db -c lost --elf $elf --safe-point never_called --period 0.2 --per-run 2 \
	$fns -- $qemu -kernel $elf >/dev/null 2>lost.err &
zpid=$!
rv_kill_qemu $zpid "lost connection" lost.err "^zond inject: measuring: [1-9][0-9]* calls read"
wait $zpid
check_eq "lost connection: status" $? 1
check_eq "lost connection: one line" "$(grep -c '^zond inject: .*the connection was closed by the target.*the results read [0-9]* ms after the start are kept' lost.err)" 1
one=$("$zond" inject --raw -c lost -o l.db | awk -F'\t' '$4 == "one" { print $6 }')
[ "${one:-0}" -gt 0 ] || fail "lost connection: no calls of one kept: $(cat lost.err)"
finish
