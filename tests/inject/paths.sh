#!/bin/sh
# paths.sh - more calling contexts on a thread than the payload keeps
# (8191, results.h): paths.c makes 1 + 100 + 10000.  zond says so in one
# line, the run keeps no contexts (partial paths would be wrong stacks) and
# every call edge and count, as the program makes them; its output is as
# without zond.
#
# Usage: paths.sh ZOND PATHS WORKDIR
set -u
zond=$1 prog=$2 dir=$3/paths
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
status=0
fail() { echo "FAIL: $*"; status=1; }

"$prog" >plain.out
"$zond" inject -q -o paths.db -f 'a*' -f 'b*' -f main -- "$prog" >inject.out 2>inject.err ||
	fail "zond inject: status $?"
diff -u plain.out inject.out || fail "output differs"
grep -qx 'zond inject: more than 8191 calling contexts on a thread: the run keeps call edges only' \
	inject.err || fail "no line about the contexts: $(cat inject.err)"
"$zond" dump -i paths.db >dump.txt
grep -q '^context ' dump.txt && fail "contexts kept: $(grep -c '^context ' dump.txt)"
[ "$(grep -c '^call a[0-9]* -> b[0-9]* calls=1$' dump.txt)" -eq 10000 ] || fail "not 10000 edges a -> b"
[ "$(grep -c '^call main -> a[0-9]* calls=1$' dump.txt)" -eq 100 ] || fail "not 100 edges main -> a"
[ "$(grep -c '^function b[0-9]* calls=100$' dump.txt)" -eq 100 ] || fail "b* not called 100 times each"
"$zond" export -f json -i paths.db | python3 -c '
import json, sys
m = json.load(sys.stdin)["run"]["meta"]
sys.exit(0 if int(m.get("inject_calls_without_context", 0)) > 0 else "no meta inject_calls_without_context")
' || fail "meta"
exit $status
