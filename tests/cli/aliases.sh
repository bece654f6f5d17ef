#!/bin/sh
# A function with several names (alias attributes, libc's close/__close, a
# C++ constructor's complete- and base-object symbols) is one piece of code:
# record --filter/--exclude and inject -f choose it by any of its names
# (progs/aliases.c: work, and other, its alias).  Before (s15): record -F work
# recorded nothing, the filter file excluding the range under the name other;
# inject -f work said "matched no function".  Truth: the program's own count.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

cc -O1 -finstrument-functions -o traced "$here/progs/aliases.c" &&
	cc -O1 -o plain "$here/progs/aliases.c" || fail "build"
./plain >truth.txt || fail "plain run"
calls=$(sed -n 's/^calls=\([0-9]*\) .*/\1/p' truth.txt)
check_eq "the program's count" "$calls" 100

# the aliased function's calls in a store: one line, by either name
aliased() {
	"$ZOND" dump -i "$1" | grep -E '^function (work|other) calls=' | sed 's/.* calls=//'
}
for name in work other; do
	rm -f "f$name.db"
	"$ZOND" record -q -F "$name" -o "f$name.db" -- ./traced >out.txt 2>err.txt ||
		fail "record -F $name: $(cat err.txt)"
	check_eq "record -F $name: the output" "$(cat out.txt)" "$(cat truth.txt)"
	check_eq "record -F $name: its calls" "$(aliased "f$name.db")" "$calls"
	check_eq "record -F $name: main left out" "$("$ZOND" dump -i "f$name.db" | grep -c '^function main ')" 0

	"$ZOND" record -q -N "$name" -o "n$name.db" -- ./traced >/dev/null 2>err.txt ||
		fail "record -N $name: $(cat err.txt)"
	check_eq "record -N $name: left out" "$(aliased "n$name.db")" ""
	check_eq "record -N $name: main kept" "$("$ZOND" dump -i "n$name.db" | grep -c '^function main calls=1$')" 1

	"$ZOND" inject -q -f "$name" -o "i$name.db" -- ./plain >out.txt 2>err.txt ||
		fail "inject -f $name: $(cat err.txt)"
	check_eq "inject -f $name: the output" "$(cat out.txt)" "$(cat truth.txt)"
	check_eq "inject -f $name: its calls" "$(aliased "i$name.db")" "$calls"
done
finish
