#!/bin/sh
# Names with the characters zond's text formats give a meaning: `zond dump` writes a
# name the same way in every line (function, call, context), each on one line: a
# newline as '?' (as the reports write control characters), ';' as ':' (it joins a
# context's path), spaces kept.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

nl='
'
cc -O1 -finstrument-functions -c -o odd.o "$here/progs/oddnames.c" &&
	objcopy --redefine-sym 'semi=a;b' --redefine-sym 'spacey=x y 12' \
		--redefine-sym "nl=new${nl}line" odd.o &&
	cc -o odd odd.o || fail "build"
"$ZOND" record -q -o odd.db -- ./odd >/dev/null 2>&1 || fail "record"
"$ZOND" dump -i odd.db >dump.txt 2>&1 || fail "dump"
cat >want.txt <<'END'
threads 1
call - -> main calls=1
call main -> outer calls=4
call outer -> a:b calls=4
call outer -> new?line calls=4
call outer -> x y 12 calls=4
context main calls=1
context main;outer calls=4
context main;outer;a:b calls=4
context main;outer;new?line calls=4
context main;outer;x y 12 calls=4
function a:b calls=4
function main calls=1
function new?line calls=4
function outer calls=4
function x y 12 calls=4
END
check_same "dump of odd names" dump.txt want.txt
# ... and every text command writes them on one line, as '?' (QA s15 W2 F3: diff's rows,
# annotate's title and callee list, the campaign in runs, the header and diff's sides split)
tab=$(printf '\t')
"$ZOND" record -q -c "camp${nl}two${tab}x" -o odd.db -- ./odd >/dev/null 2>&1 || fail "record -c"
for cmd in "report" "report --per-thread" "graph" "graph --tree" "diff 1 2" "annotate outer" \
	"runs" "report -C camp?two?x"; do
	# shellcheck disable=SC2086
	case $cmd in
	*-C*) "$ZOND" report -i odd.db -C "camp${nl}two${tab}x" >text.txt 2>&1 ;;
	*) "$ZOND" $cmd -i odd.db >text.txt 2>&1 ;;
	esac || fail "$cmd: status $?"
	check_eq "$cmd: no name split over lines" "$(grep -c -e '^line' -e '^two' text.txt)" 0
	grep -q "$tab" text.txt && fail "$cmd: a raw tab: $(grep "$tab" text.txt)"
done

# gfortran's module procedures ("__mathmod_MOD_fact") as gdb names them,
# "mathmod::fact", and still found by their symbol; the procedures gfortran
# makes for a module's types keep their symbol
cc -O1 -finstrument-functions -c -o ftn.o "$here/progs/oddnames.c" &&
	objcopy --redefine-sym 'semi=__mathmod_MOD_fact' \
		--redefine-sym 'spacey=__mathmod_MOD___copy_mathmod_T' ftn.o &&
	cc -o ftn ftn.o || fail "build ftn"
"$ZOND" record -q -o ftn.db -- ./ftn >/dev/null 2>&1 || fail "record ftn"
check_eq "the module procedure" "$("$ZOND" dump -i ftn.db | grep -c '^function mathmod::fact calls=4$')" 1
check_eq "the type's procedure" \
	"$("$ZOND" dump -i ftn.db | grep -c '^function __mathmod_MOD___copy_mathmod_T calls=4$')" 1
check_eq "report -m by symbol" \
	"$("$ZOND" report -i ftn.db -m __mathmod_MOD_fact 2>&1 | grep -c ' mathmod::fact$')" 1
"$ZOND" record -q -N __mathmod_MOD_fact -o ftn2.db -- ./ftn >/dev/null 2>&1 || fail "record -N"
check_eq "-N by symbol" "$("$ZOND" dump -i ftn2.db | grep -c 'mathmod::fact')" 0
finish
