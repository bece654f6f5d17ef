#!/bin/sh
# inject.sh - zond inject over GDB on qemu-system-riscv32/64 (progs/calls.c):
#   - the program's output and exit status are as without zond;
#   - every function zond measured has the calls and inclusive instructions
#     QEMU's execution log of the plain program gives (tests/bare/truth.py,
#     -singlestep -d exec,nochain: one line per instruction, independent of
#     zond), exactly: under -icount shift=0 mcycle counts instructions, and
#     the payload's own instructions are taken out; the program's own
#     counters agree on the calls; a 2-byte function, called through a
#     pointer, is measured through a breakpoint;
#   - --per-run 2 over 4 functions: 2 runs of one campaign, the same calls, and
#     the call graph's run (campaign per.graph) whose calls correct the selves;
#   - --coverage names the functions not entered by a call (trap handler,
#     millicode) with the reason;
#   - QEMU killed while the program runs (progs/forever.c): zond stores what
#     it read last as a partial run and says so in one line, status 1;
#   - scratch RAM that is not there: one line, the program runs as without zond;
#   - --gdb and preparing fails after a breakpoint entry went in: one line,
#     and the target runs on to its end with none of zond's breakpoints;
#   - bad input: one line each.
#
# Usage: inject.sh ZOND WORKDIR SRCDIR    (exit 77: cross tools missing)
set -u
zond=$1 dir=$2/inject src=$3
. "$src/rv.sh"
rv_need riscv64-unknown-elf-objdump riscv64-unknown-elf-nm riscv64-unknown-elf-readelf qemu-system-riscv32 qemu-system-riscv64 python3 sqlite3
mkdir -p "$dir" && cd "$dir" || exit 1
rm -f ./*.db
. "$src/../cli/lib.sh"

for xlen in 32 64; do
	elf=calls$xlen.elf
	rv_build $xlen $elf "$src/progs/calls.c" -fno-optimize-sibling-calls || exit 1
	qemu=$(rv_qemu $xlen)
	$qemu -kernel $elf >want$xlen.txt 2>/dev/null
	check_eq "rv$xlen: plain status" $? 5
	rv_truth $xlen $elf | LC_ALL=C sort >truth$xlen.txt

	"$zond" inject -q -o all$xlen.db -c all$xlen --elf $elf -- $qemu -kernel $elf \
		>got$xlen.txt 2>err$xlen.txt
	check_eq "rv$xlen: status under zond inject" $? 5
	check_same "rv$xlen: output under zond inject" got$xlen.txt want$xlen.txt
	rv_table all$xlen.db >zond$xlen.txt
	# every function measured: its calls and inclusive instructions as QEMU's log
	# (exit never returns: counted, untimed)
	join zond$xlen.txt truth$xlen.txt | awk -v x=$xlen '
		$1 == "exit" { next }
		{ n++; if ($2 != $4 || $3 != $5) { bad++; print "FAIL: rv" x ": " $0 } }
		END { print "rv" x ": " n " functions exact"; exit bad || n < 12 }' || fail "rv$xlen: truth"
	for f in leaf fib work twice; do
		want=$(sed -n "s/.*\b$f=\([0-9]*\).*/\1/p" want$xlen.txt)
		check_eq "rv$xlen: calls of $f as the program counts" \
			"$(awk -v f=$f '$1 == f { print $2 }' zond$xlen.txt)" "$want"
	done
	# empty is a lone ret (2 bytes): entered through a breakpoint, 20 calls of 1 instruction
	check_eq "rv$xlen: empty through a breakpoint" "$(grep '^empty ' zond$xlen.txt)" "empty 20 20"
	"$zond" report -i all$xlen.db --raw | grep -q "overhead:  probe overhead of [0-9]* ns per call" ||
		fail "rv$xlen: no overhead line"
done

# --per-run 2: two runs, one campaign, the same calls; first the call graph's run of all four
# (campaign per.graph), by which report -C takes callees of other runs out of a self
qemu=$(rv_qemu 32)
"$zond" inject -q -o per.db -c per --per-run 2 --elf calls32.elf -f leaf -f fib -f work -f twice \
	-- $qemu -kernel calls32.elf >per.txt 2>/dev/null
check_eq "--per-run 2: status" $? 5
check_eq "--per-run 2: output thrice" "$(cat per.txt)" "$(cat want32.txt want32.txt want32.txt)"
check_eq "--per-run 2: runs" "$(sqlite3 per.db "select c.name, count(*) from runs r join campaigns c on r.campaign = c.id group by c.name order by c.name" | tr '\n' ' ')" "per|2 per.graph|1 "
"$zond" report -i per.db -C per | grep -q '^self: *callees measured in other runs taken out' ||
	fail "--per-run 2: report -C has no self line"
rv_table per.db -C per | awk '{ print $1, $2 }' >per_calls.txt
awk '$1 ~ /^(fib|leaf|twice|work)$/ { print $1, $2 }' truth32.txt >per_want.txt
check_same "--per-run 2: merged calls" per_calls.txt per_want.txt

# --coverage: who is refused, and why
"$zond" inject --coverage calls32.elf >cov.txt
for line in \
	"refused _start (0x80000000): the program's entry point: entered with no return address" \
	"refused _trap (0x$(riscv64-unknown-elf-nm calls32.elf | awk '$3 == "_trap" { print $1 }')): reads the trap CSR 0x341" \
	"returns through t0" "millicode entered by a jump from an epilogue"; do
	grep -qF "$line" cov.txt || fail "coverage lacks: $line"
done
total=$(riscv64-unknown-elf-readelf -sW calls32.elf | awk '$4 == "FUNC" { print $2 }' | LC_ALL=C sort -u | wc -l)
head -1 cov.txt | grep -q " of $total functions can be injected" ||
	fail "coverage total: $(head -1 cov.txt) (readelf: $total function addresses)"

# QEMU killed mid-run: what was read is kept, one line, status 1
rv_build 32 forever.elf "$src/progs/forever.c" || exit 1
# (killed once zond said it read calls, whatever the machine's speed: results are read every
# 200 ms while the program runs, and what was read last is what is kept)
"$zond" inject -o lost.db -c lost --elf forever.elf -f tick -- $qemu -kernel forever.elf \
	>lost.out 2>lost.err &
zpid=$!
rv_kill_qemu $zpid "lost connection" lost.err "^zond inject: measuring: [1-9][0-9]* calls read"
wait $zpid
check_eq "lost connection: status" $? 1
grep -q "zond inject: .*the connection was closed by the target[^;]*; the results read [0-9]* ms after the start are kept; stored as a partial run" lost.err ||
	fail "lost connection: message: $(cat lost.err)"
calls=$(rv_table lost.db | awk '$1 == "tick" { print $2 }')
[ "${calls:-0}" -gt 0 ] || fail "lost connection: no calls of tick kept: $(rv_table lost.db)"
check_eq "lost connection: meta" "$(sqlite3 lost.db "select value from run_meta where key = 'inject_connection_lost'" 2>/dev/null)" 1

# --gdb: a QEMU started by the test, stopped at reset; zond connects, the program runs to its end
rm -f g.sock
$qemu -kernel calls32.elf -gdb unix:$PWD/g.sock,server=on,wait=off -S >gdbq.txt 2>/dev/null &
qpid=$!
"$zond" inject -q -o gdb.db -c gdb --elf calls32.elf --gdb "$PWD/g.sock" -f leaf -f fib 2>gdb.err
check_eq "--gdb: zond's status (the program's)" $? 5
if ! rv_ends $qpid; then # zond failed: never wait for a stopped QEMU
	fail "--gdb: QEMU still runs after zond: $(cat gdb.err)"
	kill $qpid
fi
wait $qpid
check_eq "--gdb: QEMU's status" $? 5
check_same "--gdb: output" gdbq.txt want32.txt
check_eq "--gdb: calls and inclusive" "$(rv_table gdb.db)" \
	"$(awk '$1 == "fib" || $1 == "leaf"' truth32.txt)"

# --gdb, preparing fails (work's code in the ELF given is not the target's: a copy with its first
# word changed) after empty's breakpoint entry went in: one line, and the target runs on to its
# end, its output and status its own (no breakpoint of zond's left: _exit's, empty's)
cp calls32.elf mod32.elf
off=$(riscv64-unknown-elf-readelf -lW calls32.elf | python3 -c '
import sys
at = int(sys.argv[1], 16)
for f in (l.split() for l in sys.stdin):
    if f and f[0] == "LOAD" and int(f[2], 16) <= at < int(f[2], 16) + int(f[4], 16):
        print(int(f[1], 16) + at - int(f[2], 16))
' "$(riscv64-unknown-elf-nm calls32.elf | awk '$3 == "work" { print $1 }')")
printf '\023\000\000\000' | dd of=mod32.elf bs=1 seek="$off" conv=notrunc 2>/dev/null
rm -f g.sock
$qemu -kernel calls32.elf -gdb unix:$PWD/g.sock,server=on,wait=off -S >modq.txt 2>/dev/null &
qpid=$!
"$zond" inject -q -o mod.db -c mod --elf mod32.elf --gdb "$PWD/g.sock" -f empty -f work 2>mod.err
check_eq "--gdb, preparing fails: zond's status" $? 1
grep -q "^zond inject: work at 0x[0-9a-f]*: the target's code is not mod32.elf's" mod.err ||
	fail "--gdb, preparing fails: $(cat mod.err)"
if ! rv_ends $qpid; then
	fail "--gdb, preparing fails: QEMU still runs (stopped at a breakpoint of zond's)"
	kill $qpid
fi
wait $qpid
check_eq "--gdb, preparing fails: QEMU's status" $? 5
check_same "--gdb, preparing fails: output" modq.txt want32.txt

# --gdb --duration: measured for a while, then the code put back and the program let run on;
# a second attachment finds the ELF's bytes at the entries again (else it refuses)
rm -f g.sock
$qemu -kernel forever.elf -gdb unix:$PWD/g.sock,server=on,wait=off -S >/dev/null 2>&1 &
qpid=$!
for pass in 1 2; do
	"$zond" inject -q -o dur.db -c dur --elf forever.elf --gdb "$PWD/g.sock" -f tick \
		--duration 0.5 2>dur.err
	check_eq "--gdb --duration, pass $pass: status" $? 0
	kill -0 $qpid 2>/dev/null || fail "--gdb --duration, pass $pass: QEMU is gone"
done
kill $qpid
wait $qpid 2>/dev/null
check_eq "--gdb --duration: runs stored" "$(sqlite3 dur.db 'select count(*) from runs')" 2
calls=$(rv_table dur.db | awk '$1 == "tick" { print $2 }')
[ "${calls:-0}" -gt 0 ] || fail "--gdb --duration: no calls of tick: $(cat dur.err)"

# scratch RAM that is not there (QEMU takes the writes): one line, the program runs as without zond
"$zond" inject -q -o bad.db --elf calls32.elf -f leaf --scratch 0x7ff80000,0x10000 \
	-- $qemu -kernel calls32.elf >bad.txt 2>bad.err
check_eq "scratch not RAM: the program's status" $? 5
check_same "scratch not RAM: the program's output" bad.txt want32.txt
check_eq "scratch not RAM: one line" "$(grep -c '^zond' bad.err)" 1
grep -q "^zond inject: scratch RAM at 0x7ff8[0-9a-f]*: what zond wrote there does not read back (no RAM there?): give RAM the program does not use with --scratch$" bad.err ||
	fail "scratch not RAM: $(cat bad.err)"

# bad input
check_error "--gdb without --elf" "--gdb and --scratch go with --elf" "$zond" inject --gdb :1
check_error "missing ELF" "nosuch.elf: no such file" "$zond" inject --elf nosuch.elf -- $qemu
check_error "bad --scratch" "--scratch wants ADDR,LEN" "$zond" inject --elf calls32.elf --scratch 0x1000 -- $qemu
check_error "no stub" "cannot connect" "$zond" inject -q --elf calls32.elf --gdb 127.0.0.1:1
check_error "no QEMU" "no-such-qemu: cannot run" "$zond" inject -q --elf calls32.elf -- no-such-qemu -kernel calls32.elf
check_error "-S given" "-s, -S and -gdb are zond's to add" "$zond" inject -q --elf calls32.elf -- $qemu -S -kernel calls32.elf
finish
