#!/bin/sh
# inexact.sh - a call site whose prologue the runtime cannot count from the code (a branch
# before the entry hook's call, progs/inexact.c): the count reaches the raw data and zond
# says so, on stderr and in the report's header, instead of a figure silently short.  The
# function's inclusive cycles are QEMU's log's less exactly the 6 instructions per call
# before the entry hook's call (its prologue, uncounted).
#
# Usage: inexact.sh ZOND XLEN WORKDIR SRCDIR    (exit 77: cross tools missing)
set -u
zond=$1 xlen=$2 src=$4
dir=$3/inexact-rv$xlen
. "$src/../cli/lib.sh"
. "$src/build.sh"

riscv64-unknown-elf-gcc $flags $cflags -o inexact.elf "$src/progs/inexact.c" $libs || exit 1
"$zond" record -q -o inexact.db -- $run -kernel inexact.elf >out.txt 2>err.txt
check_eq "status under zond record" $? 0
check_eq "output" "$(cat out.txt)" "odd called 3 times"
grep -q "^zond record: warning: inexact_sites = 1 (call sites whose prologue or epilogue " err.txt ||
	fail "no warning of the inexact site: $(cat err.txt)"
"$zond" report -i inexact.db --raw -n 0 >report.txt || fail "report"
grep -q "^warning: *inexact_sites = 1 " report.txt || fail "no inexact_sites in the header: $(head -20 report.txt)"
# one table of meanings: the end of the run and the header say the same
check_eq "the run's warning is the header's" "$(sed -n 's/^zond record: warning: \(inexact_sites\)/\1/p' err.txt)" \
	"$(sed -n 's/^warning: *\(inexact_sites\)/\1/p' report.txt)"
$run -singlestep -d exec,nochain -D exec.log -kernel inexact.elf >/dev/null 2>&1
python3 "$src/truth.py" inexact.elf riscv64-unknown-elf-objdump exec.log >truth.txt || fail "truth.py"
rm -f exec.log
want=$(awk '$1 == "odd" { print $2, $3 - 6 * $2 }' truth.txt)
check_eq "odd: calls, and inclusive cycles = QEMU's log less the uncounted prologue" \
	"$(awk '$NF == "odd" { print $1, $2 }' report.txt)" "$want"
finish
