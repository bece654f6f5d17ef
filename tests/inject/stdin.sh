#!/bin/sh
# stdin.sh - a campaign of several runs of a program that reads its standard input (a file,
# then a pipe): every run sees all of it (zond keeps it once in a temporary file), so each
# prints "500 lines" and the campaign's line() has exactly 500 calls; the same in the descent.
# Before, the call graph's run read it to its end and every later run read EOF, silently
# (QA s13 U F6).  A run whose calls differ from the call graph's is said in one line.
#
# Usage: stdin.sh ZOND STDINLINES WORKDIR
set -u
zond=$1 prog=$2 dir=$3/stdin
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
status=0
fail() { echo "FAIL: $*"; status=1; }
seq 1 500 > in.txt
# check HOW OUTFILE ERRFILE: each run printed 500 lines, line() 500 calls in the campaign
check() {
	runs=$(grep -c . "$2")
	[ "$runs" -ge 2 ] || fail "$1: $runs runs"
	[ "$(sort -u "$2")" = "500 lines" ] || fail "$1: the runs printed: $(cat "$2" | tr '\n' ,)"
	grep -q 'different work' "$3" && fail "$1: warned: $(grep 'different work' "$3")"
	n=$("$zond" report -i z.db -C c 2>&1 | awk '$NF == "line" {print $1}')
	[ "$n" = 500 ] || fail "$1: line() $n calls in the campaign, not 500"
}
rm -f z.db
"$zond" inject -o z.db -c c --per-run 1 -f line -f finish -f main -- "$prog" < in.txt \
	> out.txt 2> err.txt || fail "--per-run 1 < file: exit $?: $(cat err.txt)"
check "--per-run 1 < file" out.txt err.txt
rm -f z.db
seq 1 500 | "$zond" inject -o z.db -c c --per-run 1 -f line -f finish -f main -- "$prog" \
	> out.txt 2> err.txt || fail "--per-run 1 from a pipe: exit $?: $(cat err.txt)"
check "--per-run 1 from a pipe" out.txt err.txt
rm -f z.db
"$zond" inject -o z.db -c c --descend --threshold 0 -f line -f finish -f main -- "$prog" \
	< in.txt > out.txt 2> err.txt || fail "--descend < file: exit $?: $(cat err.txt)"
check "--descend < file" out.txt err.txt
[ $status = 0 ] && echo ok
exit $status
