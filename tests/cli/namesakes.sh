#!/bin/sh
# Functions of one name in two objects (progs/plugin.c built once, loaded from
# two paths by progs/plughost.c; a copy of it under another name): the text
# reports tell them apart by their object's base name, or by its path where
# the base names are alike too; a name of one object only stays bare.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work/a" "$work/b" && cd "$work" || exit 1

cc -O1 -fPIC -shared -finstrument-functions -o a/libplug.so "$here/progs/plugin.c" &&
	cp a/libplug.so b/libplug.so && cp a/libplug.so libother.so &&
	cc -O1 -finstrument-functions -o plughost "$here/progs/plughost.c" -ldl || fail "build"

"$ZOND" record -q --no-time -o p.db -- ./plughost "$PWD/a/libplug.so" "$PWD/b/libplug.so" \
	>out.txt 2>err.txt || fail "record: $(cat err.txt)"
check_eq "the program's output" "$(cat out.txt)" "18${nl:-
}18"
"$ZOND" report -i p.db >report.txt || fail "report"
rows() { awk '$1 ~ /^[0-9]+$/ { $1 = ""; print substr($0, 2) }' "$1" | sort; }
check_eq "the report's rows" "$(rows report.txt)" "$(printf '%s\n' "helper ($PWD/a/libplug.so)" \
	"helper ($PWD/b/libplug.so)" local main "run ($PWD/a/libplug.so)" "run ($PWD/b/libplug.so)" | sort)"
"$ZOND" graph -i p.db --tree >tree.txt || fail "graph --tree"
check_eq "the tree's lines under each run" \
	"$(grep -c "helper ($PWD/[ab]/libplug.so)" tree.txt)" 2

"$ZOND" record -q --no-time -o q.db -- ./plughost "$PWD/a/libplug.so" "$PWD/libother.so" \
	>/dev/null 2>err.txt || fail "record: $(cat err.txt)"
"$ZOND" report -i q.db >report.txt || fail "report"
check_eq "by base name" "$(rows report.txt)" "$(printf '%s\n' "helper (libother.so)" \
	"helper (libplug.so)" local main "run (libother.so)" "run (libplug.so)" | sort)"
finish
