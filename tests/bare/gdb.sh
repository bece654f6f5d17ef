#!/bin/sh
# gdb.sh - `zond record --gdb HOST:PORT --elf app.elf` on one RISC-V target:
# the raw data read from the target's RAM through QEMU's gdbstub (a Unix
# socket), checked against
#   - the same program's run stored through semihosting (`zond record --
#     qemu-system-...`): under -icount shift=0 both runs are the same
#     instructions, so every count, edge and calling context and every
#     function's total, self, min and max cycles must be equal (only the
#     absolute mcycle values differ: QEMU started with -S and a debugger
#     begins counting elsewhere);
#   - the program's own call counters (what it prints) and QEMU's exit
#     status and output, unchanged by zond (and no zond.zraw in QEMU's
#     directory);
#   - a program that never ends, read after Ctrl-C (once it printed), then
#     attached again while it runs and read after --duration 1: the counts
#     it had reached (all its instrumented calls happen before it spins),
#     main still open, the run said to be partial, the target still running
#     after zond; every other function's figures are the finished run's, and
#     main's, cut short, are in the sums, not in min and max.
# A missing runtime, an unreachable stub, a program with --gdb and --gdb
# without --elf give one error line each.
#
# Usage: gdb.sh ZOND XLEN WORKDIR SRCDIR    (exit 77: cross tools missing)
set -u
zond=$1 xlen=$2 src=$4
dir=$3/gdb-rv$xlen
. "$src/../cli/lib.sh"
. "$src/build.sh"
build_counts forever.elf -DCOUNTS_FOREVER
rm -rf gdb.db semi.db gdb.err q

# QEMU stopped at its first instruction behind a gdbstub on a Unix socket,
# in a directory of its own (where semihosting would write zond.zraw).
start_qemu() { # start_qemu ELF: sets qpid; output in q/out.txt
	rm -rf q && mkdir q || exit 1
	(cd q && exec $run -gdb unix:gdb.sock,server=on,wait=off -S -kernel "../$1" >out.txt 2>&1) &
	qpid=$!
}

# The truth: the run through semihosting.
"$zond" record -q -o semi.db --keep-raw -- $run -kernel app.elf >want.txt 2>semi.err
check_eq "status under zond record" $? 3
semi=$(sed -n 's/^zond record: raw data kept in \([^ ]*\).*/\1/p' semi.err)
[ -f "$semi/zond.zraw" ] || fail "no semihosting raw data in: $(cat semi.err)"

# Over GDB: zond's status is the program's, QEMU's output and status unchanged.
start_qemu app.elf
"$zond" record -q -o gdb.db --keep-raw --gdb q/gdb.sock --elf app.elf 2>gdb.err
status=$?
check_eq "zond's status (the program's exit status)" $status 3
[ $status -eq 3 ] || kill $qpid # zond never let it go: it would wait at -S for ever
wait $qpid
check_eq "QEMU's status after zond let go" $? 3
grep -v "^qemu-system-riscv$xlen: warning" q/out.txt >q/prog.txt
check_same "the program's output" q/prog.txt want.txt
[ -e q/zond.zraw ] && fail "the runtime wrote zond.zraw through semihosting: not skipped"
kept=$(sed -n 's/^zond record: raw data kept in \([^ ]*\).*/\1/p' gdb.err)
[ -f "$kept/zond.zraw" ] || fail "no raw data read over GDB: $(cat gdb.err)"
rm -rf "$semi" "$kept"
for db in semi gdb; do
	"$zond" report -i $db.db --raw -s name >$db.report || fail "report $db.db"
	sed -n '/^flat profile/,$p' $db.report >$db.flat
	"$zond" dump -i $db.db >$db.dump || fail "dump $db.db"
done
[ -s gdb.flat ] || fail "no flat profile in gdb.report"
check_same "cycles per function: over GDB = through semihosting" gdb.flat semi.flat
check_same "counts, edges, contexts: over GDB = through semihosting" gdb.dump semi.dump
mv gdb.report report.txt
calls() { awk -v f="$1" '$NF == f { print $1 }' "${2:-report.txt}"; }
check_eq "leaf calls" "$(calls leaf)" 13
check_eq "fib calls" "$(calls fib)" 465
check_eq "fixed calls" "$(calls fixed)" 7
check_eq "end" "$(sed -n 's/^end: *//p' report.txt)" "exit status 3"

# A target that never ends, interrupted by Ctrl-C once it printed (all its
# instrumented calls are behind it): a partial run with the counts it had.
start_qemu forever.elf
"$zond" record -q -o gdb.db --gdb "$dir/q/gdb.sock" --elf forever.elf 2>gdb.err &
zpid=$!
n=0 # the target runs only once zond let it go, so zond waits for SIGINT by then
until grep -q "^leaf=" q/out.txt || [ $n -ge 600 ]; do sleep 0.1; n=$((n + 1)); done
kill -INT $zpid
wait $zpid
status=$?
check_eq "zond's status after Ctrl-C" $status 0
[ $status -eq 0 ] || { kill $qpid; finish; exit; }
grep -q "a partial run: the pools were read as they were after .* (Ctrl-C); the target runs on" gdb.err ||
	fail "no partial-run line after Ctrl-C: $(cat gdb.err)"
# the same target again, already running: zond stops it, --duration 1 later it reads
"$zond" record -q -o gdb.db --gdb "$dir/q/gdb.sock" --elf forever.elf --duration 1 2>gdb.err
check_eq "zond's status after --duration" $? 0
grep -q "a partial run: the pools were read as they were after .* (--duration); the target runs on" gdb.err ||
	fail "no partial-run line after --duration: $(cat gdb.err)"
if kill -0 $qpid 2>/dev/null; then pass; else fail "the target did not run on after zond"; fi
kill $qpid
wait $qpid 2>/dev/null
# its line of counts is the finite program's (want.txt), then it spins
grep -qxF "$(grep '^leaf=' want.txt)" q/out.txt || fail "forever.elf's output: $(cat q/out.txt)"
# Every function but main ran before the spin, the same code as app.elf's: its row (calls,
# total, self, avg, min, max) is the finished run's.  main, still running, is timed up to its
# last call's return, not as a call of known length: no min or max, its self what it ran
# itself (never below 0), and the run's total (the time recorded) its inclusive.
rows() { awk '/^flat profile/ { f = 1 } f && NF == 8 && $NF != "main" { print $NF, $1, $2, $3, $4, $5, $6 }' "$1"; }
rows semi.flat >semi.rows
for r in 2 3; do
	"$zond" report -i gdb.db -r $r --raw -s name >partial.txt || fail "report of run $r"
	check_eq "partial run $r: leaf calls" "$(calls leaf partial.txt)" 13
	check_eq "partial run $r: fib calls" "$(calls fib partial.txt)" 465
	check_eq "partial run $r: main, still running, counted once" "$(calls main partial.txt)" 1
	check_eq "partial run $r: no end" "$(grep -c '^end:' partial.txt)" 0
	rows partial.txt >partial.rows
	check_same "partial run $r: every function but main as in the finished run" partial.rows semi.rows
	check_eq "partial run $r: main's min and max" "$(awk '$NF == "main" { print $5, $6 }' partial.txt)" "- -"
	main_self=$(awk '$NF == "main" { print $3 }' partial.txt)
	[ ${#main_self} -lt 12 ] && [ "$main_self" -gt 0 ] && pass || fail "partial run $r: main's self '$main_self'"
	check_eq "partial run $r: the run's total is main's inclusive" \
		"$(sed -n 's/^flat profile: .*total //p' partial.txt)" "$(awk '$NF == "main" { print $2 }' partial.txt)"
	grep -q "^warning: *calls_cut_short = 1 (.*partial run" partial.txt ||
		fail "partial run $r: the header does not say a call was cut short: $(head -20 partial.txt)"
done

# The wrong ELF for the target: another program, or code of the other word size.  One line
# before anything is planted (a breakpoint at the other program's zb_write_out lands in the
# middle of this one's code and crashes it), and the target runs on untouched: it prints its
# line, its QEMU still running.
case $xlen in 32) other=64 omarch=rv64imac omabi=lp64 ;; *) other=32 omarch=rv32imac omabi=ilp32 ;; esac
riscv64-unknown-elf-gcc $flags $cflags -o isr.elf "$src/progs/isr.c" $libs || exit 1
riscv64-unknown-elf-gcc $(echo $flags | sed "s/-march=$march/-march=$omarch/; s/-mabi=$mabi/-mabi=$omabi/") \
	$("$zond" config --target $omarch --cflags) -o other.elf "$src/progs/counts.c" \
	$("$zond" config --target $omarch --libs) || exit 1
start_qemu forever.elf
check_error "another program's ELF" "the target does not run $dir/isr.elf" \
	"$zond" record -q -o gdb.db --gdb "$dir/q/gdb.sock" --elf isr.elf
check_error "an ELF of the other word size" "the target does not run $dir/other.elf ($other-bit code" \
	"$zond" record -q -o gdb.db --gdb "$dir/q/gdb.sock" --elf other.elf
n=0
until grep -q "^leaf=" q/out.txt || [ $n -ge 300 ]; do sleep 0.1; n=$((n + 1)); done
grep -qxF "$(grep '^leaf=' want.txt)" q/out.txt || fail "the target after a wrong ELF: $(cat q/out.txt)"
if kill -0 $qpid 2>/dev/null; then pass; else fail "the target did not run on after a wrong ELF"; fi
kill $qpid
wait $qpid 2>/dev/null

# Bad input: one line each.
check_error "not a RISC-V ELF (--gdb)" "$zond: not a RISC-V ELF file" \
	"$zond" record -q -o gdb.db --gdb "$dir/none.sock" --elf "$zond"
check_error "no runtime in the ELF" "plain.elf: no symbol zond_raw_buffer" \
	"$zond" record -q -o gdb.db --gdb "$dir/none.sock" --elf plain.elf
check_error "unreachable stub" "none.sock: cannot connect" \
	"$zond" record -q -o gdb.db --gdb "$dir/none.sock" --elf app.elf
check_error "a program with --gdb" "--gdb takes no program" \
	"$zond" record -q -o gdb.db --gdb "$dir/none.sock" --elf app.elf -- $run -kernel app.elf
check_error "--gdb without --elf" "--gdb needs the target's --elf" \
	"$zond" record -q -o gdb.db --gdb "$dir/none.sock"
finish
