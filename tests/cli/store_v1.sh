#!/bin/sh
# A schema 1 store (tests/store/v1.sql, no calling contexts): every reading
# command works on it without changing a byte of the file, the call tree and
# the folded stacks say once that their paths are rebuilt from call edges,
# and a store of a newer schema is refused with one line.  A campaign mixing
# a run without contexts (an upgraded store's) and one with them is read
# from every run's call edges, said in one warning line: the tree, the
# stacks and the call graph count the calls the flat profile counts.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

sqlite3 v1.db <"$here/../store/v1.sql" || exit 1
before=$(sha256sum <v1.db)
for cmd in "runs" "report" "graph" "graph --tree" "export -f callgrind" "export -f dot" \
	"export -f json" "export -f folded" "export -f folded -e calls" "dump"; do
	# shellcheck disable=SC2086 # cmd is a command and its options
	if "$ZOND" $cmd -i v1.db >out.txt 2>err.txt; then pass; else fail "$cmd: exit status $?"; cat err.txt >&2; fi
done
check_eq "reading commands leave the file as it was" "$(sha256sum <v1.db)" "$before"

"$ZOND" graph --tree -i v1.db >tree.txt 2>err.txt
check_eq "tree: one line saying the paths are rebuilt" \
	"$(grep -c 'no calling contexts in this run: paths rebuilt from call edges' tree.txt)" 1
check_eq "tree: the rebuilt tree" "$(sed -n '/^ *calls/,$p' tree.txt | sed 1d | tr -s ' ')" \
	"$(printf ' 1 40 ns 100.00%% main\n 3 30 ns 75.00%% f')"
"$ZOND" export -f folded -e calls -i v1.db >folded.txt 2>err.txt
check_eq "folded: calls per rebuilt stack" "$(cat folded.txt)" "$(printf 'main 1\nmain;f 3')"
check_eq "folded: one line on stderr" "$(wc -l <err.txt)" 1
check_eq "folded: saying the stacks are rebuilt" \
	"$(grep -c 'run 1 has no calling contexts: stacks rebuilt from call edges' err.txt)" 1

# Mixed campaign (QA s13 S F8: trees and stacks held the run with contexts only):
# run 1 without contexts (as a schema 1 store's, its rows removed), run 2 with.
"$ZOND" record -q --no-time -c camp -o mix.db -- "$SCALED" 1 10 >/dev/null || exit 1
sqlite3 mix.db "DELETE FROM context_costs WHERE run = 1; DELETE FROM contexts WHERE run = 1" || exit 1
"$ZOND" record -q --no-time -c camp -o mix.db -- "$SCALED" 1 20 >/dev/null || exit 1
for c in 10 20; do
	"$ZOND" record -q --no-time -c new -o mix.db -- "$SCALED" 1 $c >/dev/null || exit 1
done
note="run 1 of the 2 combined has no calling contexts: the campaign's trees, call edges and stacks are rebuilt from every run's call edges"
calls_of() { awk -v f="$1" '$NF == f { print $1 }'; }
check_eq "mixed: flat light calls" "$("$ZOND" report -i mix.db -C camp | calls_of light)" 30
"$ZOND" graph --tree -i mix.db -C camp >tree.txt 2>err.txt
check_eq "mixed: tree light calls, as flat" "$(calls_of light <tree.txt)" 30
check_eq "mixed: tree: the one warning line" "$(grep -c "^warning: *$note" tree.txt) $(grep -c 'in this run' tree.txt)" "1 0"
check_eq "mixed: graph: main's 30 of light's 30 calls" \
	"$("$ZOND" graph -i mix.db -C camp light | awk 'NF > 2 && $(NF-1) == "main" { print $1 }' | head -1)" 30/30
"$ZOND" export -f folded -e calls -i mix.db -C camp >folded.txt 2>err.txt
check_eq "mixed: folded light calls, as flat" "$(awk '/;light / { n += $2 } END { print n }' folded.txt)" 30
check_eq "mixed: folded: one line on stderr, the note" "$(wc -l <err.txt) $(grep -c "^zond export: $note" err.txt)" "1 1"
"$ZOND" export -f speedscope -o mix.speedscope -i mix.db -C camp 2>err.txt
check_eq "mixed: speedscope: one line on stderr, the note" "$(wc -l <err.txt) $(grep -c "^zond export: $note" err.txt)" "1 1"
"$ZOND" dump -i mix.db -C camp >dump.txt 2>err.txt
check_eq "mixed: dump: light's calls, no context lines, the note" \
	"$(grep -c '^function light calls=30$' dump.txt) $(grep -c '^context ' dump.txt) $(grep -c "^zond dump: $note" err.txt)" "1 0 1"
"$ZOND" graph --tree -i mix.db -C new >tree.txt 2>err.txt
check_eq "runs all with contexts: real stacks, no warning" \
	"$(calls_of light <tree.txt) $(grep -c 'no calling contexts' tree.txt err.txt | cut -d: -f2 | tr '\n' ' ')" "30 0 0 "

cp v1.db v4.db
sqlite3 v4.db "UPDATE zond_meta SET value = '4' WHERE key = 'schema_version'"
before=$(sha256sum <v4.db)
check_error "a newer store" "v4.db: written by a newer zond (schema 4, this zond reads 3)" \
	"$ZOND" report -i v4.db
check_eq "a refused store is left as it was" "$(sha256sum <v4.db)" "$before"
finish
