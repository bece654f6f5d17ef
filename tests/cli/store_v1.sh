#!/bin/sh
# A schema 1 store (tests/store/v1.sql, no calling contexts): every reading
# command works on it without changing a byte of the file, the call tree and
# the folded stacks say once that their paths are rebuilt from call edges,
# and a store of a newer schema is refused with one line.
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

cp v1.db v4.db
sqlite3 v4.db "UPDATE zond_meta SET value = '4' WHERE key = 'schema_version'"
before=$(sha256sum <v4.db)
check_error "a newer store" "v4.db: written by a newer zond (schema 4, this zond reads 3)" \
	"$ZOND" report -i v4.db
check_eq "a refused store is left as it was" "$(sha256sum <v4.db)" "$before"
finish
