#!/bin/sh
# --filter/--exclude reach the program and the libraries it loads at start-up,
# not a plugin it loads later with dlopen (progs/plughost.c, progs/plugin.c):
# zond says so, naming how many functions were recorded unfiltered (run meta
# unfiltered_functions); a run whose functions were all covered says nothing.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

cc -O1 -fPIC -shared -finstrument-functions -o plugin.so "$here/progs/plugin.c" &&
	cc -O1 -finstrument-functions -o plughost "$here/progs/plughost.c" -ldl || fail "build"

"$ZOND" record -q -N helper -o p.db -- ./plughost "$PWD/plugin.so" >out.txt 2>err.txt ||
	fail "record: $(cat err.txt)"
check_eq "the program's output" "$(cat out.txt)" 18
check_eq "the warning" "$(cat err.txt)" "zond record: warning: --filter/--exclude apply to the \
program and the libraries it loads at start-up: 2 functions of objects loaded later or programs \
it ran ($PWD/plugin.so...) are recorded unfiltered"
check_eq "the plugin's calls, unfiltered" "$("$ZOND" dump -i p.db | grep -c '^function helper calls=4$')" 1
check_eq "the run's meta" "$("$ZOND" export -f json -i p.db | python3 -c '
import json, sys
print(json.load(sys.stdin)["run"]["meta"].get("unfiltered_functions"))')" 2
"$ZOND" record -q -N local -o q.db -- ./plughost "$PWD/plugin.so" >/dev/null 2>err.txt
check_eq "-N local: local left out" "$("$ZOND" dump -i q.db | grep -c '^function local')" 0
"$ZOND" record -q -o r.db -- ./plughost "$PWD/plugin.so" >/dev/null 2>err.txt
check_eq "no filter: no warning" "$(cat err.txt)" ""
finish
