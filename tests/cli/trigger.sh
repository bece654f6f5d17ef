#!/bin/sh
# --trigger FUNC takes a function's name as every option naming functions
# does (a C++ name also without its parameter list), in the program or in a
# library it loads at start-up, or by its mangled name; a name naming several
# functions is refused, naming two; the cold part a compiler split off a
# function is no candidate (it is never entered), and a name with brackets
# names itself.  Only the trigger's calls and those made under it are kept (counts
# only: sampled time adds a [no function] node when a sample lands outside).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

cc -O1 -fPIC -shared -finstrument-functions -o libtrig.so "$here/progs/triggerlib.c" &&
	c++ -O2 -finstrument-functions -o trigger "$here/progs/trigger.cpp" -L. -ltrig \
		-Wl,-rpath,"$PWD" || fail "build"

# kept RUN_DB: its functions and calls, one line
kept() { "$ZOND" dump -i "$1" | sed -n 's/^function //p' | tr '\n' '|'; }

for name in worker 'worker(int)' 'work*'; do
	"$ZOND" record -q --no-time -T "$name" -o "w.db" -- ./trigger >out.txt || fail "-T $name"
	check_eq "-T $name" "$(kept w.db)" "inner(int) calls=100|worker(int) calls=1|"
	rm -f w.db
done
check_eq "the program's output" "$(cat out.txt)" "9900 1275 5 6"
nm -C trigger | grep -q 'checked(int) \[clone \.cold\]' || fail "no cold part of checked(int) to test with"
for name in checked 'checked(int)' _Z7checkedi; do
	"$ZOND" record -q --no-time -T "$name" -o c.db -- ./trigger >/dev/null || fail "-T $name"
	check_eq "-T $name (a cold part beside it)" "$(kept c.db)" "checked(int) calls=3|inner(int) calls=3|"
	rm -f c.db
done
"$ZOND" record -q --no-time -T lib_work -o lib.db -- ./trigger >/dev/null || fail "-T lib_work"
check_eq "-T a library's function" "$(kept lib.db)" "lib_inner calls=50|lib_work calls=1|"
check_error "a name of two functions" "'twice' names 2 functions (twice(int), twice(double)...)" \
	"$ZOND" record -T twice -o x.db -- ./trigger
check_error "a name of none" "no function 'nothere' to trigger on, in it or the libraries" \
	"$ZOND" record -T nothere -o x.db -- ./trigger
finish
