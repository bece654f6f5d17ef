#!/bin/sh
# Sampled time of frames deeper than --depth (progs/deep.c): their samples
# count for the deepest frame kept, none is lost, and the report says how
# many samples its figures rest on.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

"$ZOND" record --depth 50 -q -o deep.db -- "$DEEP" >out.txt 2>err.txt || fail "record --depth 50"
check_eq "the program's output" "$(cat out.txt)" "200"
"$ZOND" report -i deep.db >report.txt || fail "report"
line=$(grep '^samples:' report.txt)
program=$(echo "$line" | sed -n 's/^samples: *\([0-9]*\) of the program.s.*/\1/p')
check_eq "no sample lost" "$(echo "$line" | grep -c ', 0 lost')" 1
# 0.3 s of CPU at one sample per ms: far more than 100 whatever the load
check_eq "the spin's samples are the program's" "$([ "${program:-0}" -ge 100 ] && echo yes)" yes
# all those taken in a function at or under the deepest frame kept (depth 50:
# main and 49 down), where the pcs of spin() and cpu_seconds() place theirs;
# in ns.  Samples with no function open (a sanitizer's exit) are the others,
# and so may be one or two of the microseconds main and the shallower downs
# run on their own (the descent, the return, printf): a sample comes when a
# thread's CPU time crosses the next millisecond, wherever that falls.
"$ZOND" export -f folded -i deep.db -o deep.folded || fail "export folded"
all=$(awk '{ s += $2 } END { print s / 1000000 }' deep.folded)
deepest=$(awk '{ n = split($1, f, ";"); if (n >= 50 && f[50] == "down") s += $2 } END { print s / 1000000 }' deep.folded)
outside=$(awk '$1 == "[no_function]" { s += $2 } END { print s / 1000000 }' deep.folded)
check_eq "every sample in the folded stacks" "$all" "$program"
check_eq "the samples at the deepest frame kept" \
	"$([ "${deepest:-0}" -le $((program - outside)) ] && [ "${deepest:-0}" -ge $((program - outside - 2)) ] && echo yes)" yes
# the exact clock: the calls deeper than --depth are counted untimed, so the
# average of one call is over the timed ones: never below the cheapest call
# or above the dearest (it was 73 ms against a min of 300 ms)
"$ZOND" record --time exact --depth 50 -q -o exact.db -- "$DEEP" >out.txt 2>err.txt ||
	fail "record --time exact --depth 50"
"$ZOND" report --raw -m down -i exact.db >exact.txt || fail "report --raw"
row=$(awk '$NF == "down" { print $1, $4, $5, $6 }' exact.txt)
set -- $row
check_eq "down's calls" "$1" 201
check_eq "down's avg ($2) within its min ($3) and max ($4)" \
	"$([ "${2:-0}" -ge "${3:-1}" ] && [ "${2:-0}" -le "${4:-0}" ] && echo yes)" yes
finish
