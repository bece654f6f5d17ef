#!/bin/sh
# annotate.sh - zond annotate on a record run: the source of a function with
# its call sites on the exact lines (marked in progs/sites.c) and the exact
# calls made from each; the function's lines from its declaration to its
# closing brace, as the file has them; a clear line when the source is gone.
# Usage: annotate.sh WORKDIR   (ZOND, SITES in the environment)
set -u
dir=$1
mkdir -p "$dir" && cd "$dir" || exit 1
rm -f ./*.db
. "$(dirname "$0")/lib.sh"
src=$(dirname "$0")/progs/sites.c

"$ZOND" record -q --time exact -o s.db -- "$SITES" >out.txt || fail "record"
check_eq "program output" "$(cat out.txt)" 13

line_of() { grep -nF "/* $1 */" "$src" | cut -d: -f1; }
# the row of source line $2 in annotate output $1: "M COST SHARE LINE  TEXT"
# (a row without cost starts with its line number; a row with cost has the share second,
# so a cost that happens to equal the line number is not taken for one)
row_of() { cut -c3- "$1" | awk -v l="$2" '($1 == l && $2 !~ /%$/) || ($3 == l && $2 ~ /%$/)'; }

"$ZOND" annotate -i s.db --raw main >main.txt || fail "annotate main"
for site in "site one:one (7 calls)" "site two:two (3 calls)" "site main-rec:rec (1 call)"; do
	mark=${site%%:*} want=${site#*:}
	row=$(row_of main.txt "$(line_of "$mark")")
	case "$row" in *"-> $want") pass ;; *) fail "main, $mark: row '$row', want '-> $want'" ;; esac
done
check_eq "main: call sites" "$(grep -c -- ' -> ' main.txt)" 3
"$ZOND" annotate -i s.db --raw rec >rec.txt || fail "annotate rec"
row=$(row_of rec.txt "$(line_of 'site rec')")
case "$row" in *"-> rec (4 calls)") pass ;; *) fail "rec: row '$row'" ;; esac
check_eq "rec: call sites" "$(grep -c -- ' -> ' rec.txt)" 1

# The source shown: main's lines, from 'int main' to its closing brace, each
# with the file's text.
first=$(grep -n '^int main' "$src" | cut -d: -f1) last=$(awk -v f="$first" 'NR > f && /^}/ { print NR; exit }' "$src")
sed -n '/ line  source$/,$p' main.txt | sed 1d | sed 's/    -> .*//' |
	awk '{ n = split($0, a, "  "); print }' >shown.txt
check_eq "main: lines shown" "$(wc -l <shown.txt)" $((last - first + 1))
sed -n "${first},${last}p" "$src" >want.txt
# each shown line ends with the file's text of that line after "LINE  "
i=$first
while IFS= read -r text; do
	got=$(sed -n "$((i - first + 1))p" shown.txt)
	case "$got" in *" $i  $text") pass ;; *) fail "line $i shown as '$got'" ;; esac
	i=$((i + 1))
done <want.txt

# The costs: a call site's cost is the callee's total when main is its only
# caller (zond report's figure).
"$ZOND" annotate -i s.db --raw main >raw.txt
one_cost=$(row_of raw.txt "$(line_of 'site one')" | awk '{ print $1 }')
check_eq "one's site cost" "$one_cost" "$("$ZOND" report -i s.db --raw | awk '$NF == "one" { print $2 }')"

# --tid by the thread's name, as --per-thread prints it: the same annotation.
"$ZOND" annotate -i s.db --raw --tid "$(basename "$SITES")" main >tid.txt || fail "annotate --tid"
check_eq "--tid name: same sites" "$(grep -- ' -> ' tid.txt)" "$(grep -- ' -> ' main.txt)"

# Hottest lines marked: the three costliest rows start with '>'.
check_eq "hot marks" "$(grep -c '^>' raw.txt)" 3

# The source gone: one clear line, the sites still listed with their calls.
cp "$src" gone.c && cc -O0 -g -finstrument-functions -o gone gone.c && rm gone.c
"$ZOND" record -q -o s.db -- ./gone >/dev/null || fail "record gone"
"$ZOND" annotate -i s.db main >gone.txt || fail "annotate, source gone"
check_eq "missing source line" "$(grep -c "^(source file $PWD/gone.c not found: lines with costs only)$" gone.txt)" 1
check_eq "missing source: sites" "$(grep -c -- ' -> ' gone.txt)" 3

# The source changed since the build: cut short, its costed rows still print after the note;
# edited after the program was built, said; a directory now, as a missing file.
rm -rf short.c short && cp "$src" short.c && cc -O0 -g -finstrument-functions -o short short.c
"$ZOND" record -q -o short.db -- ./short >/dev/null || fail "record short"
touch -m -d "@$(($(stat -c %Y short) - 10))" short.c
"$ZOND" annotate -i short.db main >same.txt || fail "annotate, source as built"
check_eq "source as built: no note" "$(grep -c '^(source file' same.txt)" 0
head -3 short.c >cut.c && mv cut.c short.c && touch -m -d "@$(($(stat -c %Y short) + 10))" short.c
"$ZOND" annotate -i short.db main >short.txt || fail "annotate, source cut short"
check_eq "source cut short: said" "$(grep -c "^(source file $PWD/short.c ends at line 3: " short.txt)" 1
check_eq "source newer than the program: said" \
	"$(grep -c "^(source file $PWD/short.c is newer than $PWD/short: " short.txt)" 1
check_eq "source cut short: sites" "$(grep -c -- ' -> ' short.txt)" 3
rm short.c && mkdir short.c
"$ZOND" annotate -i short.db main >dir.txt || fail "annotate, source a directory"
check_eq "source a directory" \
	"$(grep -c "^(source file $PWD/short.c not a regular file: lines with costs only)$" dir.txt)" 1
check_eq "source a directory: sites" "$(grep -c -- ' -> ' dir.txt)" 3

# A source in a subdirectory of the build's (DWARF 5 names it relative to the compile
# directory): found from anywhere, and named by its whole path in the callgrind export.
rm -rf rel && mkdir -p rel/lib
printf 'int helper(int x);\nint main(void) { return helper(2) - 6; }\n' >rel/main.c
printf 'int helper(int x)\n{\n\treturn x * 3; /* helper body */\n}\n' >rel/lib/h.c
(cd rel && cc -O0 -g -finstrument-functions -o prog main.c lib/h.c) || fail "build rel"
"$ZOND" record -q -o rel.db -- rel/prog >/dev/null || fail "record rel"
(here=$PWD && cd / && "$ZOND" annotate -i "$here/rel.db" helper) >rel.txt || fail "annotate rel"
check_eq "subdirectory source: found from /" "$(grep -c 'helper body' rel.txt)" 1
check_eq "subdirectory source: whole path in callgrind" \
	"$("$ZOND" export -f callgrind -i rel.db | grep -c "^cfl=([0-9]*) $PWD/rel/lib/h.c$")" 1

# -o never writes over the source annotate reads
cp "$src" mine.c && cc -O0 -g -finstrument-functions -o mine mine.c
"$ZOND" record -q -o m.db -- ./mine >/dev/null || fail "record mine"
check_error "-o the source it reads" "is the same file as" "$ZOND" annotate -i m.db main -o mine.c
cmp -s "$src" mine.c && pass || fail "-o the source it reads: mine.c changed"

check_error "unknown function" "no function 'nope' in run" "$ZOND" annotate -i s.db nope
check_error "no function given" "give one function name" "$ZOND" annotate -i s.db

finish
