#!/bin/sh
# inlined.sh - calls of inlined functions whose hooks GCC keeps (progs/inlined.c,
# -O2, always_inline): the hooks' call_site is the enclosing function's return
# address in ITS caller, so the line of such a call must come from where the
# callee's entry hook ran (the inlined body) and DWARF's inline call line there.
# zond annotate shows each call on its exact line (marked in the source), the
# listing stays within the function's lines, the callgrind export's calls= line
# is followed by the call's line (and callgrind_annotate puts the call under it),
# and JSON's edges and contexts carry the same lines.
# Usage: inlined.sh WORKDIR   (ZOND, INLINED in the environment)
set -u
dir=$1
mkdir -p "$dir" && cd "$dir" || exit 1
rm -f ./*.db
. "$(dirname "$0")/lib.sh"
src=$(cd "$(dirname "$0")/progs" && pwd)/inlined.c

"$ZOND" record -q --time exact -o i.db -- "$INLINED" >out.txt || fail "record"
check_eq "program output" "$(cat out.txt)" 172

line_of() { grep -nF "/* site $1 */" "$src" | cut -d: -f1; }
# the row of source line $2 in annotate output $1 (as annotate.sh reads it)
row_of() { cut -c3- "$1" | awk -v l="$2" '($1 == l && $2 !~ /%$/) || ($3 == l && $2 ~ /%$/)'; }
# the line numbers annotate output $1 lists, one a line
listed() {
	sed -n '/ line  source$/,$p' "$1" | sed 1d | cut -c3- |
		awk '{ print ($2 ~ /%$/) ? $3 : $1 }'
}
# the first and last line of function $1 in the source: its declaration to its closing brace
span_of() {
	awk -v f="$1" 'index($0, " " f "(") && /^[a-z_]/ && !/;$/ { at = NR }
		at && NR > at && /^}/ { print at, NR; exit }' "$src"
}

# function:calls from it as "line:callee (N calls)" pairs
for want in "mid:leaf:leaf (10 calls)" "mid:outer:outer (2 calls)" "outer:inner:inner (2 calls)" \
	"rec:rec-leaf:leaf (4 calls)" "rec:rec:rec (3 calls)" "main:mid:mid (1 call)" \
	"main:main-rec:rec (1 call)"; do
	fn=${want%%:*} rest=${want#*:}
	mark=${rest%%:*} callee=${rest#*:}
	"$ZOND" annotate -i i.db --raw "$fn" >"$fn.txt" || fail "annotate $fn"
	row=$(row_of "$fn.txt" "$(line_of "$mark")")
	case "$row" in *"-> $callee") pass ;; *) fail "$fn, site $mark: row '$row', want '-> $callee'" ;; esac
done
for want in mid:2 outer:1 rec:2 main:2; do
	check_eq "${want%:*}: call sites" "$(grep -c -- ' -> ' "${want%:*}.txt")" "${want#*:}"
done
# each listing runs from the function's declaration to its closing brace, no further
for fn in mid outer rec main; do
	span=$(span_of "$fn")
	check_eq "$fn: lines listed" "$(listed "$fn.txt" | sed -n '1p;$p' | tr '\n' ' ')" "$span "
	check_eq "$fn: no note on the source" "$(grep -c '^(source file' "$fn.txt")" 0
done

# callgrind: each calls= line is followed by the cost line of the call's line
"$ZOND" export -i i.db -f callgrind -o i.cg || fail "export callgrind"
after_calls() { grep -A1 "^calls=$1 " i.cg | grep -v '^calls=\|^--' | awk '{ print $1 }' | sort -n | tr '\n' ' '; }
check_eq "callgrind: mid's calls of leaf" "$(after_calls 10)" "$(line_of leaf) "
check_eq "callgrind: rec's calls of leaf" "$(after_calls 4)" "$(line_of rec-leaf) "
check_eq "callgrind: calls of outer and inner" "$(after_calls 2)" \
	"$(printf '%s\n' "$(line_of inner)" "$(line_of outer)" | sort -n | tr '\n' ' ')"
# callgrind_annotate's source view: the call right under the line that makes it
if command -v callgrind_annotate >/dev/null; then
	callgrind_annotate --auto=yes --threshold=100 i.cg >cga.txt 2>&1 || fail "callgrind_annotate"
	for want in "leaf (10x):site leaf" "outer (2x):site outer" "inner (2x):site inner" \
		"leaf (4x):site rec-leaf" "rec (3x):site rec" "mid (1x):site mid"; do
		above=$(grep -B1 -F ":${want%%:*}" cga.txt | head -1)
		case "$above" in *"/* ${want#*:} */"*) pass ;;
		*) fail "callgrind_annotate: ${want%%:*} under '$above', want '/* ${want#*:} */'" ;; esac
	done
fi

# JSON: the edges' and contexts' site lines
"$ZOND" export -i i.db -f json -o i.json || fail "export json"
check_eq "json: site lines" "$(python3 - i.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
name = {n["id"]: n["name"] for n in d["nodes"]}
out = set()
for e in d["edges"]:
    if e["caller"] is not None:
        out.add("%s>%s:%d" % (name[e["caller"]], name[e["callee"]], e["site_line"]))
ctx = {c["id"]: c for c in d["contexts"]}
for c in d["contexts"]:
    if c["parent"] is not None:
        out.add("%s>%s:%d" % (name[ctx[c["parent"]]["node"]], name[c["node"]], c["site_line"]))
print(" ".join(sorted(out)))
PY
)" "main>mid:$(line_of mid) main>rec:$(line_of main-rec) mid>leaf:$(line_of leaf) mid>outer:$(line_of outer) outer>inner:$(line_of inner) rec>leaf:$(line_of rec-leaf) rec>rec:$(line_of rec)"

finish
