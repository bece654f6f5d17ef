#!/bin/sh
# zond libcalls only counts some functions (doc/libcalls.md: setjmp, the dl*
# family...): the flat profile shows their calls and "-" for every time, and
# their time is 0, never the floor the bounds give timed calls (1 ns a call:
# "dlopen 3 calls, total 3 ns" read as free); a timed call keeps its time.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

cc -O0 -o counted "$here/progs/counted.c" -ldl || fail "build"
"$ZOND" libcalls -q -o c.db -- ./counted >out.txt 2>err.txt || fail "libcalls: $(cat err.txt)"
check_eq "the program's output" "$(cat out.txt)" 3
"$ZOND" report -i c.db -n 0 >report.txt || fail "report"
for f in dlopen dlclose; do
	check_eq "$f: calls and no time" "$(awk -v f=$f '$NF == f { print $1, $2, $3, $4, $5, $6 }' report.txt)" \
		"3 - - - - -"
done
check_eq "printf's call is timed" "$(awk '$NF == "printf" || $NF == "puts" { print ($2 != "-") }' report.txt)" 1
"$ZOND" export -f json -i c.db -o c.json || fail "export"
check_eq "dlopen's self in the store" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print([n["self"]["time"] for n in d["nodes"] if n["name"] == "dlopen"])' c.json)" "[0]"
finish
