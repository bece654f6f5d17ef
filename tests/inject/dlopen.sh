#!/bin/sh
# dlopen.sh - functions of a library the program loads with dlopen after it
# started (-f PATH:GLOB): patched when the loader has mapped it (the thread
# in dlopen waits at the loader's r_brk meanwhile) and measured as the
# program counts them, in the main thread and another; output and status
# as without zond; unloaded by dlclose and loaded again, measured again; a
# library the program never loads is
# said in one line, and the run ends as without zond; zond killed before the
# program loads it, the program goes on (nothing waits for zond).
#
# Usage: dlopen.sh ZOND DLOPEN PLUGIN WORKDIR
set -u
zond=$1 prog=$2 plugin=$3 dir=$4/dlopen
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
status=0
fail() { echo "FAIL: $*"; status=1; }

"$prog" "$plugin" >plain.out
plain=$?
"$zond" inject -q -o dl.db -f "$plugin:plugin_*" -f use -- "$prog" "$plugin" >inject.out 2>inject.err
rc=$?
[ $rc -eq $plain ] || fail "status $rc under zond inject, $plain without: $(cat inject.err)"
diff -u plain.out inject.out || fail "output differs"
[ "$(head -1 plain.out)" = "count plugin_leaf 3000" ] || fail "the program: $(cat plain.out)"
grep -v "rests\? on an estimate" inject.err | grep -q . && fail "zond said: $(cat inject.err)"
"$zond" dump -i dl.db >dump.txt
# each load: use -> plugin_run 2 calls and 1000 leaf calls each in main; the
# first also plugin_run once in a thread (a root call there)
for want in 'function plugin_leaf calls=5000' 'function plugin_run calls=5' 'function use calls=2' \
	'context use;plugin_run;plugin_leaf calls=4000' 'context plugin_run;plugin_leaf calls=1000' \
	'threads 2'; do
	grep -qx "$want" dump.txt || fail "no '$want': $(grep -v '^call' dump.txt | tr '\n' '|')"
done

"$prog" >plain0.out
"$zond" inject -q -o none.db -f "$plugin:plugin_*" -f main -- "$prog" >none.out 2>none.err
rc=$?
[ $rc -eq 0 ] || fail "never loaded: status $rc"
diff -u plain0.out none.out || fail "never loaded: output differs"
grep -qx "zond inject: 1 library was never loaded by the program: its functions were not measured" \
	none.err || fail "never loaded: $(cat none.err)"
# zond killed (SIGKILL) while the program waits, before its dlopen: the
# program's output is complete all the same.  The program says when it waits
# (zond has started it and set its patches by then) and goes on when told, so
# the kill lands there however slow the machine.
mkfifo go
"$zond" inject -q -o killed.db -f "$plugin:plugin_*" -- "$prog" "$plugin" go >killed.out 2>killed.err &
zpid=$!
i=0
while [ $i -lt 600 ] && ! grep -q '^waiting ' killed.err; do sleep 0.1; i=$((i + 1)); done
ppid=$(sed -n 's/^waiting //p' killed.err)
[ -n "$ppid" ] || fail "zond killed: the program never waited: $(cat killed.err)"
kill -9 $zpid
wait $zpid 2>/dev/null
# (bounded: a program that is gone opens no fifo)
timeout 60 sh -c 'echo go >go' || fail "zond killed: the program did not read its go"
# the program, no longer zond's child, is waited for by its pid (a minute at most: one
# held at its dlopen never ends)
i=0
while [ $i -lt 600 ] && kill -0 "${ppid:-0}" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
diff -u plain.out killed.out || fail "zond killed: the program's output differs (held at its dlopen?)"
exit $status
