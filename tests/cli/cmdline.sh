#!/bin/sh
# cmdline.sh - the one command line of the reading commands (report, graph,
# annotate, export, dump, runs, diff): the common options in every command,
# before or after positional arguments; -m repeatable, an option of one
# value given twice refused; --tid in each form --per-thread prints; -o the file written; zond help help; every export format listed
# and accepted; wide numbers in columns; units in headers; a campaign's
# header.
# Usage: cmdline.sh WORKDIR   (ZOND, WRITE_FIXTURE, SCALED in the environment)
set -u
dir=$1
mkdir -p "$dir" && cd "$dir" || exit 1
rm -f ./*.db
. "$(dirname "$0")/lib.sh"

"$WRITE_FIXTURE" contexts-store 1 ctx.db || exit 1
"$WRITE_FIXTURE" contexts-store 1 ctx.db || exit 1

# Options before or after the positional arguments, the same output.
"$ZOND" graph -i ctx.db -t -r 1 C >before.txt 2>&1
"$ZOND" graph C -t -r 1 -i ctx.db >after.txt 2>&1
check_same "graph: options after FUNC" before.txt after.txt
"$ZOND" annotate -i ctx.db --raw A >before.txt 2>&1
"$ZOND" annotate A --raw -i ctx.db >after.txt 2>&1
check_same "annotate: options after FUNC" before.txt after.txt
"$ZOND" diff -i ctx.db --raw 1 2 >before.txt 2>&1
"$ZOND" diff 1 2 --raw -i ctx.db >after.txt 2>&1
check_same "diff: options after the runs" before.txt after.txt
check_error "graph: a second FUNC" "unexpected argument 'B'" "$ZOND" graph A -i ctx.db B

# -m is repeatable: a function matching any pattern (report, graph, graph --tree); an
# option of one value given twice with two values is refused, never dropped
names() { sed '1,/^ *calls/d' | awk '{print $NF}' | tr '\n' ' '; }
check_eq "report -m A -m C" "$("$ZOND" report -i ctx.db --raw -m A -m C | names)" "C A "
check_eq "report --match A --match 'C*'" "$("$ZOND" report -i ctx.db --raw --match A --match 'C*' | names)" "C A "
check_eq "report -m A" "$("$ZOND" report -i ctx.db --raw -m A | names)" "A "
check_eq "graph -m A -m C: two entries" "$("$ZOND" graph -i ctx.db -m A -m C | grep -c '^\[')" 2
check_eq "graph -m A C: two entries" "$("$ZOND" graph -i ctx.db -m A C | grep -c '^\[')" 2
check_error "graph -m of none" "no function 'nosuch' in run" "$ZOND" graph -i ctx.db -m A -m nosuch
"$ZOND" graph -i ctx.db --tree -m A -m C --raw >tree.txt || fail "graph --tree -m A -m C"
check_eq "graph --tree -m A -m C: both roots" "$(grep -c '^ *[0-9]* *[0-9]* *[0-9.]*%  [AC]$' tree.txt)" 2
check_error "report -r twice" "-r/--run given twice ('1', '2'): it takes one" "$ZOND" report -i ctx.db -r 1 -r 2
check_error "graph -e twice" "-e/--event given twice" "$ZOND" graph -i ctx.db -e time -e calls
check_error "export --tid twice" "--tid given twice" "$ZOND" export -i ctx.db --tid 1 --tid 2
# ... a command's own options too (QA s13 S F3: the last silently won)
check_error "report -s twice" "-s/--sort given twice ('calls', 'name'): it takes one" "$ZOND" report -i ctx.db -s calls -s name
check_error "report -n twice" "-n/--limit given twice ('1', '2')" "$ZOND" report -i ctx.db -n 1 --limit 2
check_error "export -f twice" "-f/--format given twice ('json', 'folded')" "$ZOND" export -i ctx.db -f json -f folded -o twice.out
check_eq "export -f twice: nothing written" "$(test -e twice.out && echo written)" ""
check_error "export --min-share twice" "--min-share given twice ('1', '2')" "$ZOND" export -i ctx.db -f dot --min-share 1 --min-share 2
check_error "diff --fail-above twice" "--fail-above given twice ('10', '500')" "$ZOND" diff -i ctx.db 1 2 --fail-above 10 --fail-above 500
check_error "diff --min-share twice" "--min-share given twice" "$ZOND" diff -i ctx.db 1 2 --min-share 1 --min-share 5
check_error "diff -n twice" "-n/--limit given twice" "$ZOND" diff -i ctx.db 1 2 -n 1 -n 2
check_error "runs -d twice" "-d/--delete given twice ('1', '2')" "$ZOND" runs -i ctx.db -d 1 -d 2
check_eq "own option, the same value twice: no conflict" "$("$ZOND" report -i ctx.db -r 1 -s name --sort name --raw -m A | names)" "A "
check_eq "diff sides are not one option given twice" "$("$ZOND" diff -i ctx.db -r 1 -r 2 -n 1 -n 1 | head -2 | cut -d, -f1 | tr '\n' '|')" "A: run 1|B: run 2|"
check_eq "the same value twice is no conflict" "$("$ZOND" report -i ctx.db -r 1 --run 1 --raw -m A | names)" "A "

# --tid takes each form of the thread titles --per-thread prints:
# "thread PID/TID (NAME): ...".
"$ZOND" report -i ctx.db --per-thread --raw >per.txt || fail "report --per-thread"
sed -n 's/^thread \([0-9]*\)\/\([0-9]*\) (\(.*\)): .*/\1 \2 \3/p' per.txt >titles.txt
check_eq "thread titles" "$(wc -l <titles.txt)" 2
while read -r pid tid name; do
	# the thread's table in the --per-thread output: its title to the next blank line
	awk -v t="thread $pid/$tid ($name):" 'index($0, t) == 1 { on = 1 } on && $0 == "" { exit }
		on' per.txt >want.txt
	for form in "$tid" "$pid/$tid" "$name"; do
		"$ZOND" report -i ctx.db --raw --tid "$form" | sed '1,/^$/d' >got.txt
		check_same "report --tid $form" got.txt want.txt
	done
	"$ZOND" dump -i ctx.db --tid "$name" >a.txt && "$ZOND" dump --tid "$pid/$tid" -i ctx.db >b.txt
	check_same "dump --tid $name" a.txt b.txt
done <titles.txt
check_error "unknown thread name" "no thread 'nobody'" "$ZOND" report -i ctx.db --tid nobody
check_error "unknown pid/tid" "no thread '100/100'" "$ZOND" report -i ctx.db --tid 100/100

# -o is the file written, in every reading command; nothing on stdout then.
for cmd in "report" "graph" "graph -t" "dump" "runs" "annotate A" "diff 1 2"; do
	# shellcheck disable=SC2086
	"$ZOND" $cmd -i ctx.db >stdout.txt || fail "$cmd"
	# shellcheck disable=SC2086
	"$ZOND" $cmd -o file.txt -i ctx.db >none.txt || fail "$cmd -o"
	check_same "$cmd -o" file.txt stdout.txt
	check_eq "$cmd -o: stdout" "$(wc -c <none.txt)" 0
done
check_error "-o into a missing directory" "no/such/x.txt: cannot create" \
	"$ZOND" report -i ctx.db -o no/such/x.txt
# every reading command's -o is checked like export's: never over the store it reads
for c in report graph dump runs; do
	check_error "$c -o over the store" "ctx.db: is an input of this command" \
		"$ZOND" $c -i ctx.db -o ctx.db
done
"$ZOND" runs -i ctx.db >/dev/null || fail "the store survived -o over it"

# zond help: of itself, of every command, the same as COMMAND --help.
"$ZOND" help help >help.txt || fail "zond help help"
check_eq "help help" "$(head -1 help.txt)" "usage: zond help [COMMAND]"
commands=$("$ZOND" --help | sed -n '/^commands:/,/^$/s/^  \([a-z]*\) .*/\1/p' | grep -v '^help$')
check_eq "commands listed" "$(echo "$commands" | wc -l)" 14
for c in $commands; do
	"$ZOND" help "$c" >a.txt || fail "zond help $c"
	"$ZOND" "$c" --help >b.txt || fail "zond $c --help"
	check_same "help $c" a.txt b.txt
	grep -q "^usage: zond $c" a.txt || fail "zond help $c: no usage line"
done
check_error "help of no command" "no command 'nope'" "$ZOND" help nope

# Every format export --help lists is accepted, and zond --help names them all.
formats=$("$ZOND" export --help | sed -n '/^Write a run/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p')
check_eq "formats listed" "$(echo "$formats" | wc -l)" 8
summary=$("$ZOND" --help | grep '^  export ')
for f in $formats; do
	"$ZOND" export -f "$f" -i ctx.db -o out.$f 2>/dev/null
	rc=$?
	# callgrind-bb wants a trace run, chrome a timeline: refused with one line, not unknown
	if [ "$f" = callgrind-bb ] || [ "$f" = chrome ]; then
		check_error "export -f $f on a record run" "" "$ZOND" export -f "$f" -i ctx.db -o out.$f
		grep -q "unknown format" err.txt && fail "export -f $f: unknown"
	else
		check_eq "export -f $f" "$rc" 0
	fi
	case "$summary" in *" $f"*) pass ;; *) fail "zond --help export line lacks $f: $summary" ;; esac
done
check_error "unknown format" "unknown format 'svg'" "$ZOND" export -f svg -i ctx.db

# Wide numbers never break the columns: the huge fixture (64-bit counts).
"$WRITE_FIXTURE" huge-store 1 huge.db || exit 1
"$WRITE_FIXTURE" huge-store 1 huge.db || exit 1
# Each row's name must start where the header's "name" does (tree rows: after
# their indentation).  Usage: name_column FILE NAME_REGEX
name_column() {
	awk -v r="$2" '/ name$/ { col = index($0, " name") + 1; next }
		col && / (big|main)( \[[0-9]\])?$/ {
			if (substr($0, col) !~ r) { print "row " NR " breaks the columns: " $0; bad = 1 }
			n++ }
		END { if (n != 2) print n " rows"; exit bad || n != 2 }' "$1"
}
for raw in "" "--raw"; do
	"$ZOND" report -i huge.db $raw >flat.txt
	name_column flat.txt '^(big|main)$' || fail "report $raw: columns"
	"$ZOND" graph -t -i huge.db $raw >tree.txt
	name_column tree.txt '^(main|  big)$' || fail "graph -t $raw: columns"
	"$ZOND" graph -i huge.db $raw | grep -v '^ ' >graph.txt
	name_column graph.txt '^(big|main) ' || fail "graph $raw: columns"
	"$ZOND" diff -i huge.db $raw 1 2 >diff.txt
	name_column diff.txt '^(big|main)$' || fail "diff $raw: columns"
done
# the numbers themselves, exact (the fixture's constants)
"$ZOND" report -i huge.db --raw | awk '$NF == "big"' >big.txt
check_eq "huge calls" "$(awk '{ print $1 }' big.txt)" 12345678901234567890
check_eq "huge self" "$(awk '{ print $3 }' big.txt)" 9876543210987654321

# Units: the header names the unit the values are in.
check_eq "raw unit" "$("$ZOND" report -i huge.db --raw | grep '^flat profile')" \
	"flat profile: time (ns), total 9876543210987654326"
check_eq "scaled unit" "$("$ZOND" report -i huge.db | grep '^flat profile')" \
	"flat profile: time (each value with its unit), total 9876543210.99 s"

# A campaign's header says how many runs it combines.
for i in 1 2 3; do
	"$ZOND" record -q -c three -o camp.db -- "$SCALED" 0 4 >/dev/null || fail "record $i"
done
"$ZOND" report -i camp.db -C three --raw >camp.txt || fail "report -C"
check_eq "campaign runs line" "$(grep '^runs:' camp.txt)" \
	"runs:      3 combined (the facts shown are the newest run's)"
check_eq "campaign calls of light" "$(awk '$NF == "light" { print $1 }' camp.txt)" 12
check_eq "one run: no runs line" "$("$ZOND" report -i camp.db | grep -c '^runs:')" 0

# runs -d removes one run; the others stay as they were.
run_ids() { "$ZOND" runs -i camp.db | awk '$1 ~ /^[0-9]+$/ { printf "%s ", $1 }'; }
check_eq "runs lists three" "$(run_ids)" "1 2 3 "
check_eq "runs -d 2" "$("$ZOND" runs -i camp.db -d 2)" "deleted run 2"
check_eq "runs after -d 2" "$(run_ids)" "1 3 "
check_error "runs -d of a deleted run" "camp.db: no run 2 (2 runs with ids from 1 to 3)" "$ZOND" runs -i camp.db -d 2
# an empty reference (an unset "$RUN") deletes nothing (QA s15 W2 F2: the newest run went)
check_error "runs -d ''" "camp.db: bad run reference ''" "$ZOND" runs -i camp.db -d ''
check_eq "runs after -d ''" "$(run_ids)" "1 3 "
check_error "report of a deleted run" "no run 2" "$ZOND" report -i camp.db -r 2
check_eq "campaign after -d 2" "$("$ZOND" report -i camp.db -C three --raw | awk '$NF == "light" { print $1 }')" 8
# the same run twice is one run (doc/reports.md; QA s15 W2: refused)
check_eq "runs -d last -d last" "$("$ZOND" runs -i camp.db -d last -d last)" "deleted run 3"
check_eq "runs -d -1" "$("$ZOND" runs -i camp.db -d -1)" "deleted run 1"
check_eq "no run left" "$(run_ids)" ""

finish
