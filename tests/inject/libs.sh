#!/bin/sh
# libs.sh - zond inject -f MODULE:GLOB: functions of the program's shared
# libraries (a library of the test's, found by its name as the loader
# lists it, and libc's getpid, named by an alias of its symbol) measured
# beside the program's main: calls as the program counts them, the edges
# from main, output and status as without zond; the library's constructor
# (run by the loader at start-up, before the program's entry point) and
# destructor too, with their calls (before, the constructor ran before zond
# patched anything: lib_add 18 calls of 20, no lib_start).  A library the
# program does not load gets one line.
#
# Usage: libs.sh ZOND USELIB WORKDIR
set -u
zond=$1 uselib=$2 dir=$3/libs
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
status=0
fail() { echo "FAIL: $*"; status=1; }

"$uselib" 11 5 >plain.out
plain=$?
"$zond" inject -q -o libs.db -f 'libinject_count.so:lib_*' -f 'libc.so.6:getpid' -f main -f add_twice \
	-- "$uselib" 11 5 >inject.out
rc=$?
[ $rc -eq $plain ] || fail "status $rc under zond inject, $plain without"
diff -u plain.out inject.out || fail "output differs"
[ "$(cat plain.out)" = "sum 66 lib_calls 16" ] || fail "the program: $(cat plain.out)"
"$zond" dump -i libs.db >dump.txt
cat >want.txt <<'W'
threads 1
call - -> lib_end calls=1
call - -> lib_start calls=1
call - -> main calls=1
call add_twice -> lib_add calls=3
call lib_end -> lib_add calls=4
call lib_start -> lib_add calls=2
call main -> add_twice calls=3
call main -> getpid calls=5
call main -> lib_add calls=11
context lib_end calls=1
context lib_end;lib_add calls=4
context lib_start calls=1
context lib_start;lib_add calls=2
context main calls=1
context main;add_twice calls=3
context main;add_twice;lib_add calls=3
context main;getpid calls=5
context main;lib_add calls=11
function add_twice calls=3
function getpid calls=5
function lib_add calls=20
function lib_end calls=1
function lib_start calls=1
function main calls=1
W
diff -u want.txt dump.txt || fail "calls, edges and calling contexts"
lib=$("$zond" export -f json -i libs.db | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(*sorted(n["name"] + " " + n["module"].rsplit("/", 1)[1] for n in d["nodes"]))')
[ "$lib" = "add_twice inject_uselib getpid libc.so.6 lib_add libinject_count.so lib_end libinject_count.so lib_start libinject_count.so main inject_uselib" ] ||
	fail "modules of the nodes: $lib"
# two globs naming one function patch it once (twice, the run failed)
"$zond" inject -q -o twice.db -f 'libc.so.6:getpid' -f 'libc.so.6:getp*' -- "$uselib" 11 5 >/dev/null ||
	fail "two -f naming getpid: status $?"
"$zond" dump -i twice.db | grep -qx 'function getpid calls=5' ||
	fail "two -f naming getpid: $("$zond" dump -i twice.db | grep getpid)"
err=$("$zond" inject -q -o none.db -f 'libnosuch.so:f' -- "$uselib" 2>&1)
rc=$?
[ $rc -eq 1 ] && [ "$err" = "zond inject: -f libnosuch.so:f: $uselib loads no library libnosuch.so at start (one it loads with dlopen: give its path)" ] ||
	fail "a library not loaded: status $rc, '$err'"
[ $status -eq 0 ] && echo "libs: ok"
exit $status
