#!/bin/sh
# hostclock.sh - QEMU without -icount, where mcycle follows the host's clock and the
# runtime's cost constants, measured once at start-up, are no longer exact: the counts stay
# exact, and no time wraps below 0 (a self of 18446744073709525410, main's total 0 or '-':
# QA s13 U F2).  Every figure is sane (below 2^62), main's total is above 0 and equals the
# flat profile's total (the selves' sum), and zond says the cycles are not instructions, as
# zond inject --elf does, its run's event cycles, not ns (F3); with -icount neither says a word.
#
# Usage: hostclock.sh ZOND XLEN WORKDIR SRCDIR    (exit 77: cross tools missing)
set -u
zond=$1 xlen=$2 src=$4
dir=$3/hostclock-rv$xlen
. "$src/../cli/lib.sh"
. "$src/build.sh"

riscv64-unknown-elf-gcc $flags $cflags -o hc.elf "$src/progs/hostclock.c" $libs || exit 1
norun=$(echo $run | sed 's/ -icount [^ ]*//')
for i in 1 2 3; do
	rm -f hc.db
	"$zond" record -o hc.db -- $norun -kernel hc.elf >out.txt 2>err.txt
	check_eq "run $i: status" $? 0
	check_eq "run $i: output" "$(sed 's/^s=[0-9]* //' out.txt)" "leaf=1665 fib=2325 work=5"
	"$zond" report -i hc.db --raw -n 0 >report.txt || fail "run $i: report"
	calls() { awk -v f="$1" '$NF == f { print $1 }' report.txt; }
	check_eq "run $i: counts" "$(calls main) $(calls fib) $(calls leaf) $(calls work)" "1 2325 1665 5"
	check_eq "run $i: figures at or above 2^62 (wrapped below 0)" \
		"$(awk '$1 ~ /^[0-9]+$/ && NF >= 8 { for (k = 2; k < NF; k++) if ($k ~ /^[0-9]+$/ && $k + 0 >= 2^62) print $NF, k, $k }' report.txt)" ""
	main=$(awk '$NF == "main" { print $2 }' report.txt)
	total=$(sed -n 's/^flat profile: .* total \([0-9]*\).*/\1/p' report.txt)
	selves=$(awk '$1 ~ /^[0-9]+$/ && NF >= 8 { s += $3 } END { printf "%.0f", s }' report.txt)
	case $main in '' | *[!0-9]* | 0) fail "run $i: main's total '$main': $(cat report.txt)" ;; *) pass ;; esac
	check_eq "run $i: main's total = the flat total" "$main" "$total"
	check_eq "run $i: the selves' sum = the flat total" "$selves" "$total"
	check_eq "run $i: record says the cycles are not instructions" \
		"$(grep -c "^zond record: warning: QEMU runs without -icount: mcycle follows the host's clock, so the cycles are not instructions" err.txt)" 1
	grep -q "^warning: *host_clock = 1 (QEMU ran without -icount" report.txt ||
		fail "run $i: the report's header does not say so: $(head -20 report.txt)"
done

# with -icount: not a word of it
"$zond" record -o hc.db -- $run -kernel hc.elf >out.txt 2>err.txt
check_eq "with -icount: status" $? 0
grep -q "icount\|clamped" err.txt && fail "with -icount: $(cat err.txt)"
"$zond" report -i hc.db --raw -n 0 >report.txt || fail "report with -icount"
grep -q "host_clock\|clamped_times" report.txt && fail "with -icount: $(head -20 report.txt)"

# zond inject --elf starting QEMU without -icount: the same line, not "counted in
# instructions", and the run's event cycles (cycles), not time in ns
riscv64-unknown-elf-gcc $flags -o hcplain.elf "$src/progs/hostclock.c" || exit 1
rm -f inj.db
"$zond" inject -o inj.db -c inj --elf hcplain.elf -f fib -f leaf -f work -f main -- \
	$norun -kernel hcplain.elf >out.txt 2>err.txt
check_eq "inject: status" $? 0
check_eq "inject: says the cycles are not instructions" \
	"$(grep -c "^zond inject: warning: counter mcycle over GDB: QEMU runs without -icount: mcycle follows the host's clock" err.txt)" 1
grep -q "counted in instructions" err.txt && fail "inject: speaks of instructions: $(cat err.txt)"
grep -q "payload [0-9.]* cycles per measured call subtracted" err.txt || fail "inject: payload line: $(cat err.txt)"
"$zond" report -i inj.db -C inj -n 0 >report.txt 2>&1 || fail "inject: report"
grep -q "^flat profile: cycles (cycles), total [1-9]" report.txt || fail "inject: event: $(cat report.txt)"
grep -q "^warning: *host_clock = 1" report.txt || fail "inject: header: $(head -20 report.txt)"
check_eq "inject: fib's calls" "$(awk '$NF == "fib" { print $1 }' report.txt)" 1165
finish
