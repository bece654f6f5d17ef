#!/bin/sh
# A call in progress at fork() (QA finding F4): the forked child's piece of
# it (its frame continued there, doc/raw-format.md "Files") is time of the
# child in the totals, but no call: min, max and avg are of whole calls, so
# min <= avg <= max on every row, and a function called once has min = avg
# = max (were: avg above max, main's min a child's piece).  record (main,
# dofork) and libcalls (fork).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

cc -O1 -finstrument-functions -o forkcall "$here/progs/forkcall.c" || fail "build"
"$ZOND" record -q --time exact -o f.db -- ./forkcall 2>err.txt || fail "record: $(cat err.txt)"
"$ZOND" libcalls -q -o f.db -- ./forkcall 2>err.txt || fail "libcalls: $(cat err.txt)"
# rows: calls total self avg min max self% name
for r in 1 2; do
	"$ZOND" report -i f.db -r $r --raw -n 0 >report$r.txt || fail "report -r $r"
	bad=$(awk '$1 ~ /^[0-9]+$/ && $1 > 0 && $4 != "-" && $5 != "-" && $6 != "-" &&
		   ($4 + 0 > $6 + 0 || $5 + 0 > $4 + 0 || ($1 == 1 && ($5 != $4 || $4 != $6))) { print }' \
		report$r.txt)
	check_eq "run $r: rows with avg outside [min, max]" "$bad" ""
done
check_eq "record: main and dofork are there" \
	"$(awk '$NF == "main" || $NF == "dofork" { print $1, $NF }' report1.txt | sort)" "1 main
3 dofork"
check_eq "libcalls: fork is there" "$(awk '$NF == "fork" { print $1 }' report2.txt)" 3
# the children's pieces are in the totals: main's total is above its one call's time
check_eq "record: main's total holds the children's pieces" \
	"$(awk '$NF == "main" { print ($2 + 0 > $4 + 0) }' report1.txt)" 1
finish
