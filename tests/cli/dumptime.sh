#!/bin/sh
# zond dump is the run without times: samples taken where no recorded
# function was open (progs/outside.c: an exit handler burning CPU after main)
# make a "[no function]" row of time only, which dump leaves out (it came
# and went with where the samples fell) but for --times.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

cc -O1 -finstrument-functions -o outside "$here/progs/outside.c" || fail "build"
"$ZOND" record -q -o o.db -- ./outside >out.txt 2>err.txt || fail "record: $(cat err.txt)"
check_eq "the program's output" "$(cat out.txt)" 3
"$ZOND" dump -i o.db >dump.txt || fail "dump"
check_eq "dump: calls only" "$(grep -E '^(function|context)' dump.txt | tr '\n' '|')" \
	"context main calls=1|context main;work calls=3|function main calls=1|function work calls=3|"
"$ZOND" dump --times -i o.db >times.txt || fail "dump --times"
check_eq "dump --times: the samples outside" "$(grep -c '^function \[no function\] calls=0 ' times.txt)" 1
finish
